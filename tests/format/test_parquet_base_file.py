"""Parquet base files: rewriting Spark-written v8 base files gives the same types, footer and filter.

The only accepted type-level difference is the list layout (spec notes §8.2): Hudi 1.0's
parquet-avro writes the legacy 2-level `repeated group array`, pyarrow the standard 3-level
`list`/`element`, so list leaves have other paths and, with nullable elements, one more
definition level. Everything else -- physical type, logical type, converted type -- must match.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core.errors import FileFormatError, HudiConfigError, SchemaError
from hudi_core.file_group.base_file.bloom_filter import BloomFilter
from hudi_core.file_group.base_file.parquet import read_parquet
from hudi_core.file_group.base_file.parquet_writer import java_min_max, write_base_file
from hudi_core.schema.arrow_avro import normalize_for_write, table_avro_schema
from hudi_core.storage import Storage

CORPUS_FILES = [
    # (table, table name, base file name prefix) -- files with lists, maps, structs, decimals, dates, timestamps
    (
        "sample_table/cow/v8_complexkeygen_hivestyle",
        "v8_complexkeygen_hivestyle",
        "fc77c22c-d464-4c45-969f-6fcc0305a792-0_0-34-49",
    ),
    ("sample_table/cow/v8_nonpartitioned", "v8_nonpartitioned", ""),
    ("sample_table/cow/v8_simplekeygen_nonhivestyle", "v8_simplekeygen_nonhivestyle", ""),
]
HOODIE_KEYS = {
    "org.apache.hudi.bloomfilter",
    "hoodie_bloom_filter_type_code",
    "hoodie_min_record_key",
    "hoodie_max_record_key",
}


def _corpus_file(corpus_table: Callable[[str], Path], table: str, prefix: str) -> Path:
    files = sorted(p for p in corpus_table(table).rglob(f"{prefix}*.parquet") if ".hoodie" not in p.parts)
    return files[-1]


def _leaves(parquet_file: pq.ParquetFile) -> dict[str, tuple[Any, ...]]:
    schema = parquet_file.schema
    return {
        schema.column(i).path: (
            schema.column(i).physical_type,
            str(schema.column(i).logical_type),
            schema.column(i).converted_type,
            schema.column(i).max_definition_level,
            schema.column(i).max_repetition_level,
        )
        for i in range(len(schema))
    }


def _rewrite(source: Path, table_name: str, target: Path, bloom: bool = True, **options: Any) -> tuple[pa.Table, int]:
    rows = pq.read_table(source)  # corpus column order: meta columns, then data columns
    data_schema = normalize_for_write(rows).schema
    filter_ = None
    if bloom:
        filter_ = BloomFilter.create()
        filter_.add_keys(rows.column("_hoodie_record_key"))
    size = write_base_file(
        Storage(str(target)), "part/file.parquet", rows, table_avro_schema(data_schema, table_name), filter_, **options
    )
    return rows, size


@pytest.mark.parametrize(("table", "table_name", "prefix"), CORPUS_FILES)
def test_write_base_file_corpus_rows_same_types_except_list_layout(
    table: str, table_name: str, prefix: str, corpus_table: Callable[[str], Path], tmp_path: Path
) -> None:
    source = _corpus_file(corpus_table, table, prefix)
    _, size = _rewrite(source, table_name, tmp_path)
    written = pq.ParquetFile(tmp_path / "part" / "file.parquet")
    assert size == (tmp_path / "part" / "file.parquet").stat().st_size
    spark_leaves = _leaves(pq.ParquetFile(source))
    our_leaves = _leaves(written)

    # Exactly the arrayField leaves differ, by path (array -> list.element) and by one definition level.
    spark_only = sorted(set(spark_leaves) - set(our_leaves))
    ours_only = sorted(set(our_leaves) - set(spark_leaves))
    assert spark_only == ["arrayField.array.arr_struct_f1", "arrayField.array.arr_struct_f2"]
    assert ours_only == ["arrayField.list.element.arr_struct_f1", "arrayField.list.element.arr_struct_f2"]
    for path in spark_only:
        spark = spark_leaves[path]
        ours = our_leaves[path.replace(".array.", ".list.element.")]
        assert ours[:3] == spark[:3]  # physical, logical and converted type agree
        assert (ours[3], ours[4]) == (spark[3] + 1, spark[4])  # nullable element: +1 definition level
    for path in set(spark_leaves) & set(our_leaves):
        assert our_leaves[path] == spark_leaves[path], path
    assert our_leaves["decimalField"][0] == "FIXED_LEN_BYTE_ARRAY"
    assert our_leaves["timestampField"][:2] == (
        "INT64",
        "Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, "
        "force_set_converted_type=false)",
    )
    assert written.metadata.format_version == pq.ParquetFile(source).metadata.format_version == "1.0"


@pytest.mark.parametrize(("table", "table_name", "prefix"), CORPUS_FILES)
def test_write_base_file_corpus_rows_footer_identical(
    table: str, table_name: str, prefix: str, corpus_table: Callable[[str], Path], tmp_path: Path
) -> None:
    source = _corpus_file(corpus_table, table, prefix)
    _rewrite(source, table_name, tmp_path)
    ours = {
        k.decode(): v.decode() for k, v in pq.ParquetFile(tmp_path / "part" / "file.parquet").metadata.metadata.items()
    }
    spark = {k.decode(): v.decode() for k, v in pq.ParquetFile(source).metadata.metadata.items()}
    assert set(ours) == set(spark) == HOODIE_KEYS | {"parquet.avro.schema", "writer.model.name"}
    assert json.loads(ours.pop("parquet.avro.schema")) == json.loads(spark.pop("parquet.avro.schema"))
    assert ours == spark  # bloom filter byte-identical, type code, min/max keys, writer.model.name


@pytest.mark.parametrize(("table", "table_name", "prefix"), CORPUS_FILES)
def test_write_base_file_corpus_rows_read_back_identical(
    table: str, table_name: str, prefix: str, corpus_table: Callable[[str], Path], tmp_path: Path
) -> None:
    source = _corpus_file(corpus_table, table, prefix)
    rows, _ = _rewrite(source, table_name, tmp_path)
    expected = normalize_for_write(rows)
    via_reader = read_parquet(Storage(str(tmp_path)), "part/file.parquet", expected.schema)
    assert via_reader.table.equals(expected)
    plain = pq.read_table(tmp_path / "part" / "file.parquet")
    assert plain.equals(expected)
    assert plain.to_pylist() == rows.to_pylist()


def _small_table(keys: list[str | None]) -> tuple[pa.Table, dict[str, Any]]:
    count = len(keys)
    table = pa.table(
        {
            "_hoodie_commit_time": pa.array(["20250101000000000"] * count, pa.string()),
            "_hoodie_commit_seqno": pa.array([f"20250101000000000_0_{i}" for i in range(count)], pa.string()),
            "_hoodie_record_key": pa.array(keys, pa.string()),
            "_hoodie_partition_path": pa.array([""] * count, pa.string()),
            "_hoodie_file_name": pa.array(["f.parquet"] * count, pa.string()),
            "id": pa.array(range(count), pa.int64()),
            "ts": pa.array(range(count), pa.timestamp("us", tz="UTC")),
            "local": pa.array(range(count), pa.timestamp("us")),
            "at": pa.array(range(count), pa.time64("us")),
        }
    )
    return table, table_avro_schema(table.schema, "t")


def test_write_base_file_without_bloom_only_avro_keys(tmp_path: Path) -> None:
    table, avro = _small_table(["a", "b"])
    write_base_file(Storage(str(tmp_path)), "f.parquet", table, avro, None)
    metadata = pq.ParquetFile(tmp_path / "f.parquet").metadata.metadata
    assert set(metadata) == {b"parquet.avro.schema", b"writer.model.name"}  # no ARROW:schema either


def test_write_base_file_empty_table_no_min_max(tmp_path: Path) -> None:
    table, avro = _small_table([])
    write_base_file(Storage(str(tmp_path)), "f.parquet", table, avro, BloomFilter.create())
    metadata = pq.ParquetFile(tmp_path / "f.parquet").metadata.metadata
    # As Spark writes an empty base file: bloom filter and type code, no min/max record keys.
    assert HOODIE_KEYS - {k.decode() for k in metadata} == {"hoodie_min_record_key", "hoodie_max_record_key"}


def test_write_base_file_timestamps_times_statistics(tmp_path: Path) -> None:
    table, avro = _small_table(["k1", "k2", "k3"])
    bloom = BloomFilter.create()
    bloom.add_keys(table.column("_hoodie_record_key"))
    write_base_file(Storage(str(tmp_path)), "f.parquet", table, avro, bloom)
    parquet_file = pq.ParquetFile(tmp_path / "f.parquet")
    leaves = _leaves(parquet_file)
    assert "isAdjustedToUTC=true" in leaves["ts"][1]
    assert "isAdjustedToUTC=false" in leaves["local"][1]
    assert leaves["at"][:2] == ("INT64", "Time(isAdjustedToUTC=false, timeUnit=microseconds)")
    stats = parquet_file.metadata.row_group(0).column(5).statistics
    assert (stats.min, stats.max) == (0, 2)
    assert parquet_file.metadata.row_group(0).column(0).compression == "ZSTD"  # our default codec
    assert parquet_file.metadata.metadata[b"hoodie_min_record_key"] == b"k1"


@pytest.mark.parametrize(
    ("codec", "expected"), [("gzip", "GZIP"), ("snappy", "SNAPPY"), ("zstd", "ZSTD"), ("none", "UNCOMPRESSED")]
)
def test_write_base_file_codec_applied(codec: str, expected: str, tmp_path: Path) -> None:
    table, avro = _small_table(["a"])
    write_base_file(Storage(str(tmp_path)), "f.parquet", table, avro, None, compression=codec)
    assert pq.ParquetFile(tmp_path / "f.parquet").metadata.row_group(0).column(0).compression == expected


def test_write_base_file_small_row_group_bytes_several_groups(tmp_path: Path) -> None:
    table, avro = _small_table([f"key-{i}" for i in range(1000)])
    write_base_file(Storage(str(tmp_path)), "f.parquet", table, avro, None, row_group_bytes=table.nbytes // 4)
    parquet_file = pq.ParquetFile(tmp_path / "f.parquet")
    assert parquet_file.metadata.num_row_groups >= 4
    assert parquet_file.read().column("id").to_pylist() == list(range(1000))


def test_write_base_file_bad_input_raises(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    table, avro = _small_table(["a"])
    with pytest.raises(HudiConfigError, match="compression"):
        write_base_file(storage, "f.parquet", table, avro, None, compression="brotli9")
    with pytest.raises(SchemaError, match="meta fields"):
        write_base_file(storage, "f.parquet", table.drop_columns(["_hoodie_file_name"]), avro, None)
    with pytest.raises(SchemaError, match="do not match"):
        write_base_file(storage, "f.parquet", table.drop_columns(["id"]), avro, None)
    wrong = table.set_column(5, "id", pa.array(["x"]))
    with pytest.raises(SchemaError, match="'id'"):
        write_base_file(storage, "f.parquet", wrong, avro, None)
    assert not (tmp_path / "f.parquet").exists()


def test_java_min_max_utf16_order_for_supplementary_characters() -> None:
    # U+FFFF < U+10000 by code point (and UTF-8 bytes), but Java compares UTF-16 units: 0xFFFF > 0xD800.
    keys = pa.chunked_array([["\uffff", None], ["\U00010000", "a"]])
    assert java_min_max(keys) == ("a", "\uffff")
    assert java_min_max(pa.array(["\uffff", "\U00010000"])) == ("\U00010000", "\uffff")
    assert java_min_max(pa.array(["b", "a", "c"])) == ("a", "c")
    assert java_min_max(pa.array([None], pa.string())) is None


def test_write_base_file_writer_failure_removes_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table, avro = _small_table(["a"])

    def fail(self: pq.ParquetWriter, *args: Any, **kwargs: Any) -> None:
        raise pa.ArrowInvalid("simulated")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", fail)
    with pytest.raises(FileFormatError, match="simulated"):
        write_base_file(Storage(str(tmp_path)), "p/f.parquet", table, avro, None)
    assert not (tmp_path / "p" / "f.parquet").exists()
