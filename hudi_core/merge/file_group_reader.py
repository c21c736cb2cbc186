"""FileGroupReader: one file slice in, the rows it holds out, as Arrow.

Copy-on-Write slices (and read-optimized queries) read the base file, pruning row groups by
statistics. Merge-on-Read slices with log files scan the visible log blocks, merge them with every
base row by record key, and only then filter: a log record may change or delete a row the
statistics of its base file say nothing about. When the query filters (incremental queries always
do, on commit time), the base is first read with only the columns merging and filtering need; the
other columns are read for the base rows that pass, if any.

Engine-agnostic: the Arrow engine runs it in threads, the Spark engine in Python tasks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.expr import Filter, passing_rows
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet import OpenParquet, read_parquet
from hudi_core.file_group.log_file.blocks import decode_data_block, decode_delete_block
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.positions import decode_record_positions
from hudi_core.file_group.log_file.reader import RawBlock
from hudi_core.file_group.log_file.scanner import BlockVisibility, scan_log_files
from hudi_core.merge.record_merger import (
    LogChunk,
    MergeSpec,
    merge_at_positions,
    merge_positions,
    merge_slice,
    merges_by_position,
    split_slice,
)
from hudi_core.schema.meta_fields import IS_DELETED
from hudi_core.storage import Storage


@dataclass(frozen=True)
class SliceReadRequest:
    """What to read from each slice.

    Attributes:
        schema: the columns to produce (table types), including those filters and merging need.
        filters: row filters, applied after merging.
        read_optimized: read base files only, ignoring log files.
        merge: how log records merge with base rows (Merge-on-Read tables).
        visibility: which log blocks the query sees (Merge-on-Read tables).
    """

    schema: pa.Schema
    filters: Sequence[Filter] = ()
    read_optimized: bool = False
    merge: MergeSpec | None = None
    visibility: BlockVisibility | None = None


@dataclass(frozen=True)
class LogScanStats:
    """What merging a slice read from its log files (compaction write stats report it)."""

    blocks: int = 0
    records: int = 0


class FileGroupReader:
    """Reads file slices of one table."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def read(self, file_slice: FileSlice, request: SliceReadRequest) -> pa.Table:
        """The rows of `file_slice` matching the request's filters, in the request's schema."""
        return self.read_with_stats(file_slice, request)[0]

    def read_with_stats(self, file_slice: FileSlice, request: SliceReadRequest) -> tuple[pa.Table, LogScanStats]:
        """Like :meth:`read`, also reporting the log blocks and records merged."""
        stats = LogScanStats()
        if file_slice.has_logs and not request.read_optimized:
            return self._merge(file_slice, request)
        if file_slice.base_file_path is None:
            return request.schema.empty_table(), stats
        table = read_parquet(self._storage, file_slice.base_file_path, request.schema, request.filters).table
        return _matching(table, request.filters), stats

    @staticmethod
    def reads_whole(file_slice: FileSlice, request: SliceReadRequest) -> bool:
        """Whether :meth:`read_batches` reads the slice at once (it merges log files, or has no base)."""
        return (file_slice.has_logs and not request.read_optimized) or file_slice.base_file_path is None

    def read_batches(self, file_slice: FileSlice, request: SliceReadRequest) -> Iterator[pa.Table]:
        """What :meth:`read` returns, as tables produced one after another: a slice read from its
        base file alone streams batch by batch; a slice that merges log files comes whole."""
        base_path = file_slice.base_file_path
        if base_path is None or self.reads_whole(file_slice, request):
            yield self.read(file_slice, request)
            return
        with OpenParquet(self._storage, base_path) as parquet:
            for table in parquet.iter_read(request.schema, request.filters):
                yield _matching(table, request.filters)

    def _merge(self, file_slice: FileSlice, request: SliceReadRequest) -> tuple[pa.Table, LogScanStats]:
        if request.merge is None or request.visibility is None:
            raise ValueError("a Merge-on-Read slice read needs a merge spec and block visibility")
        base_instant = file_slice.base_instant if file_slice.base_file_path is not None else None
        chunks = [
            chunk
            for _, chunk in read_log_chunks(self._storage, file_slice.log_file_paths, request.visibility, base_instant)
        ]
        stats = LogScanStats(len(chunks), sum(c.num_records for c in chunks))
        base_path = file_slice.base_file_path
        narrow = _columns_before_filtering(request, chunks) if request.filters else None
        if base_path is None or narrow is None:
            base = read_parquet(self._storage, base_path, request.schema).table if base_path is not None else None
            table = merge_slice(base, chunks, request.merge)
            return _matching(table, request.filters), stats
        with OpenParquet(self._storage, base_path) as parquet:
            if merges_by_position(chunks, parquet.num_rows):
                return _filtered_by_position(parquet, chunks, request), stats
            head = parquet.read(narrow).table
            split = split_slice(head, chunks, request.merge)
            # Filter first (it keeps few rows), then drop the rows the log replaced or deleted.
            positions = passing_rows(head, request.filters)
            if split.base_kept is not None:
                positions = positions[split.base_kept[positions]]
            rest = pa.schema([f for f in request.schema if f.name not in narrow.names])
            others = parquet.read(rest, rows=positions).table if len(positions) else rest.empty_table()
        kept = head.take(pa.array(positions))
        base_part = pa.Table.from_arrays(
            [(kept if f.name in narrow.names else others).column(f.name) for f in request.schema],
            schema=request.schema,
        )
        log_part = _matching(split.log_rows, request.filters).select(request.schema.names)
        return pa.concat_tables([base_part, log_part]), stats


