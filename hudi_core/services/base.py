"""What every table service shares: its options, the table lock, heartbeats, results.

A service plans under the table lock (so a plan never races a writer's commit). Under optimistic
concurrency it executes without it (writers keep writing: a compaction's new slice takes their
later logs) and finalizes under the lock again; with one writer at a time, a compaction or
clustering holds the lock for its whole run (`ServiceContext.run`). While it executes, its
instant's heartbeat is fresh; a later run that finds the instant inflight with a stale heartbeat
deletes the partial files and runs the plan again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from hudi_core.concurrency import is_optimistic, table_lock
from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import ConcurrentWriteError
from hudi_core.lifecycle.heartbeat import InstantHeartbeat, heartbeat_expired
from hudi_core.lifecycle.metadata_sync import DataTimelineWriter, data_timeline_writer
from hudi_core.lifecycle.rollback import rollback_instant
from hudi_core.parallel import TaskRunner, run_locally
from hudi_core.storage import Storage
from hudi_core.table.state import TableState, load_table_state
from hudi_core.timeline.instant import Instant, State
from hudi_core.timeline.writer import TimelineWriter


class ServiceContext:
    """One service run's view of the table: storage, options, the locking discipline, and the
    runner its file-group tasks (compaction, clustering, clean's deletions) are handed to."""

    def __init__(self, storage: Storage, options: Mapping[str, str], runner: TaskRunner = run_locally) -> None:
        validate_options(options)
        self.storage = storage
        self.runner = runner  # where file-group tasks run: the engine's choice
        self.options = dict(options)
        self.configs = HudiConfigs(self.options)
        self.heartbeat_ms = self.configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
        self.tolerable_misses = self.configs.value(HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES)
        self._holding = False  # within `run` of one writer at a time: the table lock is held
        # While the lock is held nobody else changes the table: the state loaded under it is reused
        # until one of the writers handed out changes the timeline (or `changed()` says so).
        self._held: tuple[int, TableState] | None = None
        self._writers: list[TimelineWriter] = []

    def state(self) -> TableState:
        """The table state now (within `run` holding the lock, reused while nothing changed it)."""
        if not self._holding:
            return load_table_state(self.storage)
        changes = sum(writer.changes for writer in self._writers)
        if self._held is None or self._held[0] != changes:
            self._held = changes, load_table_state(self.storage)
        return self._held[1]

    def changed(self) -> None:
        """Says the timeline or the table config changed other than through `writer()`."""
        self._held = None

    def writer(self, state: TableState) -> DataTimelineWriter:
        writer = data_timeline_writer(self.storage, state, self.configs)
        if self._holding:
            self._writers.append(writer)
        return writer

    @contextmanager
    def locked(self, purpose: str) -> Iterator[TableState]:
        """Holds the table lock of the configured concurrency mode (within `run`, the lock it holds);
        yields the table state loaded under it."""
        if self._holding:
            yield self.state()
            return
        with table_lock(self.storage, self.configs, purpose):
            yield self.state()

    @contextmanager
    def run(self, purpose: str) -> Iterator[None]:
        """One run of a service that executes a plan, from finding or scheduling it to completing it.

        One writer at a time (the storage lock, never waited for): the run holds the table lock
        throughout. A writer taking it between the steps would make the completion fail (and the
        next run roll the finished work back and redo it), or find a clustering plan pending and
        have its updates refused. When the lock cannot be taken, nothing starts. Optimistic
        concurrency: writers go on meanwhile; each step takes the lock, waiting as the options say.
        """
        if self._holding or is_optimistic(self.configs):
            yield
            return
        with table_lock(self.storage, self.configs, purpose):
            self._holding = True
            try:
                yield
            finally:
                self._holding = False
                self._held, self._writers = None, []

    def heartbeat(self, instant_time: str) -> InstantHeartbeat:
        return InstantHeartbeat(self.storage, instant_time, self.heartbeat_ms)

    def is_abandoned(self, instant: Instant) -> bool:
        """True for an inflight instant whose process stopped beating."""
        return heartbeat_expired(self.storage, instant.requested_time, self.heartbeat_ms, self.tolerable_misses)

    def reclaim(self, state: TableState, instant: Instant) -> Instant:
        """Makes a pending service instant runnable: an abandoned attempt is rolled back to its plan.

        Raises ConcurrentWriteError when another process is still running it.
        """
        if instant.state is State.REQUESTED:
            return instant
        if not self.is_abandoned(instant):
            raise ConcurrentWriteError(
                f"{instant.action.value} {instant.requested_time} is being run by a live process"
            )
        pending = state.timeline.pending_action(instant)
        rollback_instant(self.storage, state.timeline, self.writer(state), instant, pending)
        return Instant(instant.requested_time, None, pending, State.REQUESTED)
