"""A bulk insert fills base files to `hoodie.parquet.max.file.size` by their bytes, as Apache Hudi's
bulk insert rolls a file over at that size; inserts keep sizing new files by the record size of
earlier commits (`hoodie.copyonwrite.record.size.estimate` before any), as Hudi's insert does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable
from hudi_core.config.write import HudiWriteConfig

SCHEMA = pa.schema([("id", pa.string()), ("v", pa.float64()), ("ts", pa.int64()), ("p", pa.string())])
MAX_FILE = 400_000  # bytes
ROWS = 60_000
OPTIONS = {HudiWriteConfig.PARQUET_MAX_FILE_SIZE.key: str(MAX_FILE)}


def _rows(count: int) -> pa.Table:
    rng = np.random.default_rng(3)
    ids = [f"{n:08x}-{rng.integers(1 << 62):016x}" for n in range(count)]
    return pa.table(
        {
            "id": ids,
            "v": rng.random(count),
            "ts": rng.integers(0, 1 << 40, count),
            "p": np.where(np.arange(count) % 2 == 0, "a", "b").tolist(),
        },
        schema=SCHEMA,
    )


def _data_bytes(table: HudiTable) -> list[int]:
    """Each base file's column data in bytes (what Hudi's writer measures; the footer, with its bloom
    filter sized for 60,000 keys, comes on top)."""
    sizes = []
    for file_slice in table.file_slices():
        assert file_slice.base_file_path is not None
        meta = pq.ParquetFile(Path(table.storage.base_path) / file_slice.base_file_path).metadata
        sizes.append(
            sum(
                meta.row_group(g).column(c).total_compressed_size
                for g in range(meta.num_row_groups)
                for c in range(meta.num_columns)
            )
        )
    return sorted(sizes)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_bulk_insert_fills_files_to_the_maximum_size_by_their_bytes(tmp_path: Path, table_type: str) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "sizing", ["id"], ["p"], ["ts"], table_type)
    table.bulk_insert(_rows(ROWS), OPTIONS)
    sizes = _data_bytes(table)
    data = sum(sizes)
    # Two partitions, each cut where its files reach the maximum: the fewest files that can hold
    # the bytes (one more per partition at most for its last, partly filled file).
    assert len(sizes) <= -(-data // MAX_FILE) + 2
    full = sizes[2:]  # all but each partition's last file
    assert full and all(0.7 * MAX_FILE <= size <= 1.1 * MAX_FILE for size in full), sizes
    assert table.read(["id"]).num_rows == ROWS


def test_an_insert_keeps_sizing_by_the_record_size_estimate(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "sizing", ["id"], ["p"], ["ts"])
    estimate = HudiWriteConfig.RECORD_SIZE_ESTIMATE.key
    table.insert(_rows(ROWS), {**OPTIONS, estimate: "100", HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key: "0"})
    # 4,000 records a file (400,000 / 100), whatever they encode to: 30,000 rows per partition
    # make 7 full files and one of 2,000.
    assert len(table.file_slices()) == 2 * 8
