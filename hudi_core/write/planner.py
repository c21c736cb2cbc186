"""Planning a write: which file group each record goes to, and how each group is written.

* Records already stored (tagged by the index) go to their file group; deletes of unknown keys are
  dropped. With a global index and `update.partition.path`, a record whose partition changed is
  deleted where it was and inserted where it now belongs, unless the stored record wins the merge
  (`hudi_core.index.partition_moves`): then it updates the stored record where it is.
* Inserts first fill small base files (`hoodie.parquet.small.file.limit`; on Merge-on-Read only
  slices without log files), up to `hoodie.parquet.max.file.size` at the average record size of
  earlier commits (`hoodie.copyonwrite.record.size.estimate` before any), then new file groups of
  that size. bulk_insert and the overwrite operations never pad existing files.
* Copy-on-Write rewrites every file group it touches (MERGE); Merge-on-Read appends updates and
  deletes to a log file (APPEND) and pads small files by rewriting them.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.file_group import FileSlice
from hudi_core.index.partition_moves import partition_moves
from hudi_core.index.tagger import IndexSpec, Tags
from hudi_core.lifecycle.markers import IOType
from hudi_core.write.handles import FileGroupWrite
from hudi_core.write.prepare import BASE_POSITION, DELETED, PARTITION, TAGGED

TARGET_PARTITION = "__hudi_target_partition"
TARGET_FILE = "__hudi_target_file"


@dataclass(frozen=True)
class Sizing:
    """File sizing settings."""

    max_file_size: int
    small_file_limit: int
    record_size: int
    pad_small_files: bool

    @property
    def records_per_file(self) -> int:
        return max(1, self.max_file_size // max(self.record_size, 1))


def new_file_id() -> str:
    return f"{uuid.uuid4()}-0"


def route(rows: pa.Table, tags: Tags, index: IndexSpec, ordering_field: str | None = None) -> pa.Table:
    """Rows with their target partition and file group (null file group: to be inserted).

    `ordering_field`: the table's ordering field; with `tags.stored_ordering` it decides partition
    moves (`hudi_core.index.partition_moves`).
    """
    found = pc.is_valid(tags.file_ids)
    rows = rows.append_column(TAGGED, found)
    positions = tags.base_positions if tags.base_positions is not None else pa.nulls(rows.num_rows, pa.int64())
    rows = rows.append_column(BASE_POSITION, positions)
    if not index.is_global:
        routed = _with_targets(rows, rows.column(PARTITION), tags.file_ids)
    else:
        stored_partition = pc.if_else(found, tags.partitions, rows.column(PARTITION))
        moved = (
            partition_moves(tags, rows.column(PARTITION), rows.column(DELETED)) if index.update_partition_path else None
        )
        if moved is not None and tags.stored_ordering is not None and ordering_field in rows.column_names:
            # The stored record wins the merge: the incoming one updates it where it is (and loses).
            stored_wins = pc.fill_null(pc.greater(tags.stored_ordering, rows.column(ordering_field)), False)
            moved = pc.and_(moved, pc.invert(stored_wins))
        if moved is not None and pc.any(moved).as_py():
            # Delete where the record was, insert where it now belongs.
            stay = pc.invert(moved)
            count = pc.sum(moved).as_py()
            removal = rows.filter(moved).set_column(
                rows.schema.get_field_index(DELETED), DELETED, pa.repeat(True, count)
            )
            if ordering_field in removal.column_names:
                # A delete by key, as Hudi issues it: no ordering value, so it wins over the stored record.
                position = removal.schema.get_field_index(ordering_field)
                removal = removal.set_column(position, ordering_field, pa.nulls(count, removal.field(position).type))
            insert = rows.filter(moved).set_column(rows.schema.get_field_index(TAGGED), TAGGED, pa.repeat(False, count))
            insert = insert.set_column(
                insert.schema.get_field_index(BASE_POSITION), BASE_POSITION, pa.nulls(count, pa.int64())
            )
            routed = pa.concat_tables(
                [
                    _with_targets(rows.filter(stay), stored_partition.filter(stay), tags.file_ids.filter(stay)),
                    _with_targets(removal, tags.partitions.filter(moved), tags.file_ids.filter(moved)),
                    _with_targets(insert, insert.column(PARTITION), pa.nulls(count, pa.string())),
                ]
            )
        else:
            # Without update.partition.path (or when the stored record wins) the record stays in
            # the partition that holds it.
            routed = _with_targets(rows, stored_partition, tags.file_ids)
    # A delete of a key the table does not hold has nothing to do.
    nothing_to_delete = pc.and_(routed.column(DELETED), pc.is_null(routed.column(TARGET_FILE)))
    # Filtering copies the whole batch even when it keeps every row.
    return routed.filter(pc.invert(nothing_to_delete)) if pc.any(nothing_to_delete).as_py() else routed


def _with_targets(
    rows: pa.Table, partitions: pa.Array | pa.ChunkedArray, file_ids: pa.Array | pa.ChunkedArray
) -> pa.Table:
    # Dictionary-encoded once here: inserts are assigned and file groups cut on the codes, never
    # on the per-row strings (each re-encoding of a large batch's strings costs a tenth of a second).
    return rows.append_column(TARGET_PARTITION, pc.dictionary_encode(partitions)).append_column(
        TARGET_FILE, pc.dictionary_encode(file_ids)
    )


def _small_files(slices: Sequence[FileSlice], sizing: Sizing, is_mor: bool, busy: set[str]) -> list[tuple[str, int]]:
    """(file id, free record capacity) of the partition's small base files, smallest first."""
    if not sizing.pad_small_files or sizing.small_file_limit <= 0:
        return []
    found = []
    for file_slice in slices:
        if file_slice.base_file is None or file_slice.file_id in busy or (is_mor and file_slice.has_logs):
            continue
        if file_slice.base_file_size < sizing.small_file_limit:
            capacity = (sizing.max_file_size - file_slice.base_file_size) // max(sizing.record_size, 1)
            if capacity > 0:
                found.append((file_slice.file_id, int(capacity), file_slice.base_file_size))
    return [(f, c) for f, c, _ in sorted(found, key=lambda item: item[2])]


