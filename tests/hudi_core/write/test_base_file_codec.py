"""Base files are zstd by default (our product decision; Apache Hudi's default is gzip and the codec is
not persisted in hoodie.properties): a writer that names a codec gets it, for that write only."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable
from hudi_core.config.write import HudiWriteConfig

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
CODEC = HudiWriteConfig.PARQUET_COMPRESSION.key


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table({"id": ids, "v": [f"v{ts}"] * len(ids), "ts": [ts] * len(ids), "p": ["a"] * len(ids)})


def _codecs(table: HudiTable, instant: str) -> set[str]:
    base = Path(table.storage.base_path)
    files = [p for p in base.rglob(f"*_{instant}.parquet") if ".hoodie" not in p.parts]
    assert files, f"no base file of {instant}"
    return {
        pq.ParquetFile(path).metadata.row_group(0).column(i).compression
        for path in files
        for i in range(pq.ParquetFile(path).metadata.num_columns)
    }


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_defaults_write_zstd_and_a_named_codec_holds_for_its_write(tmp_path: Path, table_type: str) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "codec", ["id"], ["p"], ["ts"], table_type)
    first = table.insert(_rows([1, 2], 1), {"hoodie.parquet.small.file.limit": "0"})
    assert _codecs(table, first.instant_time) == {"ZSTD"}
    gzipped = table.insert(_rows([3, 4], 2), {CODEC: "gzip", "hoodie.parquet.small.file.limit": "0"})
    assert _codecs(table, gzipped.instant_time) == {"GZIP"}
    snappy = table.insert(_rows([5], 3), {CODEC: "SNAPPY", "hoodie.parquet.small.file.limit": "0"})
    assert _codecs(table, snappy.instant_time) == {"SNAPPY"}
    overwritten = table.insert_overwrite_table(_rows([6, 7], 4))  # no option: back to the default
    assert _codecs(table, overwritten.instant_time) == {"ZSTD"}
    assert CODEC not in (Path(table.storage.base_path) / ".hoodie/hoodie.properties").read_text()
    assert sorted(table.read(["id"]).column("id").to_pylist()) == [6, 7]


def test_a_handle_keeps_the_codec_it_was_opened_with(tmp_path: Path) -> None:
    HudiTable.create(str(tmp_path / "t"), SCHEMA, "codec", ["id"], ["p"], ["ts"])
    table = HudiTable(str(tmp_path / "t"), {CODEC: "gzip"})
    assert _codecs(table, table.insert(_rows([1], 1)).instant_time) == {"GZIP"}
    assert _codecs(table, table.upsert(_rows([1], 2), {CODEC: "zstd"}).instant_time) == {"ZSTD"}


def test_dictionaries_only_for_columns_whose_values_repeat(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "codec", ["id"], ["p"], ["ts"], "COPY_ON_WRITE")
    count = 6000
    rows = pa.table(
        {
            "id": list(range(count)),  # every value distinct
            "v": [f"v{i % 7}" for i in range(count)],  # seven values
            "ts": [i // 2 for i in range(count)],  # each value twice: half distinct keeps its dictionary
            "p": ["a"] * count,
        }
    )
    result = table.insert(rows)
    (path,) = [p for p in Path(table.storage.base_path).rglob(f"*_{result.instant_time}.parquet")]
    metadata = pq.ParquetFile(path).metadata.row_group(0)
    dictionary = {
        metadata.column(i).path_in_schema: metadata.column(i).has_dictionary_page for i in range(metadata.num_columns)
    }
    assert dictionary == {
        "_hoodie_commit_time": True,
        "_hoodie_commit_seqno": False,
        "_hoodie_record_key": False,
        "_hoodie_partition_path": True,
        "_hoodie_file_name": True,
        "id": False,
        "v": True,
        "ts": True,
        "p": True,
    }
