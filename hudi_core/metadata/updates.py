"""What a data-table instant changes in the metadata table, partition by partition.

A commit adds its files to `files` (log files with their full size) and their statistics to
`column_stats`, `partition_stats` and `bloom_filters`; a clean marks its deleted files deleted.
The record index changes only where keys appear or go: keys of a new file group, keys a rewritten
base file gained or lost against the base file it replaces, keys in log data blocks, and keys in
delete blocks. Everything is read from the files the instant wrote, so every engine and service
gets the same updates.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_core.file_group.base_file.parquet import open_parquet
from hudi_core.file_group.base_file.parquet_writer import BLOOM_FILTER_KEY
from hudi_core.file_group.log_file.blocks import decode_data_block, decode_delete_block
from hudi_core.file_group.log_file.format import BlockType
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.metadata.column_stats import (
    ColumnRange,
    arrow_ranges,
    column_stats_records,
    deleted_stats_records,
    indexable_columns,
    parquet_ranges,
    partition_stats_records,
)
from hudi_core.metadata.keys import bloom_filter_key
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.record import (
    MetadataRecord,
    RecordType,
    all_partitions_record,
    files_record,
    new_record,
    partition_name,
)
from hudi_core.metadata.record_index import location_record
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import CommitMetadata, WriteStat

DEFAULT_BLOOM_TYPE = "DYNAMIC_V0"
_DATA_BLOCKS = (BlockType.AVRO_DATA, BlockType.PARQUET_DATA)


@dataclass
class MetadataUpdate:
    """Records to upsert, by metadata-table partition, and record-index keys to delete."""

    records: dict[MetadataPartition, dict[str, MetadataRecord]] = field(default_factory=dict)
    deleted_keys: dict[MetadataPartition, set[str]] = field(default_factory=dict)

    def put(self, partition: MetadataPartition, records: Mapping[str, MetadataRecord]) -> None:
        self.records.setdefault(partition, {}).update(records)

    def delete(self, partition: MetadataPartition, keys: Iterable[str]) -> None:
        self.deleted_keys.setdefault(partition, set()).update(keys)

    def is_empty(self) -> bool:
        return not any(self.records.values()) and not any(self.deleted_keys.values())


@dataclass(frozen=True)
class IndexedColumns:
    """Which statistics a table keeps and for which columns."""

    partitions: frozenset[MetadataPartition]
    wanted_columns: tuple[str, ...] = ()
    max_columns: int = 32
    typed_values: bool = False  # table version 9: statistics name their value type

    def columns(self, schema: pa.Schema) -> list[str]:
        return indexable_columns(schema, self.wanted_columns, self.max_columns)


@dataclass(frozen=True)
class WrittenFile:
    partition: str
    file_id: str
    name: str
    size: int


def files_update(
    update: MetadataUpdate, added: Mapping[str, Mapping[str, int]], deleted: Mapping[str, Sequence[str]]
) -> None:
    """`files` records: per partition the files added (name -> size) and deleted, and the partition list."""
    records: dict[str, MetadataRecord] = {}
    for partition in sorted(set(added) | set(deleted)):
        records[partition_name(partition)] = files_record(added.get(partition, {}), deleted.get(partition, ()))
    if added:
        records["__all_partitions__"] = all_partitions_record(sorted(added))
    update.put(MetadataPartition.FILES, records)


def commit_update(
    storage: Storage,
    instant_time: str,
    metadata: CommitMetadata,
    indexed: IndexedColumns,
    previous_base_files: Mapping[tuple[str, str], str],
    replaced_keys: Sequence[str] = (),
    kept_keys: frozenset[str] = frozenset(),
) -> MetadataUpdate:
    """The metadata-table records of a completed commit, deltacommit or replacecommit.

    `previous_base_files` maps (partition, file id) to the base file path a rewrite replaced,
    for the record index of copy-on-write rewrites that inserted or deleted keys;
    `replaced_keys` are the keys of file groups an overwrite replaced; `kept_keys` are keys the
    log deletes of the commit name that stay stored (deletes that lost under event-time ordering).
    """
    update = MetadataUpdate()
    written = [_written(stat) for stat in metadata.write_stats()]
    added: dict[str, dict[str, int]] = {}
    for stat, file in zip(metadata.write_stats(), written, strict=True):
        files = added.setdefault(file.partition, {})
        files[file.name] = file.size
        for cdc_path, size in (stat.cdc_stats or {}).items():
            files[posixpath.basename(cdc_path)] = int(size)
    for partition in metadata.partition_to_replace_file_ids:
        added.setdefault(partition, {})
    files_update(update, added, {})
    wants = indexed.partitions
    logs = WrittenLogs(storage)
    if wants & {MetadataPartition.COLUMN_STATS, MetadataPartition.PARTITION_STATS, MetadataPartition.BLOOM_FILTERS}:
        _statistics(storage, logs, instant_time, written, indexed, update)
    # Compaction and log compaction keep every key in its file group, and the deletes they merge were
    # indexed when they committed: an entry from them could only undo a later write's.
    rewrites_in_place = metadata.compacted or metadata.operation_type in ("COMPACT", "LOG_COMPACT")
    if MetadataPartition.RECORD_INDEX in wants and not rewrites_in_place:
        _record_index(
            storage, logs, instant_time, metadata, written, previous_base_files, replaced_keys, kept_keys, update
        )
    return update


def clean_update(
    deleted: Mapping[str, Sequence[str]], indexed: IndexedColumns, columns: Sequence[str]
) -> MetadataUpdate:
    """The metadata-table records of a clean: files (and their statistics) deleted."""
    update = MetadataUpdate()
    files_update(update, {}, deleted)
    for partition, names in deleted.items():
        for name in names:
            if MetadataPartition.COLUMN_STATS in indexed.partitions:
                update.put(MetadataPartition.COLUMN_STATS, deleted_stats_records(partition, name, columns))
            if MetadataPartition.BLOOM_FILTERS in indexed.partitions and parse_base_file_name(name) is not None:
                update.put(
                    MetadataPartition.BLOOM_FILTERS,
                    {bloom_filter_key(partition, name): _bloom_record(name, "", b"", True)},
                )
    return update


def _written(stat: WriteStat) -> WrittenFile:
    return WrittenFile(stat.partition_path, stat.file_id, posixpath.basename(stat.path), int(stat.file_size_in_bytes))


def _path(file: WrittenFile) -> str:
    return posixpath.join(file.partition, file.name)


def _bloom_record(
    file_name: str, instant_time: str, serialized: bytes, deleted: bool, kind: str = DEFAULT_BLOOM_TYPE
) -> MetadataRecord:
    return new_record(
        RecordType.BLOOM_FILTER,
        BloomFilterMetadata={"type": kind, "timestamp": instant_time, "bloomFilter": serialized, "isDeleted": deleted},
    )


def _statistics(
    storage: Storage,
    logs: WrittenLogs,
    instant_time: str,
    written: Sequence[WrittenFile],
    indexed: IndexedColumns,
    update: MetadataUpdate,
) -> None:
    ranges_by_partition: dict[str, list[ColumnRange]] = {}
    schemas: dict[str, pa.Schema] = {}
    for file in written:
        if parse_base_file_name(file.name) is not None:
            parquet = open_parquet(storage, _path(file))
            schema = parquet.schema_arrow
            ranges = parquet_ranges(parquet.metadata, indexed.columns(schema))
            if MetadataPartition.BLOOM_FILTERS in indexed.partitions:
                footer = parquet.metadata.metadata or {}
                serialized = footer.get(BLOOM_FILTER_KEY.encode())
                if serialized is not None:
                    kind = footer.get(b"hoodie_bloom_filter_type_code", DEFAULT_BLOOM_TYPE.encode()).decode()
                    record = _bloom_record(file.name, instant_time, serialized, False, kind)
                    update.put(MetadataPartition.BLOOM_FILTERS, {bloom_filter_key(file.partition, file.name): record})
        elif parse_log_file_name(file.name) is not None:
            records = logs[_path(file)].records
            if records is None:
                continue
            schema = records.schema
            ranges = arrow_ranges(records, indexed.columns(schema))
        else:
            continue
        schemas[file.partition] = schema
        ranges_by_partition.setdefault(file.partition, []).extend(ranges)
        if MetadataPartition.COLUMN_STATS in indexed.partitions:
            update.put(
                MetadataPartition.COLUMN_STATS,
                column_stats_records(file.partition, file.name, ranges, schema, indexed.typed_values),
            )
    if MetadataPartition.PARTITION_STATS in indexed.partitions:
        for partition, ranges in ranges_by_partition.items():
            update.put(
                MetadataPartition.PARTITION_STATS,
                partition_stats_records(partition, ranges, schemas[partition], indexed.typed_values),
            )


@dataclass(frozen=True)
class LogContents:
    """A written log file, decoded once for both statistics and the record index."""

    records: pa.Table | None  # the rows of its data blocks
    deleted_keys: list[str]  # the keys of its delete blocks


class WrittenLogs:
    """Log files of one instant, each read and decoded at most once."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._read: dict[str, LogContents] = {}

    def __getitem__(self, path: str) -> LogContents:
        if path not in self._read:
            tables: list[pa.Table] = []
            deleted: list[str] = []
            for block in read_log_blocks(self._storage.read_bytes(path), path):
                if block.block_type is BlockType.DELETE:
                    deleted.extend(decode_delete_block(block).keys.to_pylist())
                elif block.block_type in _DATA_BLOCKS:
                    tables.append(decode_data_block(block))
            records = pa.concat_tables(tables, promote_options="permissive") if tables else None
            self._read[path] = LogContents(records, deleted)
        return self._read[path]


