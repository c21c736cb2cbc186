"""Arrow -> Avro: equality with the schemas Spark + Hudi wrote, and normalize_for_write conversions."""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_core import HudiTable
from hudi_core.errors import SchemaError
from hudi_core.schema.arrow_avro import (
    min_bytes_for_precision,
    normalize_for_write,
    sanitize_name,
    table_avro_schema,
    with_meta_fields_avro,
)
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.meta_fields import META_FIELDS, without_meta_fields
from tests.corpus import corpus_tables


def _properties(base: Path) -> dict[str, str]:
    lines = (base / ".hoodie" / "hoodie.properties").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def _latest_commit_schema(base: Path) -> dict[str, Any] | None:
    """`extraMetadata.schema` of the latest completed (delta/replace) commit: Avro in v8/v9, JSON in v6."""
    v8 = sorted((base / ".hoodie" / "timeline").glob("*_*.*commit"))
    if v8:
        with open(v8[-1], "rb") as f:
            record = next(fastavro.reader(f))
        assert isinstance(record, dict)
        text = record["extraMetadata"]["schema"]
    else:
        v6 = sorted((base / ".hoodie").glob("*.*commit"))
        if not v6:
            return None
        text = json.loads(v6[-1].read_text(encoding="utf-8"))["extraMetadata"]["schema"]
    schema: dict[str, Any] = json.loads(text)
    return schema


# Every table with a completed commit. Tables without one (v6_empty, v8_empty) only have
# `hoodie.table.create.schema`, which Spark's catalog writes in another shape (`["int","null"]`, no
# defaults), so there is nothing of Hudi's writer to compare with. table_all_data_types was
# generated from an Avro schema with enum, timestamp-millis and local-timestamp fields, but its
# commit schema already holds Spark's converted types (string, timestamp-micros), so it matches too.
SCHEMA_TABLES = [t.name for t in corpus_tables() if t.name.rsplit("/", 1)[-1] not in ("v6_empty", "v8_empty")]


@pytest.mark.parametrize("name", SCHEMA_TABLES)
def test_table_avro_schema_corpus_read_schema_equals_commit_schema(
    name: str, corpus_table: Callable[[str], Path]
) -> None:
    base = corpus_table(name)
    expected = _latest_commit_schema(base)
    assert expected is not None
    arrow_schema = without_meta_fields(HudiTable(str(base)).schema)
    actual = table_avro_schema(arrow_schema, _properties(base)["hoodie.table.name"])
    assert actual == expected
    fastavro.parse_schema(actual)


@pytest.mark.parametrize("name", [t.name for t in corpus_tables()])
def test_normalize_for_write_corpus_read_unchanged(name: str, corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table(name))).read()
    assert normalize_for_write(table) is table


# ---- table_avro_schema ------------------------------------------------------------------------


