"""Reads do only the I/O they need, shown by hudi_core.metrics counters.

`footers_read` counts Parquet footers parsed while planning; `base_files_read`, `row_groups_read` and
`bytes_read` count data actually read. Without a metadata table, statistics live in footers, so a
file excluded by its statistics has its footer parsed and no data page read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from hudi_core import HudiTable, metrics

TABLE = "sample_table/cow/v9_txns_simple_nometa"


def _slice_files(table: HudiTable) -> list[Path]:
    base = Path(table.storage.base_path)
    return [base / s.base_file_path for s in table.file_slices() if s.base_file_path]


def _column_bytes(files: list[Path], column: str) -> int:
    total = 0
    for path in files:
        meta = pq.ParquetFile(path).metadata
        for i in range(meta.num_row_groups):
            for j in range(meta.num_columns):
                if meta.schema.column(j).path.split(".")[0] == column:
                    total += meta.row_group(i).column(j).total_compressed_size
    return total


def test_read_projection_reads_only_projected_column_chunks(corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table(TABLE)))
    files = _slice_files(table)
    with metrics.capture() as full:
        table.read()
    with metrics.capture() as projected:
        result = table.read(columns=["txn_id"])
    assert result.column_names == ["txn_id"]
    assert projected.bytes_read == _column_bytes(files, "txn_id")
    assert projected.bytes_read < full.bytes_read / 5
    assert projected.base_files_read == full.base_files_read == len(files)


def test_read_partition_filter_opens_only_that_partition(corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table(TABLE)))
    eu_files = [s for s in table.file_slices() if s.partition_path == "region=eu"]
    assert 0 < len(eu_files) < len(table.file_slices())
    with metrics.capture() as m:
        result = table.read(filters=[("region", "=", "eu")])
    assert set(result.column("region").to_pylist()) == {"eu"}
    assert m.footers_read == m.base_files_read == len(eu_files)


def test_read_statistics_exclude_files_without_reading_data(corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table(TABLE)))
    files = _slice_files(table)
    maxima = {}
    for path in files:
        meta = pq.ParquetFile(path).metadata
        column = next(j for j in range(meta.num_columns) if meta.schema.column(j).path == "txn_ts")
        maxima[path] = max(meta.row_group(i).column(column).statistics.max for i in range(meta.num_row_groups))
    threshold = sorted(maxima.values())[len(maxima) // 2]
    matching = [p for p, high in maxima.items() if high >= threshold]
    assert 0 < len(matching) < len(files)
    with metrics.capture() as m:
        result = table.read(filters=[("txn_ts", ">=", threshold)])
    assert all(v >= threshold for v in result.column("txn_ts").to_pylist())
    assert m.base_files_read == len(matching)
    assert m.row_groups_skipped == len(files) - len(matching)
    assert m.footers_read == len(files)