def base_keys(storage: Storage, path: str) -> pa.Array:
    """The `_hoodie_record_key` column of a base file."""
    keys = pq.read_table(storage.open_input_file(path), columns=[RECORD_KEY]).column(RECORD_KEY)
    return keys.combine_chunks()


def _record_index(
    storage: Storage,
    logs: WrittenLogs,
    instant_time: str,
    metadata: CommitMetadata,
    written: Sequence[WrittenFile],
    previous_base_files: Mapping[tuple[str, str], str],
    replaced_keys: Sequence[str],
    kept_keys: frozenset[str],
    update: MetadataUpdate,
) -> None:
    located: dict[str, MetadataRecord] = {}
    gone: set[str] = set(replaced_keys)
    for stat, file in zip(metadata.write_stats(), written, strict=True):
        if parse_log_file_name(file.name) is not None:
            contents = logs[_path(file)]
            if contents.records is not None:
                for key in contents.records.column(RECORD_KEY).to_pylist():
                    located[key] = location_record(file.partition, file.file_id, instant_time)
            gone.update(key for key in contents.deleted_keys if key not in kept_keys)
            continue
        previous = previous_base_files.get((file.partition, file.file_id))
        if previous is not None and stat.num_inserts == 0 and stat.num_deletes == 0:
            continue  # a rewrite that only updated rows: every key stays where it was
        keys = base_keys(storage, _path(file))
        if previous is not None:
            before = base_keys(storage, previous)
            gone.update(before.filter(pc.invert(pc.is_in(before, keys))).to_pylist())
            keys = keys.filter(pc.invert(pc.is_in(keys, before)))
        for key in keys.to_pylist():
            located[key] = location_record(file.partition, file.file_id, instant_time)
    if located:
        update.put(MetadataPartition.RECORD_INDEX, located)
    if gone - located.keys():
        update.delete(MetadataPartition.RECORD_INDEX, gone - located.keys())
