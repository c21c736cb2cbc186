"""Merging a file slice: base rows plus log records, by record key, with Arrow compute.

Rules (Hudi 1.x `FileGroupRecordBuffer` / record mergers, spec features §1.3-1.4):

* COMMIT_TIME_ORDERING: the latest write wins (log order; the log is newer than the base).
* EVENT_TIME_ORDERING: the record with the greater ordering value wins, ties going to the later
  write; a late record with a smaller value loses, also against the base.
* A delete with no comparable ordering value (absent, IntWrapper(0), or a different type than the
  ordering field) deletes whatever came before it; a delete with an ordering value is a record like
  any other and only wins when its value is not smaller. `_hoodie_is_deleted = true` is a delete.
* A partial-update block (IS_PARTIAL) carries only some columns; the rest come from the record it
  updates.
* Base rows are never de-duplicated among themselves. When every log block of a slice records
  positions in its base file (RECORD_POSITIONS) and they all fall inside it, each record merges
  with the base row at its position, whatever that row's key (Hudi 1.x's position-based record
  buffer trusts positions written against the same base file; so merging needs no base keys).
  Otherwise the slice merges by key, and a key's record meets only the first base row of that
  key, later rows with the same key staying as they are (Hudi 1.x's key-based record buffer
  hands a key's record out once).

All log rows of consecutive full blocks are resolved in one sort: for each key, rows before the
latest unconditional delete drop out, and the remaining row with the greatest (ordering, sequence)
— or sequence alone under commit-time ordering — wins. Partial blocks are folded onto that result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.table import MergeBehaviour, RecordMergeMode
from hudi_core.file_group.log_file.blocks import DeleteRecords
from hudi_core.keygen import RecordKeySpec
from hudi_core.merge.dedup import has_duplicates, last_per_key
from hudi_core.schema.conform import conform_array, conform_table
from hudi_core.schema.meta_fields import IS_DELETED

_Rows = TypeVar("_Rows", pa.Table, pa.Array)

KEY = "__hudi_key"
ORDER = "__hudi_order"
SEQ = "__hudi_seq"
DELETE = "__hudi_delete"
UNORDERED_DELETE = "__hudi_unordered_delete"
PARTIAL = "__hudi_partial"
_INTERNAL = (KEY, ORDER, SEQ, DELETE, UNORDERED_DELETE, PARTIAL)

# Wrapper records of delete ordering values, and the Arrow type families they compare with.
_WRAPPER_FAMILIES: dict[str, Callable[[pa.DataType], bool]] = {
    "BooleanWrapper": pa.types.is_boolean,
    "IntWrapper": lambda t: pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t),
    "LongWrapper": pa.types.is_int64,
    "FloatWrapper": pa.types.is_float32,
    "DoubleWrapper": pa.types.is_float64,
    "BytesWrapper": lambda t: pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t),
    "StringWrapper": lambda t: pa.types.is_string(t) or pa.types.is_large_string(t),
    "DateWrapper": pa.types.is_date32,
    "DecimalWrapper": pa.types.is_decimal,
    "TimeMicrosWrapper": pa.types.is_time64,
    "TimestampMicrosWrapper": pa.types.is_timestamp,
}


@dataclass(frozen=True)
class MergeSpec:
    """How one table merges records.

    Attributes:
        mode: the table's merge mode (COMMIT_TIME_ORDERING or EVENT_TIME_ORDERING; see
            `hudi_core.merge.behaviour` for tables that name a payload class instead).
        ordering_field: the ordering field used under EVENT_TIME_ORDERING, if any.
        schema: the columns rows are merged in (must contain the ordering field if set).
        keys: where record keys come from.
        ignore_defaults: a winning record's null fields keep the value of the record it replaces.
        delete_field: a log record whose `delete_field` equals `delete_marker` is a delete.
        delete_marker: see `delete_field`.
    """

    mode: RecordMergeMode
    ordering_field: str | None
    schema: pa.Schema
    keys: RecordKeySpec
    ignore_defaults: bool = False
    delete_field: str | None = None
    delete_marker: str | None = None

    @classmethod
    def of(
        cls, behaviour: MergeBehaviour, ordering_field: str | None, schema: pa.Schema, keys: RecordKeySpec
    ) -> MergeSpec:
        """The spec of a table that merges with `behaviour`."""
        return cls(
            behaviour.mode,
            ordering_field,
            schema,
            keys,
            ignore_defaults=behaviour.ignore_defaults,
            delete_field=behaviour.delete_field,
            delete_marker=behaviour.delete_marker,
        )

    @property
    def by_event_time(self) -> bool:
        return (
            self.mode is RecordMergeMode.EVENT_TIME_ORDERING
            and self.ordering_field is not None
            and self.ordering_field in self.schema.names
        )

    @property
    def order_type(self) -> pa.DataType:
        return self.schema.field(self.ordering_field).type if self.by_event_time else pa.null()


@dataclass(frozen=True)
class LogChunk:
    """The records of one visible log block, in order: data (full or partial) or deletes.

    Attributes:
        positions: the base-file row each record replaces, ascending with the records (the block's
            `RECORD_POSITIONS`), when they apply to the slice's base file; None to merge by key.
    """

    data: pa.Table | None = None
    deletes: DeleteRecords | None = None
    partial: bool = False
    positions: npt.NDArray[np.int64] | None = None

    @property
    def num_records(self) -> int:
        if self.deletes is not None:
            return len(self.deletes)
        return self.data.num_rows if self.data is not None else 0


# ---- building keyed rows ---------------------------------------------------------------------


def _ordering(table: pa.Table, spec: MergeSpec) -> pa.ChunkedArray | pa.Array:
    if spec.by_event_time and spec.ordering_field in table.column_names:
        return table.column(spec.ordering_field)
    return pa.nulls(table.num_rows, spec.order_type)


def _keyed_data(
    table: pa.Table, spec: MergeSpec, seq_start: int, partial: bool, positions: npt.NDArray[np.int64] | None
) -> pa.Table:
    keys = pa.array(positions) if positions is not None else spec.keys.keys(table)
    columns = [n for n in spec.schema.names if n in table.column_names] if partial else spec.schema.names
    rows = conform_table(table, spec.schema, "log block") if not partial else _partial_rows(table, spec, columns)
    deleted = (
        pc.fill_null(pc.equal(table.column(IS_DELETED), True), False)
        if IS_DELETED in table.column_names
        else pa.repeat(False, table.num_rows)
    )
    if spec.delete_field is not None and spec.delete_field in table.column_names:
        marked = pc.equal(pc.cast(table.column(spec.delete_field), pa.string()), spec.delete_marker)
        deleted = pc.or_(deleted, pc.fill_null(marked, False))
    order = _ordering(rows, spec)
    unordered = pc.and_(deleted, pc.is_null(order)) if spec.by_event_time else deleted
    return _with_internals(rows, keys, order, seq_start, deleted, unordered, ",".join(columns) if partial else None)


def _partial_rows(table: pa.Table, spec: MergeSpec, columns: list[str]) -> pa.Table:
    arrays = []
    for field in spec.schema:
        if field.name in columns:
            where = f"partial log block: column {field.name}"
            chunks = [conform_array(c, field.type, where) for c in table.column(field.name).chunks]
            arrays.append(pa.chunked_array(chunks, type=field.type))
        else:
            arrays.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=spec.schema)


def _keyed_deletes(
    deletes: DeleteRecords, spec: MergeSpec, seq_start: int, positions: npt.NDArray[np.int64] | None
) -> pa.Table:
    count = len(deletes)
    keys = pa.array(positions) if positions is not None else deletes.keys
    order = pa.nulls(count, spec.order_type)
    unordered = pa.repeat(True, count)
    if spec.by_event_time:
        values, comparable = _delete_ordering_values(deletes, spec.order_type)
        order = values
        unordered = pc.invert(comparable)
    rows = pa.Table.from_arrays([pa.nulls(count, f.type) for f in spec.schema], schema=spec.schema)
    return _with_internals(rows, keys, order, seq_start, pa.repeat(True, count), unordered, None)


def _delete_ordering_values(deletes: DeleteRecords, order_type: pa.DataType) -> tuple[pa.Array, pa.Array]:
    """Delete ordering values as `order_type`, and which of them are comparable to stored values.

    Hudi compares a delete's value only when it is not the default IntWrapper(0) and is of the same
    type as the stored ordering value; otherwise the delete wins unconditionally.
    """
    values: list[Any] = []
    comparable: list[bool] = []
    for value, kind in zip(deletes.ordering_values, deletes.ordering_kinds, strict=True):
        ok = kind is not None and value is not None and not (kind == "IntWrapper" and value == 0)
        ok = ok and _WRAPPER_FAMILIES.get(kind or "", lambda _: False)(order_type)
        comparable.append(ok)
        values.append(value if ok else None)
    try:
        if pa.types.is_date32(order_type) or pa.types.is_timestamp(order_type) or pa.types.is_time64(order_type):
            raw = pa.array(values, pa.int32() if pa.types.is_date32(order_type) else pa.int64())
            array = raw.cast(order_type)
        else:
            array = pa.array(values, order_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return pa.nulls(len(values), order_type), pa.repeat(False, len(values))
    return array, pa.array(comparable, pa.bool_())


def _with_internals(
    rows: pa.Table,
    keys: pa.ChunkedArray | pa.Array,
    order: pa.ChunkedArray | pa.Array,
    seq_start: int,
    deleted: pa.ChunkedArray | pa.Array,
    unordered: pa.ChunkedArray | pa.Array,
    partial_columns: str | None,
) -> pa.Table:
    count = rows.num_rows
    return (
        rows.append_column(KEY, keys)
        .append_column(ORDER, order)
        .append_column(SEQ, pa.array(range(seq_start, seq_start + count), pa.int64()))
        .append_column(DELETE, deleted)
        .append_column(UNORDERED_DELETE, unordered)
        .append_column(PARTIAL, pa.repeat(pa.scalar(partial_columns, pa.string()), count))
    )


# ---- resolving log rows ----------------------------------------------------------------------


def _resolve(rows: pa.Table, spec: MergeSpec) -> pa.Table:
    """One row per key: the winner of rows given in write order (see module docstring)."""
    if rows.num_rows == 0:
        return rows
    if not pc.any(rows.column(UNORDERED_DELETE)).as_py() and not has_duplicates(rows.column(KEY)):
        return rows  # the usual block: one record per key, nothing to resolve
    cut_seq = pc.if_else(rows.column(UNORDERED_DELETE), rows.column(SEQ), pa.scalar(None, pa.int64()))
    cuts = rows.select([KEY]).append_column("cut", cut_seq).group_by(KEY).aggregate([("cut", "max")])
    cut_for_row = pc.take(cuts.column("cut_max"), pc.index_in(rows.column(KEY), value_set=cuts.column(KEY)))
    alive = pc.fill_null(pc.greater_equal(rows.column(SEQ), cut_for_row), True)
    rows = rows.filter(alive)
    if spec.by_event_time:
        # Unconditional deletes lose to anything written after them.
        rank = pc.if_else(rows.column(UNORDERED_DELETE), pa.scalar(None, spec.order_type), rows.column(ORDER))
        return last_per_key(rows.append_column("__rank", rank), KEY, "__rank").drop_columns(["__rank"])
    return last_per_key(rows, KEY, SEQ)


def _newer_wins(older: pa.Table, newer: pa.Table, spec: MergeSpec) -> pa.ChunkedArray | pa.Array:
    """Per row pair (row-aligned): does the newer record replace the older one?"""
    if not spec.by_event_time:
        return pa.repeat(True, newer.num_rows)
    compared = pc.fill_null(pc.greater_equal(newer.column(ORDER), older.column(ORDER)), True)
    after_unordered_delete = pc.fill_null(older.column(UNORDERED_DELETE), False)
    return pc.or_(pc.or_(compared, newer.column(UNORDERED_DELETE)), after_unordered_delete)


def _overlay_partial(
    newer: pa.Table, older: pa.Table, older_exists: pa.Array | bool, ignore_defaults: bool = False
) -> pa.Table:
    """`newer` rows with the columns their partial block lacked taken from `older` (row-aligned);
    with `ignore_defaults`, their null fields too.

    Rows overlaid on an existing older row become complete; the others stay partial.
    """
    partial = newer.column(PARTIAL)
    if partial.null_count == len(partial) and not ignore_defaults:
        return newer
    result_columns = []
    for name in newer.column_names:
        if name in _INTERNAL or name not in older.column_names:
            result_columns.append(newer.column(name))
            continue
        listed = pc.match_substring(pc.binary_join_element_wise(",", partial, ",", ""), f",{name},")
        present = pc.fill_null(listed, True)  # a null list means a full row
        if ignore_defaults:
            present = pc.and_(present, pc.is_valid(newer.column(name)))
        result_columns.append(pc.if_else(present, newer.column(name), older.column(name)))
    merged = pa.Table.from_arrays(result_columns, names=newer.column_names)
    still_partial = pc.if_else(older_exists, pa.scalar(None, pa.string()), partial)
    return merged.set_column(merged.schema.get_field_index(PARTIAL), PARTIAL, still_partial)


def _combine(older: pa.Table, newer: pa.Table, spec: MergeSpec) -> pa.Table:
    """Folds resolved `newer` rows (unique keys) onto resolved `older` rows (unique keys)."""
    index = pc.index_in(newer.column(KEY), value_set=older.column(KEY))
    matched_older = older.take(index)
    wins = pc.or_(_newer_wins(matched_older, newer, spec), pc.is_null(index))
    untouched = older.filter(pc.invert(pc.is_in(older.column(KEY), value_set=newer.column(KEY))))
    kept_older = older.take(index.filter(pc.invert(wins)))
    winners = _overlay_partial(
        newer.filter(wins), matched_older.filter(wins), pc.is_valid(index).filter(wins), spec.ignore_defaults
    )
    return pa.concat_tables([untouched, kept_older, winners])


# ---- the file slice ----------------------------------------------------------------------------


def merge_slice(base: pa.Table | None, chunks: Sequence[LogChunk], spec: MergeSpec) -> pa.Table:
    """The merged rows of a file slice, in `spec.schema`.

    Base columns are never rebuilt: the result is the base minus the replaced rows, plus the
    winning log rows and log-only inserts, so a 1% update costs one filter of the base.
    """
    split = split_slice(base if base is not None else spec.schema.empty_table(), chunks, spec)
    if base is None:
        return split.log_rows
    kept = base if split.base_kept is None else base.filter(pa.array(split.base_kept))
    return pa.concat_tables([kept, split.log_rows.select(base.column_names)]) if split.log_rows.num_rows else kept


@dataclass(frozen=True)
class MergedLog:
    """The log records of a slice merged among themselves (what a log compaction writes).

    Attributes:
        rows: the winning upserts, in `spec.schema`.
        deleted_keys: keys whose winner is a delete.
        delete_ordering: each delete's ordering value; null for a delete that wins unconditionally.
    """

    rows: pa.Table
    deleted_keys: pa.Array
    delete_ordering: pa.Array


def merge_log_chunks(chunks: Sequence[LogChunk], spec: MergeSpec) -> MergedLog:
    """Merges log blocks without a base file; deletes are kept so they still apply to the base."""
    if any(chunk.partial for chunk in chunks):
        raise ValueError("partial-update blocks cannot be merged without their base records")
    resolved = _resolve_chunks(chunks, spec)
    if resolved is None:
        empty = spec.schema.empty_table()
        return MergedLog(empty, pa.array([], pa.string()), pa.array([], spec.order_type))
    is_delete = resolved.column(DELETE)
    deletes = resolved.filter(is_delete)
    ordering = pc.if_else(deletes.column(UNORDERED_DELETE), pa.scalar(None, spec.order_type), deletes.column(ORDER))
    return MergedLog(
        rows=_drop_internals(resolved.filter(pc.invert(is_delete))),
        deleted_keys=pc.cast(deletes.column(KEY), pa.string()).combine_chunks(),
        delete_ordering=ordering.combine_chunks() if isinstance(ordering, pa.ChunkedArray) else ordering,
    )


def _resolve_chunks(chunks: Sequence[LogChunk], spec: MergeSpec, positional: bool = False) -> pa.Table | None:
    """One row per merge id (with internal columns) for all log blocks, or None without any.

    The merge id is the record key, or with `positional` the base-file position of the record.
    """
    resolved: pa.Table | None = None
    run: list[pa.Table] = []
    seq = 0

    def flush() -> None:
        nonlocal resolved, run
        if run:
            block_rows = _resolve(pa.concat_tables(run), spec)
            resolved = block_rows if resolved is None else _combine(resolved, block_rows, spec)
            run = []

    for chunk in chunks:
        positions = chunk.positions if positional else None
        if chunk.deletes is not None:
            keyed = _keyed_deletes(chunk.deletes, spec, seq, positions)
        elif chunk.data is not None:
            keyed = _keyed_data(chunk.data, spec, seq, chunk.partial, positions)
        else:
            continue
        seq += keyed.num_rows
        if chunk.partial or spec.ignore_defaults:  # folded block by block onto what came before
            flush()
            run.append(keyed)
            flush()
        else:
            run.append(keyed)
    flush()
    return resolved


def _drop_internals(rows: pa.Table) -> pa.Table:
    return rows.drop_columns([c for c in _INTERNAL if c in rows.column_names])


@dataclass(frozen=True)
class SplitMerge:
    """A merged slice kept apart as the base rows that survive and the rows the log contributes.

    Attributes:
        base_kept: per base row, whether it is in the result (None: every row is).
        log_rows: winning log rows and log-only inserts, in `spec.schema`, deletes dropped.
    """

    base_kept: np.ndarray | None
    log_rows: pa.Table


def split_slice(base: pa.Table, chunks: Sequence[LogChunk], spec: MergeSpec) -> SplitMerge:
    """Merges a slice without assembling it: which base rows survive, and the rows the log adds.

    `base` may hold only the columns merging needs (record key source columns and the ordering
    field) when no block is a partial update, which takes its missing columns from whole base rows;
    the caller then fetches the other base columns for surviving rows only.
    """
    if merges_by_position(chunks, base.num_rows):
        touched = merge_positions(chunks)
        merged = merge_at_positions(base.take(pa.array(touched)), touched, chunks, spec)
        keep = np.ones(base.num_rows, dtype=bool)
        keep[merged.replaced] = False
        return SplitMerge(keep, merged.log_rows)
    resolved = _resolve_chunks(chunks, spec)
    if resolved is None:
        return SplitMerge(None, spec.schema.empty_table())
    if base.num_rows == 0:
        return SplitMerge(None, _live(resolved))
    return SplitMerge(*_split_with_base(base, resolved, spec))


def _split_with_base(base: pa.Table, log_rows: pa.Table, spec: MergeSpec) -> tuple[np.ndarray | None, pa.Table]:
    """(which base rows survive or None for all, the log's winners and inserts without deletes)."""
    index = pc.index_in(spec.keys.keys(base), value_set=log_rows.column(KEY))
    matched_positions = pc.indices_nonzero(pc.is_valid(index))
    if len(matched_positions) == 0:
        return None, _live(log_rows)
    log_index = pc.take(index, matched_positions)
    # A record meets the first base row of its key only.
    log_numbers = log_index.to_numpy(zero_copy_only=False)
    _, first = np.unique(log_numbers, return_index=True)
    if len(first) < len(log_numbers):
        first.sort()
        matched_positions = pc.take(matched_positions, pa.array(first))
        log_index = pc.take(log_index, pa.array(first))
    newer = log_rows.take(log_index)
    wins = _wins_over_base(pc.take(_ordering(base, spec), matched_positions), newer, spec)
    replaced = pc.filter(matched_positions, wins)
    keep = np.ones(base.num_rows, dtype=bool)
    keep[replaced.to_numpy()] = False
    untouched_log = np.ones(log_rows.num_rows, dtype=bool)
    untouched_log[log_index.to_numpy()] = False
    winners = _overlay_partial(_kept(newer, wins), base.take(replaced), True, spec.ignore_defaults)
    inserts = _kept(log_rows, pa.array(untouched_log))
    return keep, _live(pa.concat_tables([winners, inserts]))


def _wins_over_base(
    base_order: pa.ChunkedArray | pa.Array, newer: pa.Table, spec: MergeSpec
) -> pa.ChunkedArray | pa.Array:
    """Per resolved log row, does it replace the base row it meets (whose ordering values are given)?"""
    if not spec.by_event_time:
        return pa.repeat(True, newer.num_rows)
    older = pa.table({ORDER: base_order, UNORDERED_DELETE: pa.repeat(False, newer.num_rows)})
    return _newer_wins(older, newer, spec)


def _live(rows: pa.Table) -> pa.Table:
    """Resolved rows without the deletes and the internal columns."""
    return _drop_internals(_kept(rows, pc.invert(rows.column(DELETE))))


def _kept(rows: _Rows, mask: pa.ChunkedArray | pa.Array) -> _Rows:
    """`rows.filter(mask)`, without copying every column when all rows stay (the usual merge:
    each logged record beats its stored row and deletes nothing)."""
    if mask.null_count == 0 and pc.all(mask).as_py():
        return rows
    return rows.filter(mask)


# ---- merging by position ----------------------------------------------------------------------


def merges_by_position(chunks: Sequence[LogChunk], base_rows: int) -> bool:
    """Whether a slice merges by position: every block records positions, all inside the base."""
    if not chunks or base_rows == 0:
        return False
    for chunk in chunks:
        positions = chunk.positions
        if positions is None:
            return False
        if len(positions) and (int(positions.min()) < 0 or int(positions.max()) >= base_rows):
            return False
    return True


def merge_positions(chunks: Sequence[LogChunk]) -> npt.NDArray[np.int64]:
    """The base positions the blocks of a positional slice name, ascending and unique."""
    named = [c.positions for c in chunks if c.positions is not None]
    return np.unique(np.concatenate(named)) if named else np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class PositionalMerge:
    """A positional slice's merge.

    Attributes:
        replaced: base positions whose row a log record replaced or deleted, ascending.
        log_rows: the winning log rows, in `spec.schema`, deletes dropped.
    """

    replaced: npt.NDArray[np.int64]
    log_rows: pa.Table


def merge_at_positions(
    base_rows: pa.Table, positions: npt.NDArray[np.int64], chunks: Sequence[LogChunk], spec: MergeSpec
) -> PositionalMerge:
    """Merges the blocks of a positional slice (see :func:`merges_by_position`) with the base rows
    they name.

    Args:
        base_rows: the base rows at `positions`, in that order; the ordering field is all they need
            unless a block is partial or defaults are ignored (then every column).
        positions: :func:`merge_positions` of `chunks`.
    """
    resolved = _resolve_chunks(chunks, spec, positional=True)
    if resolved is None:
        return PositionalMerge(np.empty(0, dtype=np.int64), spec.schema.empty_table())
    named = resolved.column(KEY).to_numpy()
    at = pa.array(np.searchsorted(positions, named))
    wins = _wins_over_base(pc.take(_ordering(base_rows, spec), at), resolved, spec)
    winners = _overlay_partial(_kept(resolved, wins), base_rows.take(_kept(at, wins)), True, spec.ignore_defaults)
    replaced = np.sort(named[np.asarray(wins.to_numpy(zero_copy_only=False), dtype=bool)])
    return PositionalMerge(replaced, _live(winners))
