"""Arrow -> Avro for writes: the one mapping from user Arrow data to the Avro schema Hudi stores.

Hudi keeps the table schema as Avro (commit `extraMetadata.schema`, `hoodie.table.create.schema`,
log-block SCHEMA headers, the `parquet.avro.schema` footer; spec notes §8.1/§8.2). Spark + Hudi 1.0
derive it from the DataFrame schema with `AvroConversionUtils.convertStructTypeToAvroSchema`, i.e.
Hudi's copy of Spark's `SchemaConverters.toAvroType` plus `getAvroSchemaWithDefaults`.
:func:`table_avro_schema` reproduces that output for Arrow schemas (verified field by field against
the commit schemas of the v8/v9 conformance tables):

* top record `<table>_record` in namespace `hoodie.<table>` (`getAvroRecordNameAndNamespace`, with
  `HoodieAvroUtils.sanitizeName` applied to the table name);
* every field `["null", T]` with `"default": null`; list items and map values `["null", T]`.
  Arrow nullability is not carried over: Spark SQL tables and our read schema are all-nullable;
* decimal -> `fixed` named `fixed` in namespace `<record namespace>.<record name>.<field>`, size
  `minBytesForPrecision(precision)`; fixed_size_binary -> `fixed` named the same way (Spark has no
  fixed binary; this keeps the Parquet FIXED_LEN_BYTE_ARRAY and the Avro type in agreement);
* date32 -> `{"type": "int", "logicalType": "date"}`; timestamp with a time zone ->
  `timestamp-micros` (Spark TimestampType); timestamp without one -> `local-timestamp-micros`
  (Spark TimestampNTZType); time64[us] -> `time-micros` (no Spark type; Spark reads it as long);
* struct -> record named after its field, namespace `hoodie.<table>.<table>_record[.<parent path>]`;
  list/map items that are structs take the name of the list/map field, as Spark does.

:func:`normalize_for_write` turns arbitrary Arrow data into the types above (and nothing else), so
that every writer path (Parquet base files, Avro log blocks) sees one set of types.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.errors import SchemaError
from hudi_core.schema.meta_fields import META_FIELD_SET, META_FIELDS

AvroDict = dict[str, Any]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INVALID_FIRST = re.compile(r"[^A-Za-z_]")
_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_]")
_MAX_DECIMAL128_PRECISION = 38


def sanitize_name(name: str) -> str:
    """`HoodieAvroUtils.sanitizeName`: invalid Avro name characters become `__`."""
    if not name:
        raise SchemaError("an Avro name must not be empty")
    if _INVALID_FIRST.match(name[0]):
        name = _INVALID_FIRST.sub("__", name, count=1)
    return _INVALID_CHARS.sub("__", name)


def record_name_and_namespace(table_name: str) -> tuple[str, str]:
    """The top-level record name and namespace Hudi derives from the table name."""
    name = sanitize_name(table_name)
    return f"{name}_record", f"hoodie.{name}"


def min_bytes_for_precision(precision: int) -> int:
    """Spark's `minBytesForPrecision`: the fewest bytes whose signed range holds 10^precision - 1."""
    size = 1
    while 2 ** (8 * size - 1) < 10**precision:
        size += 1
    return size


def table_avro_schema(arrow_schema: pa.Schema, table_name: str) -> AvroDict:
    """The Avro record schema of the data columns (meta columns skipped) as Spark + Hudi 1.0 write it.

    Raises:
        SchemaError: a column name is not a valid Avro name, names collide, or a type has no mapping
            (call :func:`normalize_for_write` on the data first).
    """
    name, namespace = record_name_and_namespace(table_name)
    converter = _AvroConverter()
    fields = [f for f in arrow_schema if f.name not in META_FIELD_SET]
    converter.define(f"{namespace}.{name}", name)
    return {
        "type": "record",
        "name": name,
        "namespace": namespace,
        "fields": converter.record_fields(fields, f"{namespace}.{name}", ""),
    }


def with_meta_fields_avro(schema: AvroDict) -> AvroDict:
    """`schema` with the five `_hoodie_*` fields first, as in log SCHEMA headers and Parquet footers."""
    meta: list[AvroDict] = [{"name": m, "type": ["null", "string"], "doc": "", "default": None} for m in META_FIELDS]
    data = [f for f in schema.get("fields", []) if f.get("name") not in META_FIELD_SET]
    return {**schema, "fields": meta + data}


