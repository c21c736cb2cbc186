"""The timeline: every action ever requested on a table, and the state it reached.

Layout 1 (table v6) keeps instant files directly in `.hoodie/`; layout 2 (table v8+) keeps
them in `.hoodie/timeline/` with the completion time in completed file names (spec notes §1).
A Timeline is a snapshot of the listing taken when it was loaded; tables reload it per call.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, MutableMapping

from hudi_core.errors import HudiStorageError, InstantNotFoundError, TimelineChangedError
from hudi_core.storage import Storage
from hudi_core.timeline.archive import ArchivedInstant, load_archived_instants
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
        history_dir: str | None = None,
    ) -> None:
        self._storage = storage
        self.timeline_dir = timeline_dir
        self.layout_version = layout_version
        self.history_dir = history_dir
        self._archived: list[ArchivedInstant] | None = None
        self._has_archive: bool | None = None
        self._cache: MutableMapping[str, CommitMetadata] = metadata_cache if metadata_cache is not None else {}
        # A savepoint shares its commit's instant time: instants are keyed by time and action family
        # (a compaction's files are the same instant as the commit it completes as).
        by_key: dict[tuple[str, Action], Instant] = {}
        pending_actions: dict[tuple[str, Action], Action] = {}
        for f in files:
            key = (f.requested_time, f.action.completed_action)
            if f.state is not State.COMPLETED:
                pending_actions.setdefault(key, f.action)
                if f.action is not Action.COMMIT:  # `<t>.inflight` does not name a service action
                    pending_actions[key] = f.action
            current = by_key.get(key)
            if current is None or _STATE_RANK[f.state] > _STATE_RANK[current.state]:
                by_key[key] = Instant(f.requested_time, f.completion_time, f.action, f.state)
        self._instants = sorted(by_key.values(), key=lambda i: (i.requested_time, i.action is Action.SAVEPOINT))
        # Lookups by time alone find the write, not a savepoint of it.
        self._by_time = {i.requested_time: i for i in reversed(self._instants)}
        self._pending_actions = pending_actions

    @classmethod
    def load(
        cls,
        storage: Storage,
        timeline_dir: str,
        layout_version: int,
        metadata_cache: MutableMapping[str, CommitMetadata] | None = None,
        history_dir: str | None = None,
    ) -> Timeline:
        """Lists `timeline_dir` and builds the timeline (`history_dir`: the LSM history, layout 2)."""
        parsed = (parse_instant_file_name(e.name) for e in storage.list_dir(timeline_dir) if not e.is_dir)
        files = (f for f in parsed if f is not None)
        return cls(storage, timeline_dir, layout_version, files, metadata_cache, history_dir)

    # ---- archived instants --------------------------------------------------------------------

    def has_archive(self) -> bool:
        """Whether instants of this table were archived (layout 2 LSM history)."""
        if self._has_archive is None:
            directory = self.history_dir if self.layout_version >= 2 else None
            self._has_archive = bool(directory) and any(not e.is_dir for e in self._storage.list_dir(directory or ""))
        return self._has_archive

    def archived(self) -> list[ArchivedInstant]:
        """Archived instants (completed, by completion time) not also on the active timeline."""
        if self._archived is None:
            found = load_archived_instants(self._storage, self.history_dir or "") if self.has_archive() else []
            active = {i.requested_time for i in self._instants}
            self._archived = [a for a in found if a.requested_time not in active]
        return self._archived

    def archived_data_instants(self) -> list[Instant]:
        """Archived commits, deltacommits and replacecommits as completed instants."""
        instants = []
        for archived in self.archived():
            try:
                action = Action(archived.action)
            except ValueError:
                continue
            if action in DATA_ACTIONS:
                instants.append(Instant(archived.requested_time, archived.completion_time, action, State.COMPLETED))
        return instants

    def first_active_write(self) -> str | None:
        """The requested time of the oldest write instant on the active timeline (any state)."""
        writes = [i for i in self._instants if i.action.completed_action in DATA_ACTIONS]
        return writes[0].requested_time if writes else None

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
        return self._pending_actions.get((instant.requested_time, instant.action.completed_action), instant.action)

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
        return self.read_instant_file(self.instant_path(instant))

    def read_instant_file(self, path: str) -> bytes:
        """Bytes of a timeline file (relative path); TimelineChangedError if it vanished since loading."""
        try:
            return self._storage.read_bytes(path)
        except HudiStorageError as e:
            if self._storage.exists(path):
                raise
            raise TimelineChangedError(
                f"{self._storage.full_path(path)} was removed after the timeline was loaded (archived or rolled "
                "back by another writer); reload the table"
            ) from e

    def commit_metadata(self, instant: Instant) -> CommitMetadata:
        """The commit metadata of a completed commit, deltacommit or replacecommit (archived ones too)."""
        if instant.requested_time not in self._by_time:
            archived = next((a for a in self.archived() if a.requested_time == instant.requested_time), None)
            if archived is not None:
                return archived.commit_metadata(self._storage.full_path(self.history_dir or ""))
        if not instant.is_completed:
            raise InstantNotFoundError(f"instant {instant.requested_time} ({instant.action.value}) is not completed")
        path = self.instant_path(instant)
        cached = self._cache.get(path)
        if cached is None:
            where = self._storage.full_path(path)
            cached = CommitMetadata.from_dict(decode_instant_content(self.read_instant_file(path), where), where)
            self._cache[path] = cached
        return cached
