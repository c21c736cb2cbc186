"""Writing the metadata table: initialization, deltacommits, rollback, compaction and cleaning.

Layout (notes §5): a Merge-on-Read table at `.hoodie/metadata` with HFile base files. A partition
is built by one deltacommit at an initialization instant (`0000000000000000n`) holding a base
HFile per file group; each data-table instant then becomes a deltacommit with the same instant
time whose log files carry one HFILE_DATA block (and, for the record index, a delete block) per
file group touched. After `hoodie.metadata.compact.max.delta.commits` deltacommits the table is
compacted into new base HFiles, and slices older than the retained compactions are deleted.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import pyarrow as pa

from hudi_core.config import HudiConfigs
from hudi_core.config.metadata import HudiMetadataConfig
from hudi_core.config.properties import PROPERTIES_FILE, format_properties, table_checksum
from hudi_core.config.table import HudiTableConfig
from hudi_core.config.write import HudiIndexConfig
from hudi_core.errors import MetadataTableError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.hfile_writer import write_hfile
from hudi_core.file_group.compaction_plan import CompactionOperation, plan_record
from hudi_core.file_group.log_file.format import BlockType, HeaderKey, encode_block
from hudi_core.file_group.log_file.writer import delete_block, new_log_file_name
from hudi_core.file_group.naming import BaseFileName, parse_base_file_name, parse_log_file_name
from hudi_core.lifecycle import crash
from hudi_core.metadata.keys import file_group_index, file_group_indexes
from hudi_core.metadata.partitions import ORDER, MetadataPartition
from hudi_core.metadata.reader import INIT_INSTANT_PREFIX, METADATA_DIR, KeyFilter, MetadataTableReader
from hudi_core.metadata.record import (
    SCHEMA_V8,
    SCHEMA_V9,
    MetadataRecord,
    MetadataRecordSchema,
    encode,
    metadata_record_schema,
)
from hudi_core.metadata.updates import MetadataUpdate
from hudi_core.storage import Storage
from hudi_core.table.create import update_table_properties, write_partition_metafile
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import WriteStat, commit_metadata_record
from hudi_core.timeline.instant import Action, Instant
from hudi_core.timeline.schemas import COMMIT_METADATA, COMPACTION_PLAN
from hudi_core.timeline.serde import encode_avro_container
from hudi_core.timeline.writer import TimelineWriter, new_instant_time

METADATA_PARTITIONS_KEY = HudiTableConfig.METADATA_PARTITIONS.key
METADATA_PARTITIONS_INFLIGHT_KEY = HudiTableConfig.METADATA_PARTITIONS_INFLIGHT.key
TIMELINE_DIR = ".hoodie/timeline"
WRITE_TOKEN = "0-0-0"
RECORD_INDEX_ENTRY_BYTES = 48  # Hudi's estimate of one record-index entry when sizing the partition


@dataclass(frozen=True)
class MetadataSettings:
    """The metadata-table options a writer runs with."""

    enabled: bool
    partitions: frozenset[MetadataPartition]
    file_group_counts: Mapping[MetadataPartition, int]
    record_index_range: tuple[int, int, int]  # min count, max count, bytes per file group
    compact_every: int
    retained_compactions: int
    stats_columns: tuple[str, ...]
    max_stats_columns: int

    @classmethod
    def of(cls, configs: HudiConfigs) -> MetadataSettings:
        c = HudiMetadataConfig
        partitions = {MetadataPartition.FILES}
        if configs.value(c.COLUMN_STATS_ENABLE):
            partitions.add(MetadataPartition.COLUMN_STATS)
        if configs.value(c.PARTITION_STATS_ENABLE):
            partitions.add(MetadataPartition.PARTITION_STATS)
        if configs.value(c.BLOOM_FILTER_ENABLE):
            partitions.add(MetadataPartition.BLOOM_FILTERS)
        if configs.value(c.RECORD_INDEX_ENABLE) or configs.value(HudiIndexConfig.INDEX_TYPE) == "RECORD_INDEX":
            partitions.add(MetadataPartition.RECORD_INDEX)
        return cls(
            enabled=bool(configs.value(c.ENABLE)),
            partitions=frozenset(partitions),
            file_group_counts={
                MetadataPartition.FILES: 1,
                MetadataPartition.COLUMN_STATS: int(configs.value(c.COLUMN_STATS_FILE_GROUPS)),
                MetadataPartition.PARTITION_STATS: int(configs.value(c.PARTITION_STATS_FILE_GROUPS)),
                MetadataPartition.BLOOM_FILTERS: int(configs.value(c.BLOOM_FILTER_FILE_GROUPS)),
            },
            record_index_range=(
                int(configs.value(c.RECORD_INDEX_MIN_FILE_GROUPS)),
                int(configs.value(c.RECORD_INDEX_MAX_FILE_GROUPS)),
                int(configs.value(c.RECORD_INDEX_MAX_FILE_GROUP_SIZE)),
            ),
            compact_every=int(configs.value(c.COMPACT_MAX_DELTA_COMMITS)),
            retained_compactions=int(configs.value(c.CLEANER_COMMITS_RETAINED)),
            stats_columns=tuple(str(name) for name in configs.value(c.COLUMN_STATS_COLUMNS)),
            max_stats_columns=int(configs.value(c.COLUMN_STATS_MAX_COLUMNS)),
        )

    def file_group_count(self, partition: MetadataPartition, records: int) -> int:
        if partition is not MetadataPartition.RECORD_INDEX:
            return max(1, self.file_group_counts.get(partition, 1))
        low, high, group_bytes = self.record_index_range
        wanted = -(-records * RECORD_INDEX_ENTRY_BYTES * 2 // max(group_bytes, 1))  # growth factor 2
        return max(low, min(high, wanted))


def metadata_table_properties(
    data_table_name: str, database: str | None = None, table_version: int = 8
) -> dict[str, str]:
    """hoodie.properties of a metadata table (notes §5.1), at its data table's version."""
    name = f"{data_table_name}_metadata"
    return {
        HudiTableConfig.PAYLOAD_CLASS.key: "org.apache.hudi.metadata.HoodieMetadataPayload",
        HudiTableConfig.INITIAL_VERSION.key: str(table_version),
        HudiTableConfig.KEY_GENERATOR_TYPE.key: "HOODIE_TABLE_METADATA",
        HudiTableConfig.TYPE.key: "MERGE_ON_READ",
        HudiTableConfig.ARCHIVELOG_FOLDER.key: "history",
        HudiTableConfig.TIMELINE_LAYOUT_VERSION.key: "2",
        HudiTableConfig.TIMELINE_HISTORY_PATH.key: "history",
        HudiTableConfig.CHECKSUM.key: str(table_checksum(None, name)),
        HudiTableConfig.DROP_PARTITION_COLUMNS.key: "false",
        HudiTableConfig.RECORD_MERGE_STRATEGY_ID.key: "00000000-0000-0000-0000-000000000000",
        HudiTableConfig.RECORD_KEY_FIELDS.key: "key",
        HudiTableConfig.NAME.key: name,
        HudiTableConfig.TIMELINE_PATH.key: "timeline",
        HudiTableConfig.POPULATE_META_FIELDS.key: "false",
        HudiTableConfig.BASE_FILE_FORMAT.key: "HFILE",
        HudiTableConfig.RECORD_MERGE_MODE.key: "CUSTOM",
        HudiTableConfig.VERSION.key: str(table_version),
    }


