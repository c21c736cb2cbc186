"""Keeping the metadata table in step with the data timeline.

Every data-table instant completes through a `DataTimelineWriter` (`data_timeline_writer`), whose
hook runs first, under the same table lock: the metadata table records the instant as a
deltacommit of the same instant time, so the data instant never completes without it (Hudi's
order: metadata deltacommit, then the data instant). A data-table rollback removes the rolled-back
instant's deltacommit; when a metadata compaction already absorbed it, the metadata table is
dropped and rebuilt by the next write. A writer with `hoodie.metadata.enable=false` drops it, so
no reader trusts a listing nobody maintains (notes §5.4).
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Mapping

import pyarrow as pa

from hudi_core.config import HudiConfigs
from hudi_core.config.metadata import HudiMetadataConfig
from hudi_core.config.table import RecordMergeMode
from hudi_core.file_group.fs_view import visible_instants
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.lifecycle.metadata_writer import MetadataSettings, MetadataTableWriter
from hudi_core.merge.file_group_reader import FileGroupReader
from hudi_core.metadata.column_stats import indexable_columns
from hudi_core.metadata.partitions import ORDER, MetadataPartition
from hudi_core.metadata.reader import METADATA_DIR
from hudi_core.metadata.record import MetadataRecord
from hudi_core.metadata.record_index import location_record
from hudi_core.metadata.updates import IndexedColumns, MetadataUpdate, clean_update, commit_update, files_update
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.meta_fields import RECORD_KEY, with_meta_fields, without_meta_fields
from hudi_core.schema.resolver import resolve_avro_schema
from hudi_core.storage import Storage
from hudi_core.table.listing import latest_slices, list_partitions
from hudi_core.table.scan import TableScanner, read_planned_slice
from hudi_core.table.state import TableState, load_table_state
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.instant import Action, Instant, State
from hudi_core.timeline.serde import decode_instant_content
from hudi_core.timeline.writer import TimelineWriter, latest_time_on

logger = logging.getLogger(__name__)


def data_timeline_writer(storage: Storage, state: TableState, configs: HudiConfigs) -> DataTimelineWriter:
    """The data table's timeline writer, with the metadata table kept in sync on every completion."""
    return DataTimelineWriter(storage, state, configs)


class DataTimelineWriter(TimelineWriter):
    """The data table's timeline writer: every completion first records the instant in the metadata
    table, under the same table lock.

    The sync needs the table state. Its first completion uses the state the writer was made from
    (loaded under the lock its owner holds; it lacks only the instants this writer has requested
    since, which the sync never looks at); after that, or after an instant was removed or reverted,
    the sync loads the state again. An owner that took the lock again since then says which state
    it loaded there (`vouch`).
    """

    def __init__(self, storage: Storage, state: TableState, configs: HudiConfigs) -> None:
        timeline = state.timeline
        super().__init__(storage, timeline.timeline_dir, timeline.layout_version, before_complete=self._sync_metadata)
        self._sync = MetadataSync(storage, configs)
        self._state: TableState | None = state

    def vouch(self, state: TableState) -> None:
        """The state the writer's owner loaded under the lock it holds now."""
        self._state = state

    def _sync_metadata(self, instant: Instant, content: bytes) -> None:
        state, self._state = self._state, None  # a completion changes the table: later ones reload
        self._sync(instant, content, state)

    def revert_to_requested(self, instant: Instant, pending_action: Action) -> Instant:
        self._state = None
        return super().revert_to_requested(instant, pending_action)

    def remove(self, instant: Instant, pending_action: Action) -> None:
        self._state = None
        super().remove(instant, pending_action)