def _filtered_by_position(parquet: OpenParquet, chunks: Sequence[LogChunk], request: SliceReadRequest) -> pa.Table:
    """A filtered read of a slice that merges by position: no base keys are read, only the ordering
    values at the named positions, the filtered columns (of the row groups their statistics do not
    exclude) and the rows that pass."""
    spec = request.merge
    assert spec is not None
    touched = merge_positions(chunks)
    if spec.by_event_time and spec.ordering_field is not None:
        named = _base_ordering_at(parquet, touched, chunks, request.schema.field(spec.ordering_field))
    else:
        named = pa.table({"__hudi_row": touched})
    merged = merge_at_positions(named, touched, chunks, spec)
    filtered = pa.schema([request.schema.field(name) for name in sorted({f.column for f in request.filters})])
    surviving = np.setdiff1d(parquet.matching_rows(filtered, request.filters), merged.replaced, assume_unique=True)
    base_part = parquet.read(request.schema, rows=surviving).table if len(surviving) else request.schema.empty_table()
    log_part = _matching(merged.log_rows, request.filters).select(request.schema.names)
    return pa.concat_tables([base_part, log_part])


def _matching(table: pa.Table, filters: Sequence[Filter]) -> pa.Table:
    """The rows of `table` that pass the filters; `table` itself, not a copy, when all do (an
    incremental read's rows usually all belong to its window)."""
    if not filters or table.num_rows == 0:
        return table
    rows = passing_rows(table, filters)
    return table if len(rows) == table.num_rows else table.take(pa.array(rows))


def _base_ordering_at(
    parquet: OpenParquet, touched: npt.NDArray[np.int64], chunks: Sequence[LogChunk], field: pa.Field
) -> pa.Table:
    """The base file's ordering values at `touched`, as far as merging needs them.

    A position whose log records all carry an ordering value at least the largest of its row group
    (the usual update: a newer event) beats the base row whatever its value: the row group's
    maximum stands in for it, and only the other positions' values are read.
    """
    schema = pa.schema([field])
    maxima = parquet.row_group_maxima(field.name) if pa.types.is_signed_integer(field.type) else None
    if maxima is None or not len(touched):
        return parquet.read(schema, rows=touched).table
    floor = np.iinfo(np.int64).min
    group_max = np.array([floor if m is None else m for m in maxima], dtype=np.int64)[parquet.row_groups_of(touched)]
    lowest_log = np.full(len(touched), np.iinfo(np.int64).max, dtype=np.int64)
    for chunk in chunks:
        assert chunk.positions is not None
        at = np.searchsorted(touched, chunk.positions)
        if chunk.data is None or field.name not in chunk.data.column_names:
            lowest_log[at] = floor  # deletes (and records without the field) compare with the stored value
            continue
        values = pc.fill_null(pc.cast(chunk.data.column(field.name), pa.int64()), np.iinfo(np.int64).max)
        np.minimum.at(lowest_log, at, np.asarray(values.to_numpy(), dtype=np.int64))
    needed = lowest_log < group_max
    values = group_max.copy()
    if needed.any():
        read = parquet.read(schema, rows=touched[needed]).table.column(field.name)
        exact = pc.fill_null(pc.cast(read, pa.int64()), floor).to_numpy()
        values[needed] = exact
    stand_in = pa.array(values, pa.int64(), mask=values == floor).cast(field.type)
    return pa.table({field.name: stand_in})


def _columns_before_filtering(request: SliceReadRequest, chunks: Sequence[LogChunk]) -> pa.Schema | None:
    """The base columns a filtered merge reads before filtering (record key source columns, the
    ordering field, the filtered columns), or None when reading them first saves nothing."""
    merge = request.merge
    assert merge is not None
    if merge.ignore_defaults or any(chunk.partial for chunk in chunks):
        return None  # partial updates take their missing columns from whole base rows
    needed = {*merge.keys.source_columns, IS_DELETED, *(f.column for f in request.filters)}
    if merge.ordering_field is not None:
        needed.add(merge.ordering_field)
    narrow = pa.schema([f for f in request.schema if f.name in needed])
    return narrow if len(narrow) < len(request.schema) else None


def read_log_chunks(
    storage: Storage, log_paths: Sequence[str], visibility: BlockVisibility, base_instant: str | None = None
) -> list[tuple[RawBlock, LogChunk]]:
    """The visible blocks of a slice's log files, each with its decoded records, in merge order.

    A block's record positions are kept when they point into the base file `base_instant` wrote;
    blocks without them, or written against another base file, merge by key.
    """
    chunks: list[tuple[RawBlock, LogChunk]] = []
    for block in scan_log_files(storage, log_paths, visibility):
        positions = _record_positions(block, base_instant)
        if block.block_type is BlockType.DELETE:
            deletes = decode_delete_block(block)
            usable = positions if positions is not None and len(positions) == len(deletes) else None
            chunks.append((block, LogChunk(deletes=deletes, positions=usable)))
        else:
            partial = block.header.get(HeaderKey.IS_PARTIAL, "").lower() == "true"
            data = decode_data_block(block)
            usable = positions if positions is not None and len(positions) == data.num_rows else None
            chunks.append((block, LogChunk(data=data, partial=partial, positions=usable)))
    return chunks


def _record_positions(block: RawBlock, base_instant: str | None) -> npt.NDArray[np.int64] | None:
    encoded = block.header.get(HeaderKey.RECORD_POSITIONS)
    if not encoded or base_instant is None:
        return None
    if block.header.get(HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS) != base_instant:
        return None
    return decode_record_positions(encoded)