def hfile_of(records: Mapping[str, MetadataRecord], base_file: bool, schema: MetadataRecordSchema) -> bytes:
    """An HFile of `records` (sorted by key), as base file or log-block content."""
    cells = sorted((key.encode("utf-8"), encode(record, schema)) for key, record in records.items())
    info = {b"schema": schema.stored_json.encode("utf-8")}
    if base_file and cells:
        info[b"minRecordKey"] = cells[0][0]
        info[b"maxRecordKey"] = cells[-1][0]
    return write_hfile(cells, file_info=info)


def hfile_block(instant_time: str, records: Mapping[str, MetadataRecord], schema: MetadataRecordSchema) -> bytes:
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: schema.stored_json}
    return encode_block(BlockType.HFILE_DATA, header, hfile_of(records, base_file=False, schema=schema))


class MetadataTableWriter:
    """Writes one data table's metadata table."""

    def __init__(
        self, storage: Storage, data_table_name: str, settings: MetadataSettings, table_version: int = 8
    ) -> None:
        self.table_version = table_version
        self.data_storage = storage
        self.storage = storage.sub(METADATA_DIR)
        self.data_table_name = data_table_name
        self.settings = settings
        self.timeline_writer = TimelineWriter(self.storage, TIMELINE_DIR, 2)
        self._loaded: tuple[int, Timeline] | None = None  # the timeline as of the writer's nth change

    @functools.cached_property
    def schema(self) -> MetadataRecordSchema:
        """The record schema this metadata table already uses (a table keeps one, or readers cannot
        reconcile its blocks: Apache Hudi 1.1+ writes 1.2's schema even at table version 8), else
        the schema of the data table's version."""
        if self.exists():
            timeline = self.timeline()
            for instant in reversed(timeline.completed()):
                written = timeline.commit_metadata(instant).schema
                if written:
                    return SCHEMA_V9 if '"valueType"' in written else SCHEMA_V8
        return metadata_record_schema(self.table_version)

    # ---- table ---------------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.storage.exists(PROPERTIES_FILE)

    def create(self) -> None:
        self._loaded = None
        self.storage.makedirs(TIMELINE_DIR)
        self.storage.makedirs(f"{TIMELINE_DIR}/history")
        text = format_properties(
            metadata_table_properties(self.data_table_name, table_version=self.table_version),
            f"Properties saved on {datetime.now(UTC).isoformat()}",
        )
        self.storage.write_atomic(PROPERTIES_FILE, text.encode("utf-8"))

    def delete(self) -> None:
        """Drops the metadata table; readers fall back to listing storage."""
        update_table_properties(self.data_storage, {METADATA_PARTITIONS_KEY: "", METADATA_PARTITIONS_INFLIGHT_KEY: ""})
        self.data_storage.delete_dir(METADATA_DIR)
        self._loaded = None

    def timeline(self) -> Timeline:
        """The metadata timeline, loaded again only after this writer changed it (the data table's
        lock keeps other writers out of it meanwhile)."""
        changes = self.timeline_writer.changes
        if self._loaded is None or self._loaded[0] != changes:
            self._loaded = changes, Timeline.load(self.storage, TIMELINE_DIR, 2, None, f"{TIMELINE_DIR}/history")
        return self._loaded[1]

    def file_ids(self, partition: MetadataPartition) -> list[str]:
        """The partition's file groups, ordered by index."""
        if not self.storage.exists(partition.path):
            return []
        ids: set[str] = set()
        for entry in self.storage.list_dir(partition.path):
            parsed = parse_base_file_name(entry.name) or parse_log_file_name(entry.name)
            if parsed is not None and parsed.file_id.startswith(partition.prefix):
                ids.add(parsed.file_id)
        return sorted(ids, key=partition.index_of)

    # ---- initialization ------------------------------------------------------------------------

    def initialize(
        self, partition: MetadataPartition, records: Mapping[str, MetadataRecord], published: list[str]
    ) -> str:
        """Builds one partition from `records` in its own deltacommit; returns the instant time.

        `published` is the data table's current partition list; the partition joins it (and
        `hoodie.table.metadata.partitions`) only once its deltacommit completed.
        """
        if not self.exists():
            self.create()
        timeline = self.timeline()
        instant_time = self._init_instant(timeline)
        count = self.settings.file_group_count(partition, len(records))
        routed = _route(records, count)
        requested = self.timeline_writer.request(instant_time, Action.DELTA_COMMIT)
        inflight = self.timeline_writer.to_inflight(requested)
        self.storage.makedirs(partition.path)
        write_partition_metafile(self.storage, partition.path, instant_time)
        stats = []
        for index in range(count):
            file_id = partition.file_id(index)
            name = BaseFileName(file_id, WRITE_TOKEN, instant_time, "hfile").name
            content = hfile_of(routed.get(index, {}), base_file=True, schema=self.schema)
            path = posixpath.join(partition.path, name)
            self.storage.write_bytes(path, content)
            stats.append(_stat(partition.path, file_id, path, len(content), len(routed.get(index, {})), None))
        self._complete(inflight, stats, "UPSERT_PREPPED")
        update_table_properties(
            self.data_storage, {METADATA_PARTITIONS_KEY: ",".join(sorted({*published, partition.path}))}
        )
        return instant_time

    def _init_instant(self, timeline: Timeline) -> str:
        used = {i.requested_time for i in timeline.instants()}
        n = 0
        while f"{INIT_INSTANT_PREFIX}{n:04d}" in used:
            n += 1
        return f"{INIT_INSTANT_PREFIX}{n:04d}"

    # ---- deltacommits --------------------------------------------------------------------------

    def deltacommit(self, instant_time: str, update: MetadataUpdate, present: Iterable[MetadataPartition]) -> None:
        """Records one data-table instant as a deltacommit of the same instant time."""
        timeline = self.timeline()
        _ = self.schema  # resolved from the timeline as loaded, before this deltacommit changes it
        if timeline.find(instant_time) is not None:
            self.rollback(instant_time)  # a retried commit: drop what the failed attempt wrote
        requested = self.timeline_writer.request(instant_time, Action.DELTA_COMMIT)
        inflight = self.timeline_writer.to_inflight(requested)
        stats: list[WriteStat] = []
        for partition in present:
            records = update.records.get(partition, {})
            deleted = update.deleted_keys.get(partition, set())
            if not records and not deleted:
                continue
            file_ids = self.file_ids(partition)
            if not file_ids:
                raise MetadataTableError(f"metadata partition {partition.path} has no file groups")
            routed = _route(records, len(file_ids))
            deleted_routed: dict[int, list[str]] = {}
            for key in sorted(deleted):
                deleted_routed.setdefault(file_group_index(key, len(file_ids)), []).append(key)
            for index in sorted(set(routed) | set(deleted_routed)):
                blocks = b""
                if routed.get(index):
                    blocks += hfile_block(instant_time, routed[index], self.schema)
                if deleted_routed.get(index):
                    keys = deleted_routed[index]
                    blocks += delete_block(instant_time, self.schema.stored, keys, [partition.path] * len(keys), None)
                file_id = file_ids[index]
                name = new_log_file_name(self.storage, partition.path, file_id, instant_time, WRITE_TOKEN)
                path = posixpath.join(partition.path, name)
                self.storage.write_bytes(path, blocks)
                count = len(routed.get(index, {})) + len(deleted_routed.get(index, []))
                stats.append(_stat(partition.path, file_id, path, len(blocks), count, instant_time, log=True))
        crash.crash_point("metadata.after_log_files")
        self._complete(inflight, stats, "UPSERT_PREPPED")
        crash.crash_point("metadata.after_deltacommit")

    def _complete(self, inflight: Instant, stats: list[WriteStat], operation: str, compacted: bool = False) -> Instant:
        record = commit_metadata_record(stats, operation, {"schema": self.schema.record_json}, compacted=compacted)
        return self.timeline_writer.complete(inflight, encode_avro_container(COMMIT_METADATA, record))

    def rollback(self, instant_time: str) -> bool:
        """Removes a deltacommit and its files; False when the metadata table already absorbed the
        instant into base files (a compaction, or a build from a listing that included it)."""
        timeline = self.timeline()
        instant = timeline.find(instant_time)
        if instant is not None and not instant.is_completed:
            self._delete_files_of(instant_time)
            self.timeline_writer.remove(instant, Action.DELTA_COMMIT)
            return True
        synced_at = instant.completion_time if instant is not None and instant.completion_time else instant_time
        for own in timeline.completed():
            built = own.requested_time.startswith(INIT_INSTANT_PREFIX) and (own.completion_time or "") > instant_time
            # Without a deltacommit (a write that lost a conflict or died before syncing) there is
            # nothing a compaction could have absorbed; the metadata timeline is never archived.
            compacted = instant is not None and own.action is Action.COMMIT and own.requested_time > synced_at
            if built or compacted:
                return False
        if instant is not None:
            self._delete_files_of(instant_time)
            self.timeline_writer.remove(instant, Action.DELTA_COMMIT)
        return True

    # ---- compaction and cleaning ---------------------------------------------------------------

    def compact_if_due(self, data_timeline: Timeline) -> str | None:
        """Compacts every file group with logs once enough deltacommits piled up; returns the instant.

        Skipped while a deltacommit belongs to a data-table write that has not completed: its
        records must stay in logs, where a rollback can still remove them.
        """
        timeline = self._drop_failed_compactions(self.timeline())
        since = [
            i
            for i in timeline.completed()
            if i.action is Action.DELTA_COMMIT and i.requested_time > _last_compaction(timeline)
        ]
        if len(since) < self.settings.compact_every:
            return None
        if any(not i.is_completed for i in timeline.instants()):
            return None
        reader = MetadataTableReader(self.data_storage, data_timeline)
        if {i.requested_time for i in since} - {i.requested_time for i in reader.valid}:
            return None
        instant_time = new_instant_time(after=max(i.requested_time for i in timeline.instants()))
        targets: list[tuple[MetadataPartition, FileSlice]] = []
        for partition in ORDER:
            for file_slice in reader.file_slices(partition):
                if file_slice.log_files:
                    targets.append((partition, file_slice))
        if not targets:
            return None
        plan = plan_record([CompactionOperation.for_slice(s, 0) for _, s in targets])
        requested = self.timeline_writer.request(
            instant_time, Action.COMPACTION, encode_avro_container(COMPACTION_PLAN, plan)
        )
        inflight = self.timeline_writer.to_inflight(requested)
        stats = []
        for partition, file_slice in targets:
            records = reader.slice_records(file_slice, KeyFilter())
            name = BaseFileName(file_slice.file_id, WRITE_TOKEN, instant_time, "hfile").name
            path = posixpath.join(partition.path, name)
            content = hfile_of(records, base_file=True, schema=self.schema)
            self.storage.write_bytes(path, content)
            stats.append(
                _stat(partition.path, file_slice.file_id, path, len(content), len(records), file_slice.base_instant)
            )
        crash.crash_point("metadata.after_compaction_files")
        self._complete(inflight, stats, "COMPACT", compacted=True)
        self._clean(timeline=self.timeline())
        return instant_time

    def _drop_failed_compactions(self, timeline: Timeline) -> Timeline:
        """Removes compactions a crashed writer left pending (writers hold the table lock, so
        a pending compaction here has no live owner); the next compaction redoes the work."""
        failed = [i for i in timeline.pending() if i.action is Action.COMPACTION]
        for instant in failed:
            self._delete_files_of(instant.requested_time)
            self.timeline_writer.remove(instant, Action.COMPACTION)
        return self.timeline() if failed else timeline

    def _delete_files_of(self, instant_time: str) -> None:
        for partition in ORDER:
            if not self.storage.exists(partition.path):
                continue
            for entry in self.storage.list_dir(partition.path):
                parsed = parse_log_file_name(entry.name) or parse_base_file_name(entry.name)
                if parsed is not None and parsed.instant_time == instant_time:
                    self.storage.delete(posixpath.join(partition.path, entry.name))

    def _clean(self, timeline: Timeline) -> None:
        """Deletes file slices older than the retained compactions (readers of those are long done)."""
        compactions = sorted(i.requested_time for i in timeline.completed() if i.action is Action.COMMIT)
        if len(compactions) <= self.settings.retained_compactions:
            return
        horizon = compactions[-self.settings.retained_compactions - 1]
        for partition in ORDER:
            if not self.storage.exists(partition.path):
                continue
            for entry in self.storage.list_dir(partition.path):
                parsed = parse_base_file_name(entry.name) or parse_log_file_name(entry.name)
                if parsed is not None and parsed.instant_time < horizon:
                    self.storage.delete(posixpath.join(partition.path, entry.name))


def _last_compaction(timeline: Timeline) -> str:
    done = [i.requested_time for i in timeline.completed() if i.action is Action.COMMIT]
    return max(done) if done else ""


def _route(records: Mapping[str, MetadataRecord], count: int) -> dict[int, dict[str, MetadataRecord]]:
    """Records by the index of the file group their key maps to."""
    routed: dict[int, dict[str, MetadataRecord]] = {}
    if count == 1:
        return {0: dict(records)} if records else {}
    keys = list(records)
    for key, index in zip(keys, file_group_indexes(pa.array(keys, pa.string()), count).tolist(), strict=True):
        routed.setdefault(index, {})[key] = records[key]
    return routed


def _stat(
    partition: str, file_id: str, path: str, size: int, records: int, prev_commit: str | None, log: bool = False
) -> WriteStat:
    return WriteStat(
        file_id=file_id,
        path=path,
        partition_path=partition,
        prev_commit=prev_commit,
        num_writes=records,
        num_inserts=0 if log else records,
        num_update_writes=records if log else 0,
        num_deletes=0,
        total_write_bytes=size,
        file_size_in_bytes=size,
        total_log_records=0,
        base_file=None,
        log_files=(posixpath.basename(path),) if log else (),
        cdc_stats=None,
    )
