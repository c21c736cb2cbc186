"""Reading Parquet base files: projection, row-group pruning by statistics, schema conformance.

Every read is counted in :mod:`hudi_core.metrics`: the footer, the row groups read or skipped and
the compressed bytes of the column chunks actually read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core import metrics
from hudi_core.errors import FileFormatError
from hudi_core.expr import Filter, passing_rows
from hudi_core.file_group.base_file.bloom_filter import SIMPLE, BloomFilter
from hudi_core.file_group.base_file.parquet_writer import BLOOM_FILTER_KEY, BLOOM_FILTER_TYPE_KEY
from hudi_core.schema.conform import conform_table
from hudi_core.storage import Storage


@dataclass(frozen=True)
class ParquetRead:
    """The outcome of reading one base file."""

    table: pa.Table
    row_groups_read: int
    row_groups_total: int


def open_parquet(storage: Storage, path: str) -> pq.ParquetFile:
    """Opens a Parquet file and parses its footer (counted in metrics)."""
    source = storage.open_input_file(path)
    try:
        parquet_file = pq.ParquetFile(source)
    except (pa.ArrowInvalid, OSError) as e:
        source.close()
        raise FileFormatError(f"{storage.full_path(path)}: not a readable Parquet file: {e}") from e
    metrics.add(footers_read=1)
    return parquet_file


def _row_group_may_match(metadata: pq.RowGroupMetaData, columns: dict[str, int], filters: Sequence[Filter]) -> bool:
    for f in filters:
        index = columns.get(f.column)
        if index is None:
            continue
        stats = metadata.column(index).statistics
        if stats is None:
            continue
        if stats.has_min_max:
            if not f.may_match_range(stats.min, stats.max, has_non_null=True):
                return False
        elif stats.has_null_count and stats.null_count == metadata.num_rows:
            return False  # all nulls: no comparison can hold
    return True


def read_parquet(
    storage: Storage,
    path: str,
    schema: pa.Schema,
    prune_filters: Sequence[Filter] = (),
    rows: np.ndarray | None = None,
) -> ParquetRead:
    """Reads the columns of `schema` from one Parquet file (see :meth:`OpenParquet.read`)."""
    with OpenParquet(storage, path) as parquet:
        return parquet.read(schema, prune_filters, rows)


class OpenParquet:
    """One Parquet base file, its footer parsed once for several reads (a context manager)."""

    def __init__(self, storage: Storage, path: str) -> None:
        self._storage = storage
        self._path = path
        self._file = open_parquet(storage, path)
        meta = self._file.metadata
        sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
        # Row group i holds the file positions [_starts[i], _starts[i + 1]).
        self._starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
        self._top_level: dict[str, list[int]] = {}
        self._flat_columns: dict[str, int] = {}
        for j in range(meta.num_columns):
            column_path = meta.schema.column(j).path
            top = column_path.split(".", 1)[0]
            self._top_level.setdefault(top, []).append(j)
            if column_path == top:
                self._flat_columns[top] = j

    def __enter__(self) -> OpenParquet:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close(force=True)

    @property
    def num_rows(self) -> int:
        return int(self._file.metadata.num_rows)

    def bloom_filter(self, max_entries: int = 0) -> BloomFilter | None:
        """The footer's record-key bloom filter (None when the file has none); `max_entries` is the
        dynamic bound for keys added to it later (not stored in the file)."""
        footer = self._file.metadata.metadata or {}
        serialized = footer.get(BLOOM_FILTER_KEY.encode())
        if serialized is None:
            return None
        filter_type = footer.get(BLOOM_FILTER_TYPE_KEY.encode(), SIMPLE.encode()).decode()
        try:
            return BloomFilter.deserialize(serialized, filter_type, max_entries)
        except ValueError as e:  # an unknown type code
            raise FileFormatError(f"{self._storage.full_path(self._path)}: {e}") from e

    def read(
        self, schema: pa.Schema, prune_filters: Sequence[Filter] = (), rows: np.ndarray | None = None
    ) -> ParquetRead:
        """Reads the columns of `schema` and conforms them to `schema`.

        Args:
            schema: the columns to return, with their table types; columns the file lacks are null.
            prune_filters: filters whose statistics may exclude whole row groups. Callers pass them
                only when rows dropped here cannot reappear later (no log merging on top).
            rows: ascending positions of the only rows to return; row groups without any are not read.
        """
        file_meta = self._file.metadata
        selected = self._groups_that_may_match(prune_filters)
        if rows is not None:
            groups = self.row_groups_of(rows)
            selected = np.unique(groups).tolist()
        table = self._read_groups(selected, schema)
        if rows is not None and len(selected):
            table = table.take(pa.array(self._offsets_in_read(selected, rows)))
        return ParquetRead(
            conform_table(table, schema, self._storage.full_path(self._path)), len(selected), file_meta.num_row_groups
        )

    def iter_read(
        self, schema: pa.Schema, prune_filters: Sequence[Filter] = (), batch_rows: int = 65536
    ) -> Iterator[pa.Table]:
        """What :meth:`read` returns, in tables of at most `batch_rows` rows decoded one at a time
        (a stream holds one batch, not the file)."""
        selected = self._groups_that_may_match(prune_filters)
        present = [name for name in schema.names if name in self._top_level]
        self._count_read(selected, present)
        if not selected:
            return
        try:
            for batch in self._file.iter_batches(batch_rows, row_groups=selected, columns=present):
                yield conform_table(pa.Table.from_batches([batch]), schema, self._storage.full_path(self._path))
        except (pa.ArrowInvalid, OSError) as e:
            raise FileFormatError(f"{self._storage.full_path(self._path)}: cannot read Parquet data: {e}") from e

    def matching_rows(self, schema: pa.Schema, filters: Sequence[Filter]) -> npt.NDArray[np.int64]:
        """Ascending positions of the rows that pass `filters` (on columns of `schema`), reading
        only those columns of the row groups whose statistics do not exclude every row."""
        selected = self._groups_that_may_match(filters)
        if not selected:
            return np.empty(0, dtype=np.int64)
        table = conform_table(self._read_groups(selected, schema), schema, self._storage.full_path(self._path))
        return self._positions_read(selected)[passing_rows(table, filters)]

    def row_group_maxima(self, column: str) -> list[Any] | None:
        """Each row group's largest value of a flat column by its statistics (None for a group of
        nulls only); None when a row group has no statistics for it."""
        index = self._flat_columns.get(column)
        if index is None:
            return None
        file_meta = self._file.metadata
        maxima: list[Any] = []
        for i in range(file_meta.num_row_groups):
            group = file_meta.row_group(i)
            stats = group.column(index).statistics
            if stats is not None and stats.has_min_max:
                maxima.append(stats.max)
            elif stats is not None and stats.has_null_count and stats.null_count == group.num_rows:
                maxima.append(None)
            else:
                return None
        return maxima

    def row_groups_of(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The row group holding each of the (ascending) file positions `rows`."""
        return np.searchsorted(self._starts[1:], rows, side="right").astype(np.int64)

    def _offsets_in_read(self, selected: list[int], rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Where the file positions `rows` (ascending, all in `selected`) land among the rows of the
        row groups `selected`, read one after another."""
        groups = np.asarray(selected, dtype=np.int64)
        sizes = self._starts[groups + 1] - self._starts[groups]
        read_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        where = np.searchsorted(groups, self.row_groups_of(rows))
        offsets: npt.NDArray[np.int64] = rows - self._starts[groups][where] + read_start[where]
        return offsets

    def _positions_read(self, selected: list[int]) -> npt.NDArray[np.int64]:
        """The file positions of the rows of the row groups `selected`, read one after another."""
        return np.concatenate([np.arange(self._starts[i], self._starts[i + 1], dtype=np.int64) for i in selected])

    def _groups_that_may_match(self, filters: Sequence[Filter]) -> list[int]:
        file_meta = self._file.metadata
        return [
            i
            for i in range(file_meta.num_row_groups)
            if not filters or _row_group_may_match(file_meta.row_group(i), self._flat_columns, filters)
        ]

    def _read_groups(self, selected: list[int], schema: pa.Schema) -> pa.Table:
        present = [name for name in schema.names if name in self._top_level]
        self._count_read(selected, present)
        if not selected:
            return self._file.schema_arrow.empty_table().select(present)
        try:
            return self._file.read_row_groups(selected, columns=present)
        except (pa.ArrowInvalid, OSError) as e:
            raise FileFormatError(f"{self._storage.full_path(self._path)}: cannot read Parquet data: {e}") from e

    def _count_read(self, selected: list[int], present: list[str]) -> None:
        file_meta = self._file.metadata
        metrics.add(row_groups_skipped=file_meta.num_row_groups - len(selected))
        if not selected:
            return
        chunk_bytes = sum(
            file_meta.row_group(i).column(j).total_compressed_size
            for i in selected
            for name in present
            for j in self._top_level[name]
        )
        metrics.add(base_files_read=1, row_groups_read=len(selected), bytes_read=chunk_bytes)