class _AvroConverter:
    """Arrow types -> Avro JSON, tracking defined full names (Avro forbids redefinitions)."""

    def __init__(self) -> None:
        self._defined: dict[str, str] = {}

    def define(self, full_name: str, where: str) -> None:
        if full_name in self._defined:
            raise SchemaError(
                f"{where}: Avro type name {full_name!r} is already used by {self._defined[full_name]}; rename a column"
            )
        self._defined[full_name] = where

    def record_fields(self, fields: list[pa.Field], child_namespace: str, parent_path: str) -> list[AvroDict]:
        seen: set[str] = set()
        out: list[AvroDict] = []
        for f in fields:
            path = f"{parent_path}.{f.name}" if parent_path else f.name
            if not _NAME.match(f.name):
                raise SchemaError(f"column {path!r}: not a valid Avro field name ([A-Za-z_][A-Za-z0-9_]*)")
            if f.name in seen:
                raise SchemaError(f"column {path!r} appears twice")
            seen.add(f.name)
            avro_type = self.convert(f.type, f.name, child_namespace, path)
            out.append({"name": f.name, "type": ["null", avro_type], "default": None})
        return out

    def convert(self, t: pa.DataType, record_name: str, namespace: str, path: str) -> Any:
        """Mirrors `SchemaConverters.toAvroType(t, nullable, recordName, nameSpace)` (without the union)."""
        primitive = _primitive(t)
        if primitive is not None:
            return primitive
        if pa.types.is_decimal(t) or pa.types.is_fixed_size_binary(t):
            full_name = f"{namespace}.{record_name}.fixed"
            self.define(full_name, f"column {path!r}")
            fixed: AvroDict = {"type": "fixed", "name": "fixed", "namespace": f"{namespace}.{record_name}"}
            if pa.types.is_decimal(t):
                fixed.update(
                    size=min_bytes_for_precision(t.precision),
                    logicalType="decimal",
                    precision=t.precision,
                    scale=t.scale,
                )
            else:
                fixed["size"] = t.byte_width
            return fixed
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            items = self.convert(t.value_type, record_name, namespace, f"{path}[]")
            return {"type": "array", "items": ["null", items]}
        if pa.types.is_map(t):
            if not (pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)):
                raise SchemaError(f"column {path!r}: Avro map keys must be strings, got {t.key_type}")
            values = self.convert(t.item_type, record_name, namespace, f"{path}{{}}")
            return {"type": "map", "values": ["null", values]}
        if pa.types.is_struct(t):
            full_name = f"{namespace}.{record_name}"
            self.define(full_name, f"column {path!r}")
            fields = [t.field(i) for i in range(t.num_fields)]
            return {
                "type": "record",
                "name": record_name,
                "namespace": namespace,
                "fields": self.record_fields(fields, full_name, path),
            }
        raise SchemaError(f"column {path!r}: Arrow type {t} has no Avro mapping; call normalize_for_write first")


def _primitive(t: pa.DataType) -> Any:
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        return "int"  # Spark ByteType/ShortType/IntegerType all map to Avro int
    if pa.types.is_int64(t):
        return "long"
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "bytes"
    if pa.types.is_date32(t):
        return {"type": "int", "logicalType": "date"}
    if pa.types.is_timestamp(t) and t.unit == "us":
        return {"type": "long", "logicalType": "timestamp-micros" if t.tz is not None else "local-timestamp-micros"}
    if pa.types.is_time64(t) and t.unit == "us":
        return {"type": "long", "logicalType": "time-micros"}
    return None


# ---- normalize_for_write -----------------------------------------------------------------------


def normalize_for_write(table: pa.Table) -> pa.Table:
    """`table` with every column converted to a type the writers support, or SchemaError.

    Lossless widenings and re-encodings only:

    * int8/int16/uint8/uint16 -> int32, uint32 -> int64, uint64 -> int64 (checked), float16 -> float32;
    * large/view strings and binaries -> string/binary;
    * large and fixed-size lists -> list with the element field named `element`; list views too,
      at the top level only, rebuilt by hand because pyarrow 26 casts them to invalid lists;
    * dictionary encoding -> its values (run-end encoding too, at the top level);
    * date64 -> date32 (checked: whole days); decimal32/64, and decimal256 of precision <= 38, ->
      decimal128;
    * timestamps -> microseconds (ns checked: whole microseconds), tz-aware ones to tz UTC (the same
      instants); time32/time64 -> time64[us] (ns checked).

    Every field becomes nullable (map keys stay required), as the Avro schema says. Tables already
    in this form (everything our readers return) are returned unchanged, as the same object.

    Raises:
        SchemaError: naming the column, for null-typed, union, extension, duration and interval types,
            non-string map keys, and values a conversion would lose.
    """
    columns = []
    fields = []
    changed = False
    for field, original in zip(table.schema, table.columns, strict=True):
        column = original
        if pa.types.is_run_end_encoded(field.type):
            column = pc.run_end_decode(column)  # top level only: pyarrow cannot cast REE
            changed = True
        if pa.types.is_list_view(column.type) or pa.types.is_large_list_view(column.type):
            column = pa.chunked_array([_list_view_to_list(c) for c in column.chunks], pa.list_(column.type.value_field))
            changed = True
        target = _target_type(column.type, field.name)
        if _same_type(column.type, target) and field.nullable:
            columns.append(column)
            fields.append(field.with_type(column.type))
            continue
        changed = True
        try:
            converted = column.cast(target, safe=True)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
            raise SchemaError(f"column {field.name!r}: cannot convert {column.type} to {target} losslessly: {e}") from e
        columns.append(converted)
        fields.append(pa.field(field.name, target, nullable=True, metadata=field.metadata))
    if not changed:
        return table
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=table.schema.metadata))


