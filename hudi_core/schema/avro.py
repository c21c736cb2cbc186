"""Avro schemas as Hudi writes them, converted to Arrow.

Hudi stores the table schema as Avro (commit `extraMetadata.schema`, `hoodie.table.create.schema`,
log block headers). Conversions follow Spark's `SchemaConverters`, which decided what the Spark
datasource returns: enum -> string, fixed/bytes decimal -> decimal, timestamp-micros -> timestamp
with UTC, local-timestamp-* -> timestamp without time zone, date -> date32.
Every column is nullable in the Arrow form, as Spark reports it; map keys are never null.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from hudi_core.errors import SchemaError

AvroSchema = Any  # parsed Avro JSON: a str, list (union) or dict


def parse_avro_schema(text: str, where: str) -> AvroSchema:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaError(f"{where}: invalid Avro schema JSON: {e}") from e


def avro_to_arrow_schema(avro_schema: AvroSchema) -> pa.Schema:
    """The Arrow schema of an Avro record schema."""
    converter = _Converter()
    arrow_type = converter.convert(avro_schema, "<root>")
    if not pa.types.is_struct(arrow_type):
        raise SchemaError(f"a table schema must be an Avro record, got {avro_schema!r:.80}")
    return pa.schema(list(arrow_type))


def non_null_branch(avro_type: AvroSchema) -> AvroSchema:
    """The one non-null branch of a nullable union (or the type itself)."""
    if isinstance(avro_type, list):
        branches = [b for b in avro_type if b != "null"]
        if len(branches) == 1:
            return branches[0]
    return avro_type


_PRIMITIVES: dict[str, pa.DataType] = {
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}

_LOGICAL: dict[tuple[str, str], pa.DataType] = {
    ("int", "date"): pa.date32(),
    ("int", "time-millis"): pa.time32("ms"),
    ("long", "time-micros"): pa.time64("us"),
    ("long", "timestamp-millis"): pa.timestamp("ms", tz="UTC"),
    ("long", "timestamp-micros"): pa.timestamp("us", tz="UTC"),
    ("long", "timestamp-nanos"): pa.timestamp("ns", tz="UTC"),
    ("long", "local-timestamp-millis"): pa.timestamp("ms"),
    ("long", "local-timestamp-micros"): pa.timestamp("us"),
    ("long", "local-timestamp-nanos"): pa.timestamp("ns"),
    ("string", "uuid"): pa.string(),
}


def decimal_type(precision: int, scale: int) -> pa.DataType:
    return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)


class _Converter:
    """Converts Avro types to Arrow, resolving references to named types."""

    def __init__(self) -> None:
        self._named: dict[str, pa.DataType] = {}

    def _register(self, schema: dict[str, Any], arrow_type: pa.DataType, namespace: str | None) -> None:
        name = schema.get("name")
        if not name:
            return
        ns = schema.get("namespace", namespace)
        self._named[name] = arrow_type
        if ns and "." not in name:
            self._named[f"{ns}.{name}"] = arrow_type

    def convert(self, schema: AvroSchema, where: str, namespace: str | None = None) -> pa.DataType:
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return _PRIMITIVES[schema]
            if schema in self._named:
                return self._named[schema]
            qualified = f"{namespace}.{schema}" if namespace else schema
            if qualified in self._named:
                return self._named[qualified]
            if schema == "null":
                return pa.null()
            raise SchemaError(f"{where}: unknown Avro type {schema!r}")
        if isinstance(schema, list):
            branches = [b for b in schema if b != "null"]
            if len(branches) == 1:
                return self.convert(branches[0], where, namespace)
            if not branches:
                return pa.null()
            raise SchemaError(f"{where}: Avro unions of several non-null types are not supported: {schema}")
        if not isinstance(schema, dict):
            raise SchemaError(f"{where}: malformed Avro type {schema!r}")
        kind = schema.get("type")
        logical = schema.get("logicalType")
        ns = schema.get("namespace", namespace)
        if kind == "record":
            fields = [
                pa.field(f["name"], self.convert(f["type"], f"{where}.{f['name']}", ns), nullable=True)
                for f in schema.get("fields", [])
            ]
            arrow_type = pa.struct(fields)
            self._register(schema, arrow_type, namespace)
            return arrow_type
        if kind == "enum":
            self._register(schema, pa.string(), namespace)
            return pa.string()
        if kind == "fixed":
            if logical == "decimal":
                arrow_type = decimal_type(int(schema["precision"]), int(schema.get("scale", 0)))
            else:
                arrow_type = pa.binary(int(schema["size"]))
            self._register(schema, arrow_type, namespace)
            return arrow_type
        if kind == "array":
            item = self.convert(schema["items"], f"{where}[]", ns)
            return pa.list_(pa.field("element", item, nullable=True))
        if kind == "map":
            value = self.convert(schema["values"], f"{where}{{}}", ns)
            return pa.map_(pa.field("key", pa.string(), nullable=False), pa.field("value", value, nullable=True))
        if isinstance(kind, str) and kind in _PRIMITIVES:
            if kind == "bytes" and logical == "decimal":
                return decimal_type(int(schema["precision"]), int(schema.get("scale", 0)))
            if logical is not None and (kind, logical) in _LOGICAL:
                return _LOGICAL[(kind, logical)]
            return _PRIMITIVES[kind]
        if isinstance(kind, (dict, list)):
            return self.convert(kind, where, ns)
        if isinstance(kind, str):
            return self.convert(kind, where, ns)
        raise SchemaError(f"{where}: unsupported Avro type {schema!r:.120}")