def _stable_order(codes: np.ndarray) -> np.ndarray:
    """`np.argsort(codes, kind="stable")`; codes that fit 16 bits sort by radix, four times faster."""
    if len(codes) and int(codes.min()) >= -(2**15) and int(codes.max()) < 2**15:
        codes = codes.astype(np.int16)
    return np.argsort(codes, kind="stable")


def _runs(order: np.ndarray, codes: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """(code, rows) for each run of `order`, the rows sorted stably by their code in `codes` (the
    codes of those rows, in any order; -1 for none): run lengths come from counting the codes, so
    no batch-sized copy of the sorted codes is made."""
    counts = np.bincount(codes + 1)
    start = 0
    for shifted in np.flatnonzero(counts).tolist():
        end = start + int(counts[shifted])
        yield shifted - 1, order[start:end]
        start = end


def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list[Any]]:
    """Dictionary codes of a column (-1 for nulls) and the distinct values they index.

    A dictionary-encoded column is taken as it is when its dictionary holds each value once (one
    code per value is what grouping by code relies on); other columns are encoded here.
    """
    if isinstance(column, pa.ChunkedArray):
        if column.num_chunks == 1:
            column = column.chunk(0)
        elif pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)  # chunks may hold different dictionaries
    if not pa.types.is_dictionary(column.type) or len(pc.unique(column.dictionary)) != len(column.dictionary):
        encoded = pc.dictionary_encode(column)
        column = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
    indices = column.indices
    # int32 codes, copied only to mark nulls: a batch-sized int64 copy costs its page faults.
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    codes = np.asarray(indices.to_numpy(zero_copy_only=False), dtype=np.int32)
    return codes, column.dictionary.to_pylist()


def insert_bins(
    count: int, slices: Sequence[FileSlice], sizing: Sizing, is_mor: bool, busy: set[str]
) -> list[tuple[str, int]]:
    """Where `count` inserts into one partition go: (file id, records), small files first, then new
    file groups of `records_per_file` (every engine fills them in this order)."""
    bins: list[tuple[str, int]] = []
    remaining = count
    for file_id, capacity in _small_files(slices, sizing, is_mor, busy):
        if remaining <= 0:
            break
        bins.append((file_id, min(capacity, remaining)))
        remaining -= capacity
    while remaining > 0:
        bins.append((new_file_id(), min(sizing.records_per_file, remaining)))
        remaining -= sizing.records_per_file
    return bins


