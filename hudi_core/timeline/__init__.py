"""The timeline: every action ever requested on a table, and the state it reached.

Layout 1 (table v6) keeps instant files directly in `.hoodie/`; layout 2 (table v8+) keeps
them in `.hoodie/timeline/` with the completion time in completed file names (spec notes §1).
A Timeline is a snapshot of the listing taken when it was loaded; tables reload it per call.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, MutableMapping

from hudi_core.errors import InstantNotFoundError
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.instant import (
    DATA_ACTIONS,
    TABLE_SERVICE_ACTIONS,
    Action,
    Instant,
    InstantFile,
    State,
    parse_instant_file_name,
)
from hudi_core.timeline.serde import decode_instant_content

_SERVICE_OPERATIONS = frozenset({"COMPACT", "LOG_COMPACT", "CLUSTER"})
_STATE_RANK = {State.REQUESTED: 0, State.INFLIGHT: 1, State.COMPLETED: 2}


class Timeline:
    """The active timeline of one table.

    Args:
        storage: the table's storage (rooted at the base path).
        timeline_dir: the instant folder relative to the base path.
        layout_version: 1 or 2.
        files: the parsed instant file names found in `timeline_dir`.
        metadata_cache: shared cache of decoded completed-instant contents (they never change).
    """

    def __init__(
        self,
        storage: Storage,
        timeline_dir: str,
        layout_version: int,
        files: Iterable[InstantFile],
        metadata_cache: MutableMapping[str, CommitMetadata] | None = None,
    ) -> None:
        self._storage = storage
        self.timeline_dir = timeline_dir
        self.layout_version = layout_version
        self._cache: MutableMapping[str, CommitMetadata] = metadata_cache if metadata_cache is not None else {}
        by_time: dict[str, Instant] = {}
        pending_actions: dict[str, Action] = {}
        for f in files:
            if f.state is not State.COMPLETED:
                pending_actions.setdefault(f.requested_time, f.action)
                if f.action is not Action.COMMIT:  # `<t>.inflight` does not name a service action
                    pending_actions[f.requested_time] = f.action
            current = by_time.get(f.requested_time)
            if current is None or _STATE_RANK[f.state] > _STATE_RANK[current.state]:
                by_time[f.requested_time] = Instant(f.requested_time, f.completion_time, f.action, f.state)
        self._instants = sorted(by_time.values(), key=lambda i: i.requested_time)
        self._by_time = by_time
        self._pending_actions = pending_actions

    @classmethod
    def load(
        cls,
        storage: Storage,
        timeline_dir: str,
        layout_version: int,
        metadata_cache: MutableMapping[str, CommitMetadata] | None = None,
    ) -> Timeline:
        """Lists `timeline_dir` and builds the timeline."""
        parsed = (parse_instant_file_name(e.name) for e in storage.list_dir(timeline_dir) if not e.is_dir)
        return cls(storage, timeline_dir, layout_version, (f for f in parsed if f is not None), metadata_cache)

    # ---- queries ------------------------------------------------------------------------------

    def instants(self) -> list[Instant]:
        """Every instant, ordered by requested time."""
        return list(self._instants)

    def completed(self) -> list[Instant]:
        """Completed instants, ordered by requested time."""
        return [i for i in self._instants if i.is_completed]

    def pending(self) -> list[Instant]:
        """Requested or inflight instants, ordered by requested time."""
        return [i for i in self._instants if not i.is_completed]

    def completed_data_instants(self) -> list[Instant]:
        """Completed commit, deltacommit and replacecommit instants (incl. compaction, clustering)."""
        return [i for i in self._instants if i.is_completed and i.action in DATA_ACTIONS]

    def get(self, requested_time: str) -> Instant:
        """The instant requested at `requested_time`; raises InstantNotFoundError."""
        instant = self._by_time.get(requested_time)
        if instant is None:
            raise InstantNotFoundError(f"no instant {requested_time} on the timeline of {self._storage.base_uri}")
        return instant

    def find(self, requested_time: str) -> Instant | None:
        return self._by_time.get(requested_time)

    def pending_action(self, instant: Instant) -> Action:
        """The action the instant was requested as (`compaction` for a completed compaction)."""
        return self._pending_actions.get(instant.requested_time, instant.action)

    def is_table_service(self, instant: Instant) -> bool:
        """True for compaction, log compaction and clustering instants.

        v8+ names them by their pending action; v6 clustering is a plain replacecommit, known
        only by the operation type in its commit metadata.
        """
        if self.pending_action(instant) in TABLE_SERVICE_ACTIONS:
            return True
        if instant.is_completed and instant.action in DATA_ACTIONS:
            return self.commit_metadata(instant).operation_type in _SERVICE_OPERATIONS
        return False

    def completion_order_key(self, instant: Instant) -> str:
        """Sort key in completion order: completion time on layout 2, instant time on layout 1."""
        return instant.completion_time or instant.requested_time

    # ---- contents -----------------------------------------------------------------------------

    def instant_path(self, instant: Instant) -> str:
        """The path (relative to the base path) of the instant's file in its current state."""
        return posixpath.join(self.timeline_dir, instant.file_name(self.layout_version))

    def read_content(self, instant: Instant) -> bytes:
        return self._storage.read_bytes(self.instant_path(instant))

    def commit_metadata(self, instant: Instant) -> CommitMetadata:
        """The commit metadata of a completed commit, deltacommit or replacecommit."""
        if not instant.is_completed:
            raise InstantNotFoundError(f"instant {instant.requested_time} ({instant.action.value}) is not completed")
        path = self.instant_path(instant)
        cached = self._cache.get(path)
        if cached is None:
            where = self._storage.full_path(path)
            cached = CommitMetadata.from_dict(decode_instant_content(self._storage.read_bytes(path), where), where)
            self._cache[path] = cached
        return cached
