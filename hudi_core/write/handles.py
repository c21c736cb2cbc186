"""Writing one file group: create a base file, merge into one (Copy-on-Write), or append a log file.

These are the engine-agnostic "write this file group" functions: plain data in (a
:class:`FileGroupWrite` and a :class:`WriteContext`), a :class:`WriteStat` out. The Arrow engine runs
them on threads; the Spark engine runs them in executors.

Meta columns (notes §8.1): `_hoodie_commit_time` = the instant, `_hoodie_commit_seqno` =
`<instant>_<task>_<n>`, the record key and partition path, and `_hoodie_file_name` = the base file
name (the file id in log records). A merge keeps the commit time and sequence number of untouched
records and renames them all to the new file. It writes the untouched records first, in their old
order, and the records of its own commit (updates, then inserts) last, in a row group of their own:
the `_hoodie_commit_time` statistics of that row group are what an incremental read of the commit
prunes by. Row order within a base file is not part of the format.

A merge finds the stored records it replaces at the rows the index found them at (the SIMPLE and
BLOOM lookups read those keys already), checking that each row holds its key, and by key when a
record has no single position. Its bloom filter is the old file's plus the inserted keys.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.table import CdcLoggingMode, RecordMergeMode
from hudi_core.config.write import DEFAULT_PARQUET_CODEC, LogBlockFormat
from hudi_core.errors import CommitError, FileFormatError
from hudi_core.file_group.base_file.bloom_filter import BloomFilter
from hudi_core.file_group.base_file.parquet import OpenParquet
from hudi_core.file_group.base_file.parquet_writer import write_base_file
from hudi_core.file_group.log_file.avro_codec import encode_datums
from hudi_core.file_group.log_file.cdc import DELETE, INSERT, UPDATE, ChangeRecords, cdc_block
from hudi_core.file_group.log_file.format import HeaderKey
from hudi_core.file_group.log_file.positions import encode_record_positions
from hudi_core.file_group.log_file.writer import (
    avro_data_block,
    delete_block,
    framed_avro_block,
    new_log_file_name,
    parquet_data_block,
)
from hudi_core.file_group.naming import BaseFileName, log_file_version
from hudi_core.keygen import RecordKeySpec
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.markers import IOType, Markers
from hudi_core.schema.arrow_avro import with_meta_fields_avro
from hudi_core.schema.conform import null_rows
from hudi_core.schema.meta_fields import (
    COMMIT_SEQNO,
    COMMIT_TIME,
    FILE_NAME,
    PARTITION_PATH,
    RECORD_KEY,
    with_meta_fields,
)
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.write.prepare import BASE_POSITION, DELETED, KEY, TAGGED


@dataclass(frozen=True)
class WriteContext:
    """What every file-group write of one instant shares."""

    base_uri: str
    instant_time: str
    schema: pa.Schema
    avro_schema: dict[str, Any]
    populate_meta_fields: bool
    merge_mode: RecordMergeMode
    ordering_field: str | None
    key_spec: RecordKeySpec
    compression: str = DEFAULT_PARQUET_CODEC
    row_group_bytes: int = 125829120
    page_bytes: int = 1048576
    bloom_type: str = "DYNAMIC_V0"
    bloom_entries: int = 60000
    bloom_fpp: float = 1e-9
    bloom_max_entries: int = 100000
    log_block_format: LogBlockFormat = LogBlockFormat.AVRO
    cdc_mode: CdcLoggingMode | None = None  # set when file-group rewrites must log their changes
    cdc_enabled: bool = False  # the table keeps a change feed (hoodie.table.cdc.enabled)
    crash_prefix: str = "write"  # names the crash points of the action writing (write, compaction, ...)
    inflight_file: str | None = None  # the instant's inflight file: gone once the instant was rolled back
    # Tables without record key fields: written keys are this prefix (`<instant>_`) and the batch's
    # `<task>_<row>` (`hudi_core.keygen.auto_key_suffixes`).
    auto_key_prefix: str | None = None

    @property
    def full_schema(self) -> pa.Schema:
        return with_meta_fields(self.schema)


@dataclass(frozen=True)
class FileGroupWrite:
    """One file group's share of a write.

    Attributes:
        partition_path: the partition.
        file_id: the file group.
        io_type: CREATE (new base file), MERGE (rewrite the base file) or APPEND (log file).
        task_index: this task's number in the write (part of write tokens and sequence numbers).
        source: rows in the context's schema plus the record key and delete flag columns: this
            group's, or the whole batch's when `rows` picks this group's out of it.
        base_file: MERGE and APPEND: the current slice's base file name.
        base_instant: MERGE and APPEND: the current slice's base instant.
        rows: positions of this group's rows in `source`; None: all of them.
        log_files: APPEND: the current slice's log file names (with CDC on, its write stat names the
            slice, where Apache Hudi's CDC reader finds the changed records' before images).
    """

    partition_path: str
    file_id: str
    io_type: IOType
    task_index: int
    source: pa.Table
    base_file: str | None = None
    base_instant: str | None = None
    token: str | None = None  # an engine's own write token (Spark: partition-stage-attempt)
    rows: pa.Array | None = None
    log_files: tuple[str, ...] = ()

    @property
    def write_token(self) -> str:
        return self.token or f"{self.task_index}-0-{self.task_index}"

    @property
    def num_records(self) -> int:
        return self.source.num_rows if self.rows is None else len(self.rows)

    def records(self) -> pa.Table:
        """This group's rows. They are copied out of the batch only here, inside the write task, so
        that a large write holds the copies of the groups being written, not of every group."""
        return self.source if self.rows is None else take_rows(self.source, self.rows)


def take_rows(table: pa.Table, positions: pa.Array) -> pa.Table:
    """`table.take(positions)`, taken chunk by chunk: pyarrow's take on a chunked column first
    concatenates its chunks, which cost every file group of a write a copy of the whole batch."""
    if all(column.num_chunks <= 1 for column in table.columns):
        return table.take(positions)
    index = positions.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    if len(index) == 0:
        return table.slice(0, 0)
    order = None if bool(np.all(index[1:] >= index[:-1])) else np.argsort(index, kind="stable")
    ordered = index if order is None else index[order]
    batches = table.to_batches()  # zero-copy, cut where any column's chunks end
    starts = np.cumsum([0] + [batch.num_rows for batch in batches])
    cuts = np.searchsorted(ordered, starts)
    parts = [
        batch.take(pa.array(ordered[cuts[i] : cuts[i + 1]] - starts[i]))
        for i, batch in enumerate(batches)
        if cuts[i + 1] > cuts[i]
    ]
    taken = pa.Table.from_batches(parts, schema=table.schema)
    if order is None:
        return taken
    return taken.combine_chunks().take(pa.array(np.argsort(order)))  # back to the asked order


def write_file_groups(context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[WriteStat]:
    """Writes several file groups of one instant, in task order; returns what each wrote.

    The appends among them are prepared together (`appended_records`): one take of their rows, the
    meta columns of all their updates, one Avro encoding pass. Appending a few hundred records is
    otherwise mostly per-call cost, paid once per file group.
    """
    appends = [task for task in tasks if task.io_type is IOType.APPEND]
    prepared = dict(zip(map(id, appends), appended_records(context, appends), strict=True))
    return [write_file_group(context, task, prepared.get(id(task))) for task in tasks]


def write_file_group(context: WriteContext, task: FileGroupWrite, appended: AppendedRecords | None = None) -> WriteStat:
    """Writes one file group; returns what it wrote. `appended`: an append's records, prepared
    with others' (`write_file_groups`).

    Raises:
        CommitError: the instant was rolled back while this task wrote (its write had failed
            elsewhere); the files this task wrote are deleted first.
    """
    storage = Storage(context.base_uri)
    if task.io_type is IOType.CREATE:
        stat = _create(storage, context, task)
    elif task.io_type is IOType.MERGE:
        stat = _merge(storage, context, task)
    else:
        stat = _append(storage, context, task, appended or appended_records(context, [task])[0])
    if Markers(storage, context.instant_time).rolled_back_under(stat.path, task.io_type) or (
        context.inflight_file is not None and not storage.exists(context.inflight_file)
    ):
        for path in (stat.path, *(stat.cdc_stats or {})):
            storage.delete(path)
        raise CommitError(
            f"instant {context.instant_time} was rolled back while file group {task.file_id} was written; "
            f"this task removed its file {stat.path}"
        )
    return stat


def written_keys(context: WriteContext, keys: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """The record keys as stored: generated keys get the instant in front."""
    if context.auto_key_prefix is None:
        return keys
    return pc.binary_join_element_wise(context.auto_key_prefix, keys, "")


def _meta_rows(context: WriteContext, task: FileGroupWrite, rows: pa.Table, file_name: str) -> pa.Table:
    """Incoming rows with fresh meta columns, in the context's full schema."""
    return _meta_rows_of(context, rows, [task], [rows.num_rows], [file_name])