def test_table_avro_schema_every_type_spark_shape() -> None:
    inner = pa.struct([pa.field("d", pa.decimal128(5, 1)), pa.field("s", pa.string())])
    schema = pa.schema(
        [
            pa.field("_hoodie_record_key", pa.string()),  # meta columns are skipped
            pa.field("b", pa.bool_()),
            pa.field("i8", pa.int8()),
            pa.field("i", pa.int32(), nullable=False),  # still ["null", T]: Spark tables are all-nullable
            pa.field("l", pa.int64()),
            pa.field("f", pa.float32()),
            pa.field("d", pa.float64()),
            pa.field("s", pa.string()),
            pa.field("y", pa.binary()),
            pa.field("fx", pa.binary(4)),
            pa.field("dec", pa.decimal128(38, 2)),
            pa.field("big", pa.decimal256(40, 0)),
            pa.field("dt", pa.date32()),
            pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("ntz", pa.timestamp("us")),
            pa.field("tm", pa.time64("us")),
            pa.field("arr", pa.list_(pa.field("element", inner))),
            pa.field("decs", pa.list_(pa.decimal128(3, 0))),
            pa.field("m", pa.map_(pa.string(), inner)),
            pa.field("st", pa.struct([pa.field("x", inner), pa.field("n", pa.list_(inner))])),
        ]
    )
    avro = table_avro_schema(schema, "my-table")
    ns = "hoodie.my__table.my__table_record"

    def nullable(t: Any) -> list[Any]:
        return ["null", t]

    def record(name: str, namespace: str) -> dict[str, Any]:
        return {
            "type": "record",
            "name": name,
            "namespace": namespace,
            "fields": [
                {"name": "d", "type": nullable(_fixed(f"{namespace}.{name}.d", 3, 5, 1)), "default": None},
                {"name": "s", "type": nullable("string"), "default": None},
            ],
        }

    expected_types: dict[str, Any] = {
        "b": "boolean",
        "i8": "int",
        "i": "int",
        "l": "long",
        "f": "float",
        "d": "double",
        "s": "string",
        "y": "bytes",
        "fx": {"type": "fixed", "name": "fixed", "namespace": f"{ns}.fx", "size": 4},
        "dec": _fixed(f"{ns}.dec", 16, 38, 2),
        "big": _fixed(f"{ns}.big", 17, 40, 0),
        "dt": {"type": "int", "logicalType": "date"},
        "ts": {"type": "long", "logicalType": "timestamp-micros"},
        "ntz": {"type": "long", "logicalType": "local-timestamp-micros"},
        "tm": {"type": "long", "logicalType": "time-micros"},
        "arr": {"type": "array", "items": nullable(record("arr", ns))},
        "decs": {"type": "array", "items": nullable(_fixed(f"{ns}.decs", 2, 3, 0))},
        "m": {"type": "map", "values": nullable(record("m", ns))},
        "st": {
            "type": "record",
            "name": "st",
            "namespace": ns,
            "fields": [
                {"name": "x", "type": nullable(record("x", f"{ns}.st")), "default": None},
                {
                    "name": "n",
                    "type": nullable({"type": "array", "items": nullable(record("n", f"{ns}.st"))}),
                    "default": None,
                },
            ],
        },
    }
    assert avro["name"] == "my__table_record"
    assert avro["namespace"] == "hoodie.my__table"
    assert [f["name"] for f in avro["fields"]] == list(expected_types)
    for field in avro["fields"]:
        assert field == {"name": field["name"], "type": ["null", expected_types[field["name"]]], "default": None}
    parsed = fastavro.parse_schema(avro)
    assert isinstance(parsed, dict)
    assert parsed["name"] == "hoodie.my__table.my__table_record"
    assert avro_to_arrow_schema(avro).names == schema.names[1:]


def _fixed(namespace: str, size: int, precision: int, scale: int) -> dict[str, Any]:
    return {
        "type": "fixed",
        "name": "fixed",
        "namespace": namespace,
        "size": size,
        "logicalType": "decimal",
        "precision": precision,
        "scale": scale,
    }


def test_min_bytes_for_precision_spark_table() -> None:
    # Spark: the smallest n with 2^(8n-1) >= 10^precision.
    expected = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 9: 4, 10: 5, 15: 7, 18: 8, 19: 9, 20: 9, 28: 12, 38: 16, 76: 32}
    assert {p: min_bytes_for_precision(p) for p in expected} == expected


def test_sanitize_name_hudi_rules() -> None:
    assert sanitize_name("trips") == "trips"
    assert sanitize_name("1st-table.v2") == "__st__table__v2"
    assert sanitize_name("_ok9") == "_ok9"