class MetadataSync:
    """Records data-table instants in the metadata table."""

    def __init__(self, storage: Storage, configs: HudiConfigs) -> None:
        self.storage = storage
        self.settings = MetadataSettings.of(configs)

    def __call__(self, instant: Instant, content: bytes, state: TableState | None = None) -> None:
        """Records `instant` (about to complete with `content`); `state`: the table's, loaded under
        the lock held now (else loaded here)."""
        state = state or load_table_state(self.storage)
        if state.config.version < 8:
            return  # v6 tables are written by older Hudi versions with their own metadata layout
        writer = MetadataTableWriter(self.storage, state.config.name, self.settings, state.config.version)
        if not self.settings.enabled:
            if writer.exists() or state.config.metadata_partitions:
                logger.warning(
                    "%s=false: dropping the metadata table of %s", HudiMetadataConfig.ENABLE.key, state.config.name
                )
                writer.delete()
            return
        action = instant.action.completed_action
        if action is Action.ROLLBACK:
            self._rollback(writer, decode_instant_content(content, instant.requested_time))
            return
        if action not in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLEAN):
            return  # savepoints and restores change no files (a restore's rollbacks were synced)
        present = self.ensure_initialized(writer, state)
        writer.compact_if_due(state.timeline)
        indexed = self._indexed(present, state.config.version)
        if action is Action.CLEAN:
            update = self._clean(decode_instant_content(content, instant.requested_time), indexed, state)
        else:
            metadata = CommitMetadata.from_dict(decode_instant_content(content, instant.requested_time), "commit")
            previous: dict[tuple[str, str], str] = {}
            replaced: list[str] = []
            kept: frozenset[str] = frozenset()
            if MetadataPartition.RECORD_INDEX in present:
                previous = self._previous_base_files(metadata, state)
                replaced = self._replaced_keys(metadata, state)
                kept = self._keys_outliving_deletes(instant, metadata, state)
            update = commit_update(self.storage, instant.requested_time, metadata, indexed, previous, replaced, kept)
        writer.deltacommit(instant.requested_time, update, present)

    def _indexed(self, present: list[MetadataPartition], table_version: int) -> IndexedColumns:
        return IndexedColumns(
            frozenset(present), self.settings.stats_columns, self.settings.max_stats_columns, table_version >= 9
        )

    def _rollback(self, writer: MetadataTableWriter, metadata: Mapping[str, object] | None) -> None:
        if not writer.exists() or metadata is None:
            return
        for target in metadata.get("commitsRollback") or ():  # type: ignore[attr-defined]
            if not writer.rollback(str(target)):
                # Its records are merged into base files: rebuild from the table as it now is (the
                # rolled-back instant's files and completed instant are already gone).
                logger.warning("metadata table absorbed rolled-back instant %s: rebuilding it", target)
                state = load_table_state(self.storage)
                kept = [p for p in ORDER if p.path in state.config.metadata_partitions]
                writer.delete()
                self.ensure_initialized(writer, load_table_state(self.storage), kept)
                return

    def _clean(
        self, metadata: Mapping[str, object] | None, indexed: IndexedColumns, state: TableState
    ) -> MetadataUpdate:
        deleted: dict[str, list[str]] = {}
        for partition, info in ((metadata or {}).get("partitionMetadata") or {}).items():  # type: ignore[attr-defined]
            # Every file the plan named, as Hudi does: a rerun of a crashed clean reports the files
            # the first attempt deleted as failed deletes, and they must leave the listing too.
            names = [posixpath.basename(n) for n in info.get("deletePathPatterns") or ()]
            if names:
                deleted[partition] = names
        return clean_update(deleted, indexed, self._stats_columns(state))

    def _stats_columns(self, state: TableState) -> list[str]:
        schema = _table_schema(state)
        return (
            []
            if schema is None
            else indexable_columns(schema, self.settings.stats_columns, self.settings.max_stats_columns)
        )

    def _previous_base_files(self, metadata: CommitMetadata, state: TableState) -> dict[tuple[str, str], str]:
        """The base file each rewritten file group had before this commit."""
        touched = {(s.partition_path, s.file_id) for s in metadata.write_stats() if s.prev_commit}
        if not touched:
            return {}
        previous: dict[tuple[str, str], str] = {}
        for partition, slices in latest_slices(self.storage, state.timeline, {p for p, _ in touched}).items():
            for file_slice in slices:
                if (partition, file_slice.file_id) in touched and file_slice.base_file_path is not None:
                    previous[(partition, file_slice.file_id)] = file_slice.base_file_path
        return previous

    def _replaced_keys(self, metadata: CommitMetadata, state: TableState) -> list[str]:
        """Keys of the file groups an overwrite replaced (clustering moves every key it replaces)."""
        groups = {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}
        if not groups or (metadata.operation_type or "").upper() == "CLUSTER":
            return []
        return [key for keys in slice_keys(self.storage, state, groups).values() for key in keys]

    def _keys_outliving_deletes(self, instant: Instant, metadata: CommitMetadata, state: TableState) -> frozenset[str]:
        """Keys still stored in the file groups whose logs this deltacommit wrote deletes to.

        Under event-time ordering a delete with a smaller ordering value than the stored record's
        loses (spec features §1.4): the record stays in its file group, and so in the record index.
        """
        config = state.config
        if config.record_merge_mode is not RecordMergeMode.EVENT_TIME_ORDERING or not config.ordering_fields:
            return frozenset()
        groups = {
            (s.partition_path, s.file_id) for s in metadata.write_stats() if s.log_version is not None and s.num_deletes
        }
        if not groups:
            return frozenset()
        # The instant completes after everything on the timeline: its logs join the latest slices.
        completion = max(latest_time_on(state.timeline) or "", instant.requested_time)
        completing = Instant(instant.requested_time, completion, instant.action.completed_action, State.COMPLETED)
        found = slice_keys(self.storage, state, groups, completing)
        return frozenset(key for keys in found.values() for key in keys)

    # ---- initialization ------------------------------------------------------------------------

    def ensure_initialized(
        self, writer: MetadataTableWriter, state: TableState, extra: list[MetadataPartition] | None = None
    ) -> list[MetadataPartition]:
        """Builds the enabled (and `extra`) partitions the metadata table lacks; returns the
        partitions kept in sync."""
        published = [p for p in state.config.metadata_partitions if p]
        if published and not writer.exists():
            published = []  # the table lists partitions of a metadata table that is gone: rebuild
        if not published and writer.exists():
            self.storage.delete_dir(METADATA_DIR)  # leftovers of an interrupted build
        enabled = {*self.settings.partitions, *(extra or ())}
        wanted = [p for p in ORDER if p in enabled and p.path not in published]
        if wanted:
            build = InitialBuild(self.storage, state, self.settings)
            for partition in wanted:
                writer.initialize(partition, build.records(partition), published)
                published.append(partition.path)
        return [p for p in ORDER if p.path in published]