def _meta_rows_of(
    context: WriteContext,
    rows: pa.Table,
    tasks: Sequence[FileGroupWrite],
    counts: Sequence[int],
    file_names: Sequence[str],
) -> pa.Table:
    """`_meta_rows` for the rows of several tasks, back to back: `counts[i]` rows of `tasks[i]`,
    whose records are named `file_names[i]` (sequence numbers count from 0 within each task)."""
    count = rows.num_rows
    populate = context.populate_meta_fields
    owner = pa.array(np.repeat(np.arange(len(tasks), dtype=np.int32), counts))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    numbers = np.arange(count, dtype=np.int64) - np.repeat(starts, counts)
    prefixes = pa.array([f"{context.instant_time}_{task.task_index}" for task in tasks], pa.string()).take(owner)
    seqnos = pc.binary_join_element_wise(prefixes, pc.cast(pa.array(numbers), pa.string()), "_")
    meta = {
        COMMIT_TIME: pa.repeat(pa.scalar(context.instant_time if populate else None, pa.string()), count),
        COMMIT_SEQNO: seqnos if populate else pa.nulls(count, pa.string()),
        RECORD_KEY: written_keys(context, rows.column(KEY)) if populate else pa.nulls(count, pa.string()),
        PARTITION_PATH: pa.array([task.partition_path for task in tasks], pa.string()).take(owner)
        if populate
        else pa.nulls(count, pa.string()),
        FILE_NAME: pa.array(list(file_names), pa.string()).take(owner),
    }
    # Delete batches carry key columns only; their rows are never written.
    columns = [
        meta[f.name]
        if f.name in meta
        else rows.column(f.name)
        if f.name in rows.column_names
        else pa.nulls(count, f.type)
        for f in context.full_schema
    ]
    return pa.Table.from_arrays(columns, schema=context.full_schema)