@pytest.mark.parametrize(
    ("field", "message"),
    [
        (pa.field("bad name", pa.int32()), "not a valid Avro field name"),
        (pa.field("m", pa.map_(pa.int32(), pa.int32())), "map keys must be strings"),
        (pa.field("t", pa.timestamp("ns")), "normalize_for_write"),
        (pa.field("u", pa.uint64()), "normalize_for_write"),
        (pa.field("s", pa.struct([pa.field("1x", pa.int32())])), "'s.1x'"),
    ],
)
def test_table_avro_schema_unmappable_raises(field: pa.Field, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        table_avro_schema(pa.schema([field]), "t")


def test_table_avro_schema_duplicate_column_raises() -> None:
    with pytest.raises(SchemaError, match="appears twice"):
        table_avro_schema(pa.schema([pa.field("a", pa.int32()), pa.field("a", pa.int64())]), "t")


def test_with_meta_fields_avro_prepends_once() -> None:
    base = table_avro_schema(pa.schema([pa.field("id", pa.int32())]), "t")
    once = with_meta_fields_avro(base)
    assert [f["name"] for f in once["fields"]] == [*META_FIELDS, "id"]
    assert once["fields"][0] == {"name": META_FIELDS[0], "type": ["null", "string"], "doc": "", "default": None}
    assert with_meta_fields_avro(once) == once
    assert base["fields"][0]["name"] == "id"  # input not modified


# ---- normalize_for_write ----------------------------------------------------------------------

_UTC = datetime.UTC
CONVERSIONS: list[tuple[pa.Array, pa.DataType, list[Any]]] = [
    (pa.array([-128, None], pa.int8()), pa.int32(), [-128, None]),
    (pa.array([-32768], pa.int16()), pa.int32(), [-32768]),
    (pa.array([255], pa.uint8()), pa.int32(), [255]),
    (pa.array([65535], pa.uint16()), pa.int32(), [65535]),
    (pa.array([2**32 - 1], pa.uint32()), pa.int64(), [2**32 - 1]),
    (pa.array([2**63 - 1], pa.uint64()), pa.int64(), [2**63 - 1]),
    (pa.array([np.float16(1.5)], pa.float16()), pa.float32(), [1.5]),
    (pa.array(["a"], pa.large_string()), pa.string(), ["a"]),
    (pa.array(["a"], pa.string_view()), pa.string(), ["a"]),
    (pa.array([b"a"], pa.large_binary()), pa.binary(), [b"a"]),
    (pa.array([b"a"], pa.binary_view()), pa.binary(), [b"a"]),
    (pa.array(["x", "y", "x"]).dictionary_encode(), pa.string(), ["x", "y", "x"]),
    (pc.run_end_encode(pa.array([7, 7, 8])), pa.int64(), [7, 7, 8]),
    (pa.array([86400000 * 3], pa.date64()), pa.date32(), [datetime.date(1970, 1, 4)]),
    (pa.array([1_000], pa.timestamp("ns")), pa.timestamp("us"), [datetime.datetime(1970, 1, 1, 0, 0, 0, 1)]),
    (
        pa.array([1], pa.timestamp("ms", tz="UTC")),
        pa.timestamp("us", tz="UTC"),
        [datetime.datetime(1970, 1, 1, 0, 0, 0, 1000, _UTC)],
    ),
    (
        pa.array([1], pa.timestamp("s", tz="Asia/Tokyo")),
        pa.timestamp("us", tz="UTC"),
        [datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=_UTC)],
    ),
    (pa.array([1], pa.time32("s")), pa.time64("us"), [datetime.time(0, 0, 1)]),
    (pa.array([1], pa.time32("ms")), pa.time64("us"), [datetime.time(0, 0, 0, 1000)]),
    (pa.array([2_000], pa.time64("ns")), pa.time64("us"), [datetime.time(0, 0, 0, 2)]),
    (pa.array([decimal.Decimal("1.5")], pa.decimal32(3, 1)), pa.decimal128(3, 1), [decimal.Decimal("1.5")]),
    (pa.array([decimal.Decimal("1.5")], pa.decimal64(12, 1)), pa.decimal128(12, 1), [decimal.Decimal("1.5")]),
    (pa.array([decimal.Decimal("1.5")], pa.decimal256(20, 1)), pa.decimal128(20, 1), [decimal.Decimal("1.5")]),
    (pa.array([[1, None]], pa.large_list(pa.int8())), pa.list_(pa.field("element", pa.int32())), [[1, None]]),
    (pa.array([[1, 2]], pa.list_(pa.int64(), 2)), pa.list_(pa.field("element", pa.int64())), [[1, 2]]),
    (pa.array([[1]], pa.list_view(pa.int64())), pa.list_(pa.field("element", pa.int64())), [[1]]),
    (
        pa.array([[1]], pa.list_(pa.field("item", pa.int64(), nullable=False))),
        pa.list_(pa.field("element", pa.int64())),
        [[1]],
    ),
    (
        pa.array([[("k", 1)]], pa.map_(pa.large_string(), pa.uint16())),
        pa.map_(pa.field("key", pa.string(), nullable=False), pa.field("value", pa.int32())),
        [[("k", 1)]],
    ),
    (
        pa.array(
            [{"a": 1, "b": [1]}],
            pa.struct([pa.field("a", pa.int16(), nullable=False), pa.field("b", pa.large_list(pa.int32()))]),
        ),
        pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.list_(pa.field("element", pa.int32())))]),
        [{"a": 1, "b": [1]}],
    ),
]


