from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_core.errors import SchemaError
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.conform import conform_array


def test_avro_to_arrow_schema_every_hudi_type() -> None:
    schema = {
        "type": "record",
        "name": "r",
        "namespace": "ns",
        "fields": [
            {"name": "b", "type": ["null", "boolean"]},
            {"name": "i", "type": "int"},
            {"name": "l", "type": ["long", "null"]},
            {"name": "f", "type": "float"},
            {"name": "d", "type": "double"},
            {"name": "s", "type": "string"},
            {"name": "y", "type": "bytes"},
            {
                "name": "dec",
                "type": {
                    "type": "fixed",
                    "name": "fixed",
                    "size": 5,
                    "logicalType": "decimal",
                    "precision": 10,
                    "scale": 5,
                },
            },
            {"name": "dec2", "type": {"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 2}},
            {"name": "dt", "type": {"type": "int", "logicalType": "date"}},
            {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "ltsu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
            {"name": "arr", "type": {"type": "array", "items": ["null", "int"]}},
            {"name": "m", "type": {"type": "map", "values": "string"}},
            {
                "name": "rec",
                "type": ["null", {"type": "record", "name": "inner", "fields": [{"name": "x", "type": "int"}]}],
            },
            {"name": "ref", "type": ["null", "inner"]},
            {"name": "fx", "type": {"type": "fixed", "name": "f16", "size": 16}},
        ],
    }
    arrow = avro_to_arrow_schema(schema)
    assert [str(f.type) for f in arrow] == [
        "bool",
        "int32",
        "int64",
        "float",
        "double",
        "string",
        "binary",
        "decimal128(10, 5)",
        "decimal256(40, 2)",
        "date32[day]",
        "timestamp[ms, tz=UTC]",
        "timestamp[us, tz=UTC]",
        "timestamp[us]",
        "string",
        "list<element: int32>",
        "map<string, string>",
        "struct<x: int32>",
        "struct<x: int32>",
        "fixed_size_binary[16]",
    ]
    assert all(f.nullable for f in arrow)


def test_avro_to_arrow_schema_multi_branch_union_raises() -> None:
    schema = {"type": "record", "name": "r", "fields": [{"name": "u", "type": ["int", "string"]}]}
    with pytest.raises(SchemaError, match="unions of several non-null types"):
        avro_to_arrow_schema(schema)


def test_conform_array_nested_evolution_added_fields_and_promotions() -> None:
    source = pa.array(
        [[{"x": 1}], None, []], pa.list_(pa.field("array", pa.struct([pa.field("x", pa.int32(), nullable=False)])))
    )
    target = pa.list_(pa.field("element", pa.struct([("x", pa.int64()), ("y", pa.string())])))
    result = conform_array(source.slice(0, 3), target, "c")
    assert result.type == target
    assert result.to_pylist() == [[{"x": 1, "y": None}], None, []]
    assert conform_array(pa.array([1.5], pa.float32()), pa.float64(), "f").to_pylist() == [1.5]


def test_conform_array_impossible_cast_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match="cannot read"):
        conform_array(pa.array(["abc"]), pa.int32(), "t: column c")