def _empty_bloom(context: WriteContext) -> BloomFilter:
    return BloomFilter.create(
        num_entries=context.bloom_entries,
        fpp=context.bloom_fpp,
        max_entries=context.bloom_max_entries,
        filter_type=context.bloom_type,
    )


def _bloom(context: WriteContext, keys: pa.Array | pa.ChunkedArray) -> BloomFilter | None:
    if not context.populate_meta_fields:
        return None
    bloom = _empty_bloom(context)
    bloom.add_keys(keys)
    return bloom


def _old_bloom(context: WriteContext, parquet: OpenParquet) -> BloomFilter | None:
    """The old file's filter to grow; None (rebuilt from the keys) when it has none we can read."""
    if not context.populate_meta_fields:
        return None
    try:
        return parquet.bloom_filter(context.bloom_max_entries)
    except FileFormatError:
        return None


def _grown_bloom(
    context: WriteContext, old: BloomFilter | None, inserted: pa.Array | pa.ChunkedArray
) -> BloomFilter | None:
    """The merged file's filter: the old file's plus the keys inserted, when the old one is sized
    as this write would size it (None otherwise: built from every key). Rehashing the keys a file
    already holds is a sixth of a merge; a filter may hold keys deleted since, as any superset may."""
    if old is None or not context.populate_meta_fields or not old.sized_like(_empty_bloom(context)):
        return None
    old.add_keys(inserted)
    return old