_SAME = (
    pa.types.is_boolean,
    pa.types.is_int32,
    pa.types.is_int64,
    pa.types.is_float32,
    pa.types.is_float64,
    pa.types.is_string,
    pa.types.is_binary,
    pa.types.is_fixed_size_binary,
    pa.types.is_date32,
)
_TO_INT32 = (pa.types.is_int8, pa.types.is_int16, pa.types.is_uint8, pa.types.is_uint16)


def _target_type(t: pa.DataType, path: str) -> pa.DataType:
    """The writable type for `t` (raises SchemaError naming `path` when there is none)."""
    if isinstance(t, pa.BaseExtensionType):
        raise SchemaError(f"column {path!r}: extension type {t} is not supported; cast it to its storage type")
    if any(check(t) for check in _SAME):
        return t
    if pa.types.is_dictionary(t):
        return _target_type(t.value_type, path)
    if pa.types.is_null(t):
        raise SchemaError(f"column {path!r} has Arrow type null (all values null, type unknown); cast it to a type")
    if any(check(t) for check in _TO_INT32):
        return pa.int32()  # Avro has no ints narrower than 32 bits
    if pa.types.is_uint32(t) or pa.types.is_uint64(t):
        return pa.int64()
    if pa.types.is_float16(t):
        return pa.float32()
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_date64(t):
        return pa.date32()
    if pa.types.is_timestamp(t):
        return pa.timestamp("us", tz="UTC" if t.tz is not None else None)
    if pa.types.is_time(t):
        return pa.time64("us")
    if pa.types.is_decimal(t):
        if pa.types.is_decimal256(t) and t.precision > _MAX_DECIMAL128_PRECISION:
            return t  # what the Avro reader returns for precision > 38
        return pa.decimal128(t.precision, t.scale)
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        # pyarrow 26 casts list views to invalid lists; only top-level ones are rebuilt by hand.
        raise SchemaError(f"column {path!r}: nested {t} is not supported; convert it to a list first")
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field("element", _target_type(t.value_type, f"{path}[]"), nullable=True))
    if pa.types.is_map(t):
        key = _target_type(t.key_type, f"{path}.key")
        if not pa.types.is_string(key):
            raise SchemaError(f"column {path!r}: map keys must be strings for Avro, got {t.key_type}")
        value = _target_type(t.item_type, f"{path}.value")
        return pa.map_(pa.field("key", key, nullable=False), pa.field("value", value, nullable=True))
    if pa.types.is_struct(t):
        if t.num_fields == 0:
            raise SchemaError(f"column {path!r}: a struct without fields has no Avro/Parquet form")
        return pa.struct(
            [
                pa.field(t.field(i).name, _target_type(t.field(i).type, f"{path}.{t.field(i).name}"), nullable=True)
                for i in range(t.num_fields)
            ]
        )
    if pa.types.is_union(t):
        raise SchemaError(f"column {path!r}: union type {t} is not supported")
    if pa.types.is_duration(t) or pa.types.is_interval(t):
        raise SchemaError(f"column {path!r}: {t} has no Hudi/Avro mapping; store it as an integer")
    raise SchemaError(f"column {path!r}: Arrow type {t} is not supported for writing")


def _list_view_to_list(array: pa.Array) -> pa.Array:
    """A list array with the values of a (large) list view, in logical order."""
    lengths = pc.list_value_length(array).fill_null(0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int32)
    return pa.ListArray.from_arrays(
        pa.array(offsets), pc.list_flatten(array), type=pa.list_(array.type.value_field), mask=array.is_null()
    )


def _same_type(a: pa.DataType, b: pa.DataType) -> bool:
    """Type equality that also compares nested field names and nullability (== ignores list field names)."""
    if a != b:
        return False
    if pa.types.is_map(a):
        # The entries/key/value names carry no meaning: Parquet always gets `key_value`, `key`, `value`.
        return a.item_field.nullable == b.item_field.nullable and _same_type(a.item_type, b.item_type)
    if a.num_fields == 0:
        return True
    for i in range(a.num_fields):
        fa, fb = a.field(i), b.field(i)
        if fa.name != fb.name or fa.nullable != fb.nullable or not _same_type(fa.type, fb.type):
            return False
    return True