class InitialBuild:
    """The records of a metadata partition built from the table as it is (a file listing)."""

    def __init__(self, storage: Storage, state: TableState, settings: MetadataSettings) -> None:
        self.storage = storage
        self.state = state
        self.settings = settings
        self._view = visible_instants(state.timeline, state.timeline.completed_data_instants(), None)
        self._files: dict[str, dict[str, int]] | None = None

    def committed_files(self) -> dict[str, dict[str, int]]:
        """Every committed base and log file by partition (older slices too: time travel reads them)."""
        if self._files is None:
            self._files = {}
            for partition, entries in list_partitions(self.storage).items():
                named = {}
                for entry in entries:
                    parsed = parse_base_file_name(entry.name) or parse_log_file_name(entry.name)
                    if parsed is not None and self._view.sees(parsed.instant_time):
                        named[entry.name] = entry.size
                self._files[partition] = named
        return self._files

    def records(self, partition: MetadataPartition) -> dict[str, MetadataRecord]:
        update = MetadataUpdate()
        if partition is MetadataPartition.FILES:
            files_update(update, self.committed_files(), {})
            return update.records.get(partition, {})
        if partition is MetadataPartition.RECORD_INDEX:
            return self._record_index()
        metadata = CommitMetadata.from_dict(
            {"partitionToWriteStats": self._stats_of_latest_files(), "compacted": False}, "initial build"
        )
        indexed = IndexedColumns(
            frozenset([partition]),
            self.settings.stats_columns,
            self.settings.max_stats_columns,
            self.state.config.version >= 9,
        )
        return commit_update(self.storage, self._latest_instant(), metadata, indexed, {}).records.get(partition, {})

    def _latest_instant(self) -> str:
        done = self.state.timeline.completed_data_instants()
        return done[-1].requested_time if done else "00000000000000000"

    def _stats_of_latest_files(self) -> dict[str, list[dict[str, object]]]:
        stats: dict[str, list[dict[str, object]]] = {}
        for partition, slices in latest_slices(self.storage, self.state.timeline).items():
            for file_slice in slices:
                paths = [file_slice.base_file_path] if file_slice.base_file_path else []
                for path, size in zip(
                    [*paths, *file_slice.log_file_paths],
                    [*([file_slice.base_file_size] if paths else []), *file_slice.log_file_sizes],
                    strict=True,
                ):
                    stats.setdefault(partition, []).append(
                        {
                            "fileId": file_slice.file_id,
                            "path": path,
                            "fileSizeInBytes": size,
                            "partitionPath": partition,
                        }
                    )
        return stats

    def _record_index(self) -> dict[str, MetadataRecord]:
        done = self.state.timeline.completed_data_instants()
        if not done:
            return {}
        instant_time = done[-1].requested_time
        records: dict[str, MetadataRecord] = {}
        for (partition, file_id), keys in slice_keys(self.storage, self.state, None).items():
            for key in keys:
                records[key] = location_record(partition, file_id, instant_time)
        return records


def slice_keys(
    storage: Storage, state: TableState, groups: set[tuple[str, str]] | None, completing: Instant | None = None
) -> dict[tuple[str, str], list[str]]:
    """Record keys of the latest slices (of `groups`, or of every file group), merged with their logs.

    `completing`: an instant about to complete whose files count as committed (`groups` only).
    """
    scanner = TableScanner(storage, state.config, state.timeline, use_metadata=False)
    completed = state.timeline.completed_data_instants()
    if not completed:
        return {}
    if groups is None:
        plan = scanner.snapshot([RECORD_KEY], None)
    else:
        visible = [*completed, completing] if completing is not None else completed
        plan = scanner.file_groups(visible, None, groups, [RECORD_KEY])
    reader = FileGroupReader(storage)
    return {
        (s.partition_path, s.file_id): pa.chunked_array(
            read_planned_slice(reader, plan, s).column(RECORD_KEY)
        ).to_pylist()
        for s in plan.slices
    }


def _table_schema(state: TableState) -> pa.Schema | None:
    avro = resolve_avro_schema(state.timeline, state.config, state.timeline.completed_data_instants())
    return None if avro is None else with_meta_fields(without_meta_fields(avro_to_arrow_schema(avro)))