def _write_base(
    storage: Storage,
    context: WriteContext,
    task: FileGroupWrite,
    table: pa.Table,
    io_type: IOType,
    new_row_group_at: int | None = None,
    bloom: BloomFilter | None = None,
) -> tuple[str, int]:
    return write_base(
        storage, context, task.partition_path, task.file_id, task.write_token, table, io_type, new_row_group_at, bloom
    )


def write_base(
    storage: Storage,
    context: WriteContext,
    partition_path: str,
    file_id: str,
    write_token: str,
    table: pa.Table,
    io_type: IOType,
    new_row_group_at: int | None = None,
    bloom: BloomFilter | None = None,
) -> tuple[str, int]:
    """Writes a base file of the context's instant (marker first); returns its path and size.

    `table` holds the meta columns and the data columns; `_hoodie_file_name` is set here.
    `new_row_group_at`: a row position where a row group must start. `bloom`: a filter already
    holding every record key of `table` (built from them when None).
    """
    name = BaseFileName(file_id, write_token, context.instant_time, "parquet").name
    path = posixpath.join(partition_path, name)
    Markers(storage, context.instant_time).create(path, io_type)
    table = table.set_column(
        table.schema.get_field_index(FILE_NAME), FILE_NAME, pa.repeat(pa.scalar(name), table.num_rows)
    )
    if bloom is None:
        bloom = _bloom(context, table.column(RECORD_KEY))
    size = write_base_file(
        storage,
        path,
        table,
        context.avro_schema,
        bloom,
        compression=context.compression,
        row_group_bytes=context.row_group_bytes,
        page_bytes=context.page_bytes,
        new_row_group_at=new_row_group_at,
    )
    crash.crash_point(f"{context.crash_prefix}.after_first_file")
    return path, size


def _create(storage: Storage, context: WriteContext, task: FileGroupWrite) -> WriteStat:
    rows = _without_deletes(task.records())
    table = _meta_rows(context, task, rows, "")
    path, size = _write_base(storage, context, task, table, IOType.CREATE)
    return base_file_stat(task.partition_path, task.file_id, path, size, writes=rows.num_rows, inserts=rows.num_rows)


def _without_deletes(records: pa.Table) -> pa.Table:
    deleted = records.column(DELETED)
    # Filtering copies every column even when it keeps every row: inserts rarely carry deletes.
    return records.filter(pc.invert(deleted)) if pc.any(deleted).as_py() else records


def _newer_wins(context: WriteContext, incoming: pa.Table, stored: pa.Table) -> pa.ChunkedArray | pa.Array:
    """Per aligned pair: does the incoming record replace (or delete) the stored one?"""
    field = context.ordering_field
    if (
        context.merge_mode is not RecordMergeMode.EVENT_TIME_ORDERING
        or field is None
        or field not in incoming.column_names
    ):
        return pa.repeat(True, incoming.num_rows)
    compared = pc.fill_null(pc.greater_equal(incoming.column(field), stored.column(field)), True)
    return compared