def assign_inserts(
    routed: pa.Table, slices: Mapping[str, Sequence[FileSlice]], sizing: Sizing, is_mor: bool
) -> pa.Table:
    """Gives every insert (null target file) a file group: small files first, then new groups."""
    is_insert = pc.is_null(routed.column(TARGET_FILE))
    if not pc.any(is_insert).as_py():
        return routed
    # Work on dictionary codes: per-row Python strings would dominate large batches.
    partition_codes, partitions = _codes(routed.column(TARGET_PARTITION))
    file_codes, file_ids = _codes(routed.column(TARGET_FILE))
    inserting = is_insert.to_numpy(zero_copy_only=False)
    busy_by_partition: dict[int, set[str]] = {}
    for code, file_code in set(zip(partition_codes[~inserting].tolist(), file_codes[~inserting].tolist(), strict=True)):
        busy_by_partition.setdefault(code, set()).add(file_ids[file_code])
    file_codes = np.array(file_codes, copy=True)  # assigned below
    if inserting.all():  # a bulk insert: no subset to pick out first
        insert_rows = _stable_order(partition_codes)
        inserted_codes = partition_codes
    else:
        insert_rows = np.flatnonzero(inserting)
        inserted_codes = partition_codes[insert_rows]
        insert_rows = insert_rows[_stable_order(inserted_codes)]
    code_of = {file_id: code for code, file_id in enumerate(file_ids)}
    for code, rows_here in _runs(insert_rows, inserted_codes):
        partition = partitions[code]
        # On Merge-on-Read a file group with updates in this write gets a log, so it is not padded.
        busy = busy_by_partition.get(code, set()) if is_mor else set()
        position = 0
        for file_id, capacity in insert_bins(len(rows_here), slices.get(partition, ()), sizing, is_mor, busy):
            # A small file this write also updates (Copy-on-Write) keeps its one code.
            file_code = code_of.setdefault(file_id, len(file_ids))
            if file_code == len(file_ids):
                file_ids.append(file_id)
            file_codes[rows_here[position : position + capacity]] = file_code
            position += capacity
    targets = pa.DictionaryArray.from_arrays(
        pa.array(file_codes, pa.int32(), mask=file_codes < 0), pa.array(file_ids, pa.string())
    )
    return routed.set_column(routed.schema.get_field_index(TARGET_FILE), TARGET_FILE, targets)


