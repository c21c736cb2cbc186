"""Writing instant files: the only code that changes a table's timeline (notes §1.3).

An action moves requested -> inflight -> completed; on layout 2 every state keeps its file and the
completed file carries the completion time in its name. Each file is published with a
create-if-absent, so two writers can never both create the same instant, and a completed instant
appears whole or not at all. Instant times are UTC milliseconds, strictly increasing.
"""

from __future__ import annotations

import posixpath
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from hudi_core.errors import CommitError, ConcurrentWriteError
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Action, Instant, State, format_instant_time, instant_file_name


class _InstantClock:
    """Hands out strictly increasing UTC millisecond instant times (Hudi's `createNewInstantTime`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = "0"

    def next(self, after: str | None) -> str:
        with self._lock:
            floor = max(self._last, after or "0")
            while True:
                candidate = format_instant_time(datetime.now(UTC))
                if candidate > floor:
                    self._last = candidate
                    return candidate
                time.sleep(0.001)


_CLOCK = _InstantClock()


def new_instant_time(after: str | None = None) -> str:
    """A new UTC instant time greater than every one generated in this process and than `after`."""
    return _CLOCK.next(after)


def latest_time_on(timeline: Timeline) -> str | None:
    """The greatest requested or completion time on the timeline."""
    times = [t for i in timeline.instants() for t in (i.requested_time, i.completion_time) if t]
    return max(times) if times else None


class TimelineWriter:
    """Creates and transitions instant files of one table's timeline."""

    def __init__(
        self,
        storage: Storage,
        timeline_dir: str,
        layout_version: int,
        before_complete: Callable[[Instant, bytes], None] | None = None,
    ) -> None:
        """`before_complete(instant, content)` runs before an instant's completed file is published
        (the data table's metadata-table sync); if it raises, the instant stays pending."""
        self._storage = storage
        self.timeline_dir = timeline_dir
        self.layout_version = layout_version
        self._before_complete = before_complete
        self.changes = 0  # instant files this writer created or deleted: a loaded timeline older than a change is stale

    def _path(self, name: str) -> str:
        return posixpath.join(self.timeline_dir, name)

    def file_of(self, instant: Instant) -> str:
        """The path (relative to the base path) of the file `instant` is in its state."""
        return self._path(instant.file_name(self.layout_version))

    def _publish(self, name: str, content: bytes) -> None:
        self.changes += 1
        if not self._storage.create_exclusive(self._path(name), content):
            raise ConcurrentWriteError(
                f"instant file {name} already exists in {self._storage.full_path(self.timeline_dir)}"
            )

    def request(self, requested_time: str, action: Action, content: bytes = b"") -> Instant:
        """Creates `<t>.<action>.requested`."""
        self._publish(instant_file_name(requested_time, action, State.REQUESTED, self.layout_version), content)
        return Instant(requested_time, None, action, State.REQUESTED)

    def to_inflight(self, instant: Instant, content: bytes = b"") -> Instant:
        """Creates the inflight file (`<t>.inflight` for commits)."""
        self._publish(
            instant_file_name(instant.requested_time, instant.action, State.INFLIGHT, self.layout_version), content
        )
        return Instant(instant.requested_time, None, instant.action, State.INFLIGHT)

    def complete(self, instant: Instant, content: bytes, after: str | None = None) -> Instant:
        """Publishes the completed file; its completion time is newer than anything seen so far."""
        self.changes += 1  # the hook changes the metadata table and the table config, even when it fails
        if self._before_complete is not None:
            self._before_complete(instant, content)
        completion = (
            new_instant_time(after=max(instant.requested_time, after or "0")) if self.layout_version >= 2 else None
        )
        name = instant_file_name(
            instant.requested_time, instant.action, State.COMPLETED, self.layout_version, completion
        )
        try:
            self._publish(name, content)
        except ConcurrentWriteError as e:
            raise CommitError(f"could not complete instant {instant.requested_time}: {e}") from e
        return Instant(instant.requested_time, completion, instant.action.completed_action, State.COMPLETED)

    def revert_to_requested(self, instant: Instant, pending_action: Action) -> Instant:
        """Deletes an instant's inflight (and completed) file, leaving its requested plan."""
        self.changes += 1
        if instant.is_completed:
            self._storage.delete(self._path(instant.file_name(self.layout_version)))
        self._storage.delete(
            self._path(instant_file_name(instant.requested_time, pending_action, State.INFLIGHT, self.layout_version))
        )
        return Instant(instant.requested_time, None, pending_action, State.REQUESTED)

    def remove(self, instant: Instant, pending_action: Action) -> None:
        """Deletes every file of an instant (a rolled-back write leaves no trace on the timeline).

        The completed file goes first, so an interrupted removal leaves a pending instant that the
        next rollback finishes, never a completed instant with missing data.
        """
        self.changes += 1
        if instant.is_completed:
            self._storage.delete(self._path(instant.file_name(self.layout_version)))
        for state in (State.INFLIGHT, State.REQUESTED):
            self._storage.delete(
                self._path(instant_file_name(instant.requested_time, pending_action, state, self.layout_version))
            )