def _merge(storage: Storage, context: WriteContext, task: FileGroupWrite) -> WriteStat:
    assert task.base_file is not None
    with OpenParquet(storage, posixpath.join(task.partition_path, task.base_file)) as parquet:
        old = parquet.read(context.full_schema).table
        old_bloom = _old_bloom(context, parquet)
    incoming = task.records()
    matched_old, matched_in, new = _at_positions(context, old, incoming) or _by_keys(context, old, incoming)
    wins = _newer_wins(context, incoming.take(matched_in), old.take(matched_old))
    deleting = pc.take(incoming.column(DELETED), matched_in)
    delete_old = pc.filter(matched_old, pc.and_(wins, deleting))
    replace_old = pc.filter(matched_old, pc.and_(wins, pc.invert(deleting)))
    replace_in = pc.filter(matched_in, pc.and_(wins, pc.invert(deleting)))
    insert_in = pc.indices_nonzero(pc.and_(new, pc.invert(incoming.column(DELETED))))
    fresh = _meta_rows(context, task, incoming, "")
    # Untouched old rows keep their order; the rows this commit writes (updates, then inserts) follow
    # in a row group of their own, whose commit-time statistics let incremental reads skip the rest.
    untouched = np.ones(old.num_rows, dtype=bool)
    untouched[delete_old.to_numpy()] = False
    untouched[replace_old.to_numpy()] = False
    written = np.concatenate([replace_in.to_numpy(), insert_in.to_numpy()]).astype(np.int64)
    table = pa.concat_tables([old.filter(pa.array(untouched)), fresh.take(pa.array(written))])
    bloom = _grown_bloom(context, old_bloom, written_keys(context, incoming.column(KEY).take(insert_in)))
    path, size = _write_base(
        storage, context, task, table, IOType.MERGE, new_row_group_at=int(untouched.sum()), bloom=bloom
    )
    cdc_stats = None
    if context.cdc_mode is not None:
        changes = change_records(
            context,
            deleted=old.take(delete_old),
            replaced=old.take(replace_old),
            replacing=fresh.take(replace_in),
            inserted=fresh.take(insert_in),
        )
        # Written even without changes: Apache Hudi's CDC reader takes a rewritten base file without a
        # CDC log for one whose rows are all new, and fails on it otherwise.
        cdc_stats = write_cdc_log(storage, context, task.partition_path, task.file_id, task.write_token, changes)
    return base_file_stat(
        task.partition_path,
        task.file_id,
        path,
        size,
        writes=table.num_rows,
        inserts=len(insert_in),
        updates=len(replace_old),
        deletes=len(delete_old),
        prev_commit=task.base_instant,
        prev_base_file=task.base_file,
        cdc_stats=cdc_stats,
    )


def _at_positions(
    context: WriteContext, old: pa.Table, incoming: pa.Table
) -> tuple[pa.Array, pa.Array, pa.Array] | None:
    """(old rows the incoming records match, those records, which incoming records the file does
    not hold) from the positions the index found the records at; None when a located record has no
    position (another index, a key stored twice) or a position does not hold its key."""
    if TAGGED not in incoming.column_names or BASE_POSITION not in incoming.column_names:
        return None
    tagged = pc.fill_null(incoming.column(TAGGED), False)
    matched_in = pc.indices_nonzero(tagged)
    positions = pc.take(incoming.column(BASE_POSITION), matched_in)
    if positions.null_count:
        return None
    matched_old = positions.to_numpy() if isinstance(positions, pa.Array) else positions.combine_chunks().to_numpy()
    if len(matched_old) and (int(matched_old.min()) < 0 or int(matched_old.max()) >= old.num_rows):
        return None
    if len(np.unique(matched_old)) != len(matched_old):
        return None  # two incoming records for one stored row: merged by key
    # The index read this very file under the same snapshot; comparing the few keys is cheap insurance.
    stored = pc.cast(context.key_spec.keys(old.take(pa.array(matched_old))), pa.string())
    if pc.all(pc.equal(stored, pc.take(incoming.column(KEY), matched_in))).as_py() is False:
        return None
    return pa.array(matched_old), matched_in, pc.invert(tagged)


