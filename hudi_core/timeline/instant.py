"""Instants: actions on the timeline, their states, file names and instant-time strings.

File names (spec notes §1.3, §1.6):

=========  =====================================  ==============================
state      layout 2 (table v8+, `.hoodie/timeline`)  layout 1 (table v6, `.hoodie`)
=========  =====================================  ==============================
requested  `<t>.<action>.requested`               same
inflight   `<t>.<action>.inflight`, commit: `<t>.inflight`   same
completed  `<t>_<completion>.<completed action>`  `<t>.<completed action>`
=========  =====================================  ==============================

A completed compaction is named `commit`, a completed log compaction `deltacommit` and a
completed clustering `replacecommit`; their requested and inflight files keep the pending name.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from hudi_core.errors import TimelineError


class Action(enum.Enum):
    COMMIT = "commit"
    DELTA_COMMIT = "deltacommit"
    REPLACE_COMMIT = "replacecommit"
    CLEAN = "clean"
    ROLLBACK = "rollback"
    SAVEPOINT = "savepoint"
    RESTORE = "restore"
    COMPACTION = "compaction"
    LOG_COMPACTION = "logcompaction"
    CLUSTERING = "clustering"
    INDEXING = "indexing"
    SCHEMA_COMMIT = "schemacommit"

    @property
    def completed_action(self) -> Action:
        """The action a completed instant of this pending action is named with."""
        return _COMPLETED_AS.get(self, self)


_COMPLETED_AS = {
    Action.COMPACTION: Action.COMMIT,
    Action.LOG_COMPACTION: Action.DELTA_COMMIT,
    Action.CLUSTERING: Action.REPLACE_COMMIT,
}

# Actions that write data files readers must see.
DATA_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})
# Pending actions of table services: their completed instants change layout, not data.
TABLE_SERVICE_ACTIONS = frozenset({Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING})


class State(enum.Enum):
    REQUESTED = "requested"
    INFLIGHT = "inflight"
    COMPLETED = "completed"


@dataclass(frozen=True, slots=True)
class Instant:
    """One instant of the timeline.

    Attributes:
        requested_time: the instant time (17 digits), when the action was requested; records
            written by the action carry it in `_hoodie_commit_time`.
        completion_time: when the action completed (layout 2 only; None on layout 1 and while
            pending).
        action: the action; a completed compaction reads `commit`, as on disk.
        state: requested, inflight or completed.
    """

    requested_time: str
    completion_time: str | None
    action: Action
    state: State

    @property
    def is_completed(self) -> bool:
        return self.state is State.COMPLETED

    def file_name(self, layout_version: int) -> str:
        """The name of this instant's file in its current state."""
        return instant_file_name(self.requested_time, self.action, self.state, layout_version, self.completion_time)


@dataclass(frozen=True, slots=True)
class InstantFile:
    """What one timeline file name says."""

    requested_time: str
    completion_time: str | None
    action: Action
    state: State


_NAME_RE = re.compile(r"^(\d+)(?:_(\d+))?\.([a-z]+)(?:\.([a-z]+))?$")


def parse_instant_file_name(name: str) -> InstantFile | None:
    """Parses a timeline file name; returns None for files that are not instants."""
    match = _NAME_RE.match(name)
    if match is None:
        return None
    requested, completion, action_text, suffix = match.groups()
    if action_text == "inflight" and suffix is None:
        return InstantFile(requested, None, Action.COMMIT, State.INFLIGHT)
    try:
        action = Action(action_text)
    except ValueError:
        return None
    if suffix is None:
        return InstantFile(requested, completion, action, State.COMPLETED)
    if completion is not None or suffix not in ("requested", "inflight"):
        return None
    return InstantFile(requested, None, action, State(suffix))


def instant_file_name(
    requested_time: str, action: Action, state: State, layout_version: int, completion_time: str | None = None
) -> str:
    """Formats the file name of an instant in `state`."""
    if state is State.COMPLETED:
        completed = action.completed_action
        if layout_version >= 2:
            if completion_time is None:
                raise TimelineError(f"completed instant {requested_time} needs a completion time on layout 2")
            return f"{requested_time}_{completion_time}.{completed.value}"
        return f"{requested_time}.{completed.value}"
    if state is State.INFLIGHT and action is Action.COMMIT:
        return f"{requested_time}.inflight"
    return f"{requested_time}.{action.value}.{state.value}"


# ---- instant-time strings -------------------------------------------------------------------

_FORMATS = (
    (re.compile(r"^\d{17}$"), None),
    (re.compile(r"^\d{14}$"), None),
    (re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$"), "%Y-%m-%d %H:%M:%S.%f"),
    (re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"), "%Y-%m-%d %H:%M:%S"),
    (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "%Y-%m-%d"),
)


def normalize_instant_time(value: str) -> str:
    """Turns a user-given instant into a 17-digit instant time (UTC).

    Accepts `yyyyMMddHHmmssSSS`, `yyyyMMddHHmmss` (the start of that second),
    `yyyy-MM-dd HH:mm:ss[.SSS]` and `yyyy-MM-dd`, as Hudi's `as.of.instant` does.
    """
    text = value.strip()
    for pattern, fmt in _FORMATS:
        if not pattern.match(text):
            continue
        if fmt is None:
            if int(text) != 0:
                _validate_digits(text, value)
            return text.ljust(17, "0")
        moment = datetime.strptime(text, fmt)
        return format_instant_time(moment.replace(tzinfo=UTC))
    raise TimelineError(
        f"invalid instant time {value!r}: expected yyyyMMddHHmmssSSS, yyyyMMddHHmmss, "
        "'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd'"
    )


def _validate_digits(text: str, original: str) -> None:
    try:
        datetime.strptime(text[:14], "%Y%m%d%H%M%S")
    except ValueError as e:
        raise TimelineError(f"invalid instant time {original!r}: {e}") from e


def format_instant_time(moment: datetime) -> str:
    """A UTC datetime as a 17-digit instant time."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y%m%d%H%M%S") + f"{utc.microsecond // 1000:03d}"


def parse_instant_time(instant_time: str) -> datetime:
    """A 17- or 14-digit instant time as a UTC datetime."""
    text = instant_time.ljust(17, "0")
    try:
        moment = datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError as e:
        raise TimelineError(f"invalid instant time {instant_time!r}: {e}") from e
    return moment.replace(microsecond=int(text[14:17]) * 1000)