@pytest.mark.parametrize(("array", "target", "values"), CONVERSIONS, ids=[str(c[0].type) for c in CONVERSIONS])
def test_normalize_for_write_conversion_lossless(array: pa.Array, target: pa.DataType, values: list[Any]) -> None:
    table = pa.table({"c": array, "keep": pa.array(range(len(array)), pa.int64())})
    result = normalize_for_write(table)
    assert result.schema.field("c").type == target
    assert str(result.schema.field("c").type) == str(target)  # also list field names
    assert result.schema.field("c").nullable
    assert result.column("c").to_pylist() == values
    assert result.column("keep") is table.column("keep") or result.column("keep").equals(table.column("keep"))
    assert normalize_for_write(result) is result  # idempotent


def test_normalize_for_write_non_nullable_field_becomes_nullable() -> None:
    table = pa.table({"c": pa.array([1], pa.int64())}, schema=pa.schema([pa.field("c", pa.int64(), nullable=False)]))
    result = normalize_for_write(table)
    assert result.schema.field("c").nullable
    assert normalize_for_write(result) is result


ERRORS: list[tuple[pa.Array, str]] = [
    (pa.array([1_001], pa.timestamp("ns")), "would lose data"),
    (pa.array([2**62], pa.timestamp("s")), "out of bounds"),
    (pa.array([1_001], pa.time64("ns")), "would lose data"),
    (pa.array([2**63], pa.uint64()), "not in range"),
    (pa.array([1], pa.date64()), "would lose data"),
    (pa.array([None, None]), "type null"),
    (pa.array([[None]], pa.list_(pa.null())), r"'c\[\]' has Arrow type null"),
    (pa.array([1], pa.duration("s")), "no Hudi/Avro mapping"),
    (pa.array([(1, 2, 3)], pa.month_day_nano_interval()), "no Hudi/Avro mapping"),
    (pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1]), pa.array(["a"])]), "union"),
    (pa.array([b"0123456789abcdef"], pa.uuid()), "extension type"),
    (pa.array([[(1, "a")]], pa.map_(pa.int32(), pa.string())), "map keys must be strings"),
    (pa.array([{"x": 1}], pa.struct([pa.field("x", pa.duration("ms"))])), r"'c\.x'"),
    (pa.array([{"x": [1]}], pa.struct([pa.field("x", pa.list_view(pa.int64()))])), "nested list_view"),
]


@pytest.mark.parametrize(("array", "message"), ERRORS, ids=[str(e[0].type) for e in ERRORS])
def test_normalize_for_write_unsupported_or_lossy_raises_schema_error(array: pa.Array, message: str) -> None:
    with pytest.raises(SchemaError, match=message) as info:
        normalize_for_write(pa.table({"c": array}))
    assert "'c" in str(info.value)