def _by_keys(context: WriteContext, old: pa.Table, incoming: pa.Table) -> tuple[pa.Array, pa.Array, pa.Array]:
    """What `_at_positions` returns, by hashing the keys of both sides."""
    old_keys = context.key_spec.keys(old)
    position = pc.index_in(old_keys, value_set=incoming.column(KEY))
    matched_old = pc.indices_nonzero(pc.is_valid(position))
    matched_in = pc.take(position, matched_old)
    return matched_old, matched_in, pc.invert(pc.is_in(incoming.column(KEY), value_set=old_keys))


def change_records(
    context: WriteContext, deleted: pa.Table, replaced: pa.Table, replacing: pa.Table, inserted: pa.Table
) -> ChangeRecords:
    """A merge's changes: deletes, then updates (old and new rows), then inserts."""
    names = context.schema.names
    deletes, inserts = deleted.num_rows, inserted.num_rows
    ops = [DELETE] * deletes + [UPDATE] * replaced.num_rows + [INSERT] * inserts
    keys = [pc.cast(context.key_spec.keys(rows), pa.string()) for rows in (deleted, replacing, inserted)]
    absent = null_rows(context.schema, max(deletes, inserts))
    return ChangeRecords(
        ops=pa.array(ops, pa.string()),
        keys=pa.chunked_array(keys, pa.string()).combine_chunks(),
        before=pa.concat_tables([deleted.select(names), replaced.select(names), absent.slice(0, inserts)]),
        after=pa.concat_tables([absent.slice(0, deletes), replacing.select(names), inserted.select(names)]),
    )


def write_log_file(
    storage: Storage,
    instant_time: str,
    partition_path: str,
    file_id: str,
    write_token: str,
    content: bytes,
    io_type: IOType = IOType.APPEND,
    cdc: bool = False,
) -> tuple[str, str]:
    """Names the file group's next log file of `instant_time`, marks it and writes `content`
    (every block it holds); returns its path and name."""
    name = new_log_file_name(storage, partition_path, file_id, instant_time, write_token, cdc=cdc)
    path = posixpath.join(partition_path, name)
    Markers(storage, instant_time).create(path, io_type)
    storage.write_bytes(path, content)
    return path, name


@dataclass(frozen=True)
class BlockPositions:
    """The base positions of a log file's records, per block (None: the block records none)."""

    base_instant: str | None = None
    updates: npt.NDArray[np.int64] | None = None
    deletes: npt.NDArray[np.int64] | None = None

    def header(self, positions: npt.NDArray[np.int64] | None) -> dict[HeaderKey, str]:
        if positions is None or self.base_instant is None:
            return {}
        return {
            HeaderKey.RECORD_POSITIONS: encode_record_positions(positions),
            HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: self.base_instant,
        }


def log_blocks(
    instant_time: str,
    writer_schema: dict[str, Any],
    rows: pa.Table,
    deleted_keys: Sequence[str],
    partition_path: str,
    delete_ordering: pa.Array | None,
    parquet_compression: str | None = None,
    compacted_times: Sequence[str] = (),
    positions: BlockPositions = BlockPositions(),
    datums: EncodedDatums | None = None,
) -> bytes:
    """A log file's content: a data block of `rows` (Parquet when `parquet_compression` is given,
    else Avro, from `datums` when they are encoded already) and a delete block of `deleted_keys`,
    each only when not empty."""
    blocks = []
    if rows.num_rows:
        extra = positions.header(positions.updates)
        if parquet_compression is not None:
            blocks.append(parquet_data_block(instant_time, writer_schema, rows, parquet_compression, extra))
        elif datums is not None:
            blocks.append(
                framed_avro_block(instant_time, writer_schema, *datums, compacted_times=compacted_times, extra=extra)
            )
        else:
            blocks.append(
                avro_data_block(instant_time, writer_schema, rows, compacted_times=compacted_times, extra=extra)
            )
    if deleted_keys:
        partitions = [partition_path] * len(deleted_keys)
        blocks.append(
            delete_block(
                instant_time,
                writer_schema,
                deleted_keys,
                partitions,
                delete_ordering,
                compacted_times,
                extra=positions.header(positions.deletes),
            )
        )
    return b"".join(blocks)


