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

import calendar
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

# 17 or 14 digits, or 'yyyy-MM-dd[ HH:mm:ss[.SSS]]': year, month, day, hour, minute, second, millis.
_DIGITS_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})?$")
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?)?$")
_FORMS = "expected yyyyMMddHHmmssSSS, yyyyMMddHHmmss, 'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd'"


def normalize_instant_time(value: str, argument: str = "instant") -> str:
    """Turns a user-given instant into a 17-digit instant time (UTC).

    Accepts `yyyyMMddHHmmssSSS`, `yyyyMMddHHmmss` (the start of that second),
    `yyyy-MM-dd HH:mm:ss[.SSS]` and `yyyy-MM-dd`, as Hudi's `as.of.instant` does; all zeros is the
    start of the timeline.

    Raises:
        TimelineError: naming `argument` (the parameter or option that was given) and the value,
            for anything else, including digits that are no calendar date and time.
    """
    if not isinstance(value, str):
        raise TimelineError(f"invalid instant time {value!r} for {argument}: expected a string; {_FORMS}")
    text = value.strip()
    match = _DIGITS_RE.match(text) or _DATE_RE.match(text)
    if match is None:
        raise TimelineError(f"invalid instant time {value!r} for {argument}: {_FORMS}")
    if text.isdigit() and int(text) == 0:
        return "0" * 17
    year, month, day, hour, minute, second, millis = (int(part or 0) for part in match.groups())
    days = calendar.monthrange(year, month)[1] if year >= 1 and 1 <= month <= 12 else 31
    fields = [("year", year, 1, 9999), ("month", month, 1, 12), ("day", day, 1, days)]
    fields += [("hour", hour, 0, 23), ("minute", minute, 0, 59), ("second", second, 0, 59)]
    for name, number, low, high in fields:
        if not low <= number <= high:
            raise TimelineError(
                f"invalid instant time {value!r} for {argument}: {name} {number} is not in {low}..{high} ({_FORMS})"
            )
    return f"{year:04d}{month:02d}{day:02d}{hour:02d}{minute:02d}{second:02d}{millis:03d}"


def format_instant_time(moment: datetime) -> str:
    """A UTC datetime as a 17-digit instant time."""
    utc = moment.astimezone(UTC)
    # The year is padded by hand: strftime's %Y gives 884, not 0884, on glibc.
    return f"{utc.year:04d}" + utc.strftime("%m%d%H%M%S") + f"{utc.microsecond // 1000:03d}"


def parse_instant_time(instant_time: str) -> datetime:
    """A 17- or 14-digit instant time as a UTC datetime."""
    text = instant_time.ljust(17, "0")
    try:
        moment = datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError as e:
        raise TimelineError(f"invalid instant time {instant_time!r}: {e}") from e
    return moment.replace(microsecond=int(text[14:17]) * 1000)