def new_file_groups(prepared: pa.Table, records_per_file: int) -> pa.Table:
    """Routes prepared rows of one partition (all inserts) to new file groups of at most
    `records_per_file` rows, in the order given."""
    count = prepared.num_rows
    chunks = -(-count // max(1, records_per_file))
    ids = pa.array([new_file_id() for _ in range(chunks)], pa.string())
    targets = pc.take(ids, pa.array(np.arange(count) // max(1, records_per_file)))
    return (
        prepared.append_column(TAGGED, pa.repeat(pa.scalar(False), count))
        .append_column(TARGET_PARTITION, prepared.column(PARTITION))
        .append_column(TARGET_FILE, targets)
    )


def full_file_groups(batches: Iterable[pa.RecordBatch], records_per_file: int) -> Iterator[pa.Table]:
    """Bulk-insert rows sorted by partition, cut into routed new file groups: each yielded as soon
    as it holds `records_per_file` rows or its partition ends."""
    pending: list[pa.Table] = []
    pending_rows = 0
    current: Any = None
    for batch in batches:
        if not batch.num_rows:
            continue
        table = pa.Table.from_batches([batch])
        codes, values = _codes(table.column(PARTITION))
        bounds = [0, *(np.flatnonzero(np.diff(codes)) + 1).tolist(), table.num_rows]
        for start, end in itertools.pairwise(bounds):
            partition = values[codes[start]]
            if partition != current and pending:
                yield new_file_groups(pa.concat_tables(pending), records_per_file)
                pending, pending_rows = [], 0
            current = partition
            pending.append(table.slice(start, end - start))
            pending_rows += end - start
            while pending_rows >= records_per_file:
                rows = pa.concat_tables(pending)
                yield new_file_groups(rows.slice(0, records_per_file), records_per_file)
                rest = rows.slice(records_per_file)
                pending, pending_rows = ([rest] if rest.num_rows else []), rest.num_rows
    if pending:
        yield new_file_groups(pa.concat_tables(pending), records_per_file)


def file_group_writes(
    routed: pa.Table,
    slices: Mapping[str, Sequence[FileSlice]],
    is_mor: bool,
    task_index: int | None = None,
    token: str | None = None,
) -> list[FileGroupWrite]:
    """One write per target file group, with the way it is written."""
    if routed.num_rows == 0:
        return []
    # Groups in (partition, file id) order: codes ranked by their dictionary values.
    partition_codes, partitions = _codes(routed.column(TARGET_PARTITION))
    file_codes, file_ids = _codes(routed.column(TARGET_FILE))
    partition_rank = np.argsort(np.argsort(np.array(partitions, dtype=object))).astype(np.int32)
    file_rank = np.argsort(np.argsort(np.array(file_ids, dtype=object))).astype(np.int32)
    group_codes = partition_rank[partition_codes] * np.int32(len(file_ids) + 1) + file_rank[file_codes]
    order = _stable_order(group_codes)
    existing = {(p, s.file_id): s for p, group in slices.items() for s in group}
    tagged_rows = pc.fill_null(routed.column(TAGGED), False).to_numpy(zero_copy_only=False)
    deleted_rows = routed.column(DELETED).to_numpy()
    # Each write gets the positions of its rows; the rows are taken inside its write task.
    payload = routed.drop_columns([TARGET_PARTITION, TARGET_FILE, PARTITION])  # a task knows its partition
    writes = []
    for position, (_, rows) in enumerate(_runs(order, group_codes)):
        partition = partitions[partition_codes[rows[0]]]
        file_id = file_ids[file_codes[rows[0]]]
        tagged = bool(tagged_rows[rows].any())
        current = existing.get((partition, file_id))
        if current is None and deleted_rows[rows].all():
            continue  # deletes only (of a bucket the table does not hold yet): no file group to create
        if current is None:
            io_type = IOType.CREATE
        elif is_mor and (current.base_file is None or tagged):
            io_type = IOType.APPEND
        else:
            io_type = IOType.MERGE
        number = task_index if task_index is not None else position
        writes.append(
            FileGroupWrite(
                partition,
                file_id,
                io_type,
                number,
                payload,
                current.base_file if current is not None else None,
                current.base_instant if current is not None else None,
                token,
                rows=pa.array(rows),
                log_files=current.log_files if current is not None and io_type is IOType.APPEND else (),
            )
        )
    return writes


def updated_groups(routed: pa.Table) -> set[tuple[str, str]]:
    """(partition, file id) of the stored file groups a routed batch updates or deletes from."""
    tagged = pc.fill_null(routed.column(TAGGED), False).to_numpy(zero_copy_only=False)
    if not tagged.any():
        return set()
    partition_codes, partitions = _codes(routed.column(TARGET_PARTITION))
    file_codes, file_ids = _codes(routed.column(TARGET_FILE))
    width = len(file_ids) + 1
    pairs = np.unique(partition_codes[tagged] * width + file_codes[tagged])
    return {(partitions[pair // width], file_ids[pair % width]) for pair in pairs.tolist()}


def groups_to_replace(
    overwrite_table: bool, slices: Mapping[str, Sequence[FileSlice]], written: Iterable[str]
) -> dict[str, list[str]]:
    """File groups an insert_overwrite replaces: those of the written partitions, or of every
    partition for insert_overwrite_table."""
    scope = slices if overwrite_table else {p: slices.get(p, []) for p in written}
    return {p: [s.file_id for s in group] for p, group in scope.items() if group}


def replaced_groups(replaced: Mapping[str, Sequence[str]]) -> set[tuple[str, str]]:
    return {(partition, file_id) for partition, ids in replaced.items() for file_id in ids}