def write_cdc_log(
    storage: Storage,
    context: WriteContext,
    partition_path: str,
    file_id: str,
    write_token: str,
    changes: ChangeRecords,
) -> dict[str, int]:
    """Writes the `.cdc` log of a rewritten file group; returns its write-stat entry (path -> size)."""
    assert context.cdc_mode is not None
    content = cdc_block(context.instant_time, context.cdc_mode, context.avro_schema, changes)
    path, _ = write_log_file(
        storage, context.instant_time, partition_path, file_id, write_token, content, IOType.MERGE, cdc=True
    )
    return {path: len(content)}


EncodedDatums = tuple[memoryview, npt.NDArray[np.int64]]  # Avro datums and their N + 1 offsets


@dataclass(frozen=True)
class AppendedRecords:
    """What one append writes: its updates (meta columns filled, in base-position order) and deletes,
    their base positions (None: not all known, or not distinct), the number of records the task
    received, and the updates' Avro datums when its data block is Avro."""

    received: int
    updates: pa.Table
    update_positions: npt.NDArray[np.int64] | None
    deletes: pa.Table
    delete_positions: npt.NDArray[np.int64] | None
    datums: EncodedDatums | None


def appended_records(context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[AppendedRecords]:
    """The records of several appends of one instant, prepared together (see `write_file_groups`).

    Tasks picking their rows out of one shared batch are taken in one go; the updates of all tasks
    get their meta columns and Avro datums in one pass and are handed out as slices.
    """
    if not tasks:
        return []
    if len(tasks) > 1 and all(t.source is tasks[0].source and t.rows is not None for t in tasks):
        positions = [t.rows for t in tasks if t.rows is not None]
        records = take_rows(tasks[0].source, pa.concat_arrays(positions).cast(pa.int64()))
    else:
        records = pa.concat_tables([t.records() for t in tasks]) if len(tasks) > 1 else tasks[0].records()
    counts = [t.num_records for t in tasks]
    bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    deleted = pc.fill_null(records.column(DELETED), False).to_numpy(zero_copy_only=False)
    base_positions = records.column(BASE_POSITION) if BASE_POSITION in records.column_names else None
    known = None if base_positions is None else pc.is_valid(base_positions).to_numpy(zero_copy_only=False)
    stored_at = None if base_positions is None else pc.fill_null(base_positions, -1).to_numpy(zero_copy_only=False)
    update_rows: list[npt.NDArray[np.int64]] = []
    delete_rows: list[npt.NDArray[np.int64]] = []
    update_positions: list[npt.NDArray[np.int64] | None] = []
    delete_positions: list[npt.NDArray[np.int64] | None] = []
    for first, end in itertools.pairwise(bounds.tolist()):
        rows = np.arange(first, end, dtype=np.int64)
        for wanted, out_rows, out_positions in (
            (~deleted[first:end], update_rows, update_positions),
            (deleted[first:end], delete_rows, delete_positions),
        ):
            picked, at = _in_base_position_order(rows[wanted], known, stored_at)
            out_rows.append(picked)
            out_positions.append(at)
    update_counts = [len(rows) for rows in update_rows]
    updates = records.take(pa.array(np.concatenate(update_rows))) if sum(update_counts) else records.slice(0, 0)
    if updates.num_rows:
        updates = _meta_rows_of(context, updates, tasks, update_counts, [t.file_id for t in tasks])
    deletes = records.take(pa.array(np.concatenate(delete_rows))) if any(len(r) for r in delete_rows) else None
    encoded = None
    if updates.num_rows and context.log_block_format is LogBlockFormat.AVRO:
        data, offsets = encode_datums(with_meta_fields_avro(context.avro_schema), updates)
        encoded = (memoryview(data), offsets)
    prepared = []
    update_start = delete_start = 0
    for i, received in enumerate(counts):
        update_count, delete_count = update_counts[i], len(delete_rows[i])
        datums = None
        if encoded is not None and update_count:
            datums = (encoded[0], encoded[1][update_start : update_start + update_count + 1])
        prepared.append(
            AppendedRecords(
                received,
                updates.slice(update_start, update_count),
                update_positions[i],
                deletes.slice(delete_start, delete_count) if deletes is not None else records.slice(0, 0),
                delete_positions[i],
                datums,
            )
        )
        update_start += update_count
        delete_start += delete_count
    return prepared


def _in_base_position_order(
    rows: npt.NDArray[np.int64], known: npt.NDArray[np.bool_] | None, stored_at: npt.NDArray[np.int64] | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]:
    """`rows` in the order of their base positions, and those positions; the rows unchanged and
    None when a row has none or two share one (a block records each position once)."""
    if not len(rows) or known is None or stored_at is None or not bool(known[rows].all()):
        return rows, None
    positions = stored_at[rows]
    order = np.argsort(positions, kind="stable")
    ordered = positions[order]
    if len(ordered) > 1 and not bool(np.all(np.diff(ordered) > 0)):
        return rows, None
    return rows[order], ordered


def _append(storage: Storage, context: WriteContext, task: FileGroupWrite, records: AppendedRecords) -> WriteStat:
    updates, deletes = records.updates, records.deletes
    field = context.ordering_field
    ordering = deletes.column(field).combine_chunks() if field and field in deletes.column_names else None
    content = log_blocks(
        context.instant_time,
        with_meta_fields_avro(context.avro_schema),
        updates,
        deletes.column(KEY).to_pylist() if deletes.num_rows else [],
        task.partition_path,
        ordering,
        context.compression if context.log_block_format is LogBlockFormat.PARQUET else None,
        positions=BlockPositions(task.base_instant, records.update_positions, records.delete_positions),
        datums=records.datums,
    )
    path, name = write_log_file(
        storage, context.instant_time, task.partition_path, task.file_id, task.write_token, content
    )
    crash.crash_point(f"{context.crash_prefix}.after_first_file")
    # With CDC on, Apache Hudi's stat names the slice the log joins (its CDC reader takes the records'
    # before images from it); without, only the log file, its own instant as the previous commit.
    names_slice = context.cdc_enabled
    return WriteStat(
        file_id=task.file_id,
        path=path,
        partition_path=task.partition_path,
        prev_commit=(task.base_instant if names_slice else None) or context.instant_time,
        num_writes=records.received,
        num_inserts=0,
        num_update_writes=updates.num_rows,
        num_deletes=deletes.num_rows,
        total_write_bytes=len(content),
        file_size_in_bytes=len(content),
        total_log_records=0,
        base_file=(task.base_file or "") if names_slice else "",
        log_files=(*task.log_files, name) if names_slice else (name,),
        cdc_stats=None,
        log_version=log_file_version(name),
        log_offset=0,
    )


def base_file_stat(
    partition_path: str,
    file_id: str,
    path: str,
    size: int,
    writes: int,
    inserts: int = 0,
    updates: int = 0,
    deletes: int = 0,
    prev_commit: str | None = None,
    prev_base_file: str | None = None,
    cdc_stats: dict[str, int] | None = None,
) -> WriteStat:
    """The WriteStat of a base file a write, a compaction or a clustering wrote."""
    return WriteStat(
        file_id=file_id,
        path=path,
        partition_path=partition_path,
        prev_commit=prev_commit,
        num_writes=writes,
        num_inserts=inserts,
        num_update_writes=updates,
        num_deletes=deletes,
        total_write_bytes=size,
        file_size_in_bytes=size,
        total_log_records=0,
        base_file=None,
        log_files=(),
        cdc_stats=cdc_stats,
        prev_base_file=prev_base_file,
    )
