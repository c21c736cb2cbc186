"""Hudi's Avro wrapper records for values inside unions (`HoodieMetadata.avsc`).

Delete blocks carry each delete's ordering value, and metadata-table column statistics their
min/max values, as a union of one-field records (`IntWrapper{value: int}`, ...). The union's
branch order is part of the on-disk format: branch 2 is IntWrapper, 3 LongWrapper, and so on.
"""

from __future__ import annotations

import decimal
from typing import Any

import pyarrow as pa

NAMESPACE = "org.apache.hudi.avro.model"


def _wrapper(name: str, value_type: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": NAMESPACE, "fields": [{"name": "value", "type": value_type}]}


# Branches 1..11 of the ordering-value union, in on-disk order (branch 0 is null).
WRAPPERS: tuple[dict[str, Any], ...] = (
    _wrapper("BooleanWrapper", "boolean"),
    _wrapper("IntWrapper", "int"),
    _wrapper("LongWrapper", "long"),
    _wrapper("FloatWrapper", "float"),
    _wrapper("DoubleWrapper", "double"),
    _wrapper("BytesWrapper", "bytes"),
    _wrapper("StringWrapper", "string"),
    _wrapper("DateWrapper", "int"),
    _wrapper("DecimalWrapper", {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15}),
    _wrapper("TimeMicrosWrapper", {"type": "long", "logicalType": "time-micros"}),
    _wrapper("TimestampMicrosWrapper", "long"),
)
LOCAL_DATE_WRAPPER = _wrapper("LocalDateWrapper", "int")

ARRAY_WRAPPER: dict[str, Any] = {
    "type": "record",
    "name": "ArrayWrapper",
    "namespace": NAMESPACE,
    "fields": [
        {
            "name": "wrappedValues",
            "type": [
                "null",
                {
                    "type": "array",
                    "items": ["null", *(f"{NAMESPACE}.{w['name']}" for w in WRAPPERS), LOCAL_DATE_WRAPPER],
                },
            ],
            "default": None,
        }
    ],
}

# The writer schema of delete blocks (log block version 3): `HoodieDeleteRecordList` of Hudi 1.x.
DELETE_RECORD_LIST_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "HoodieDeleteRecordList",
    "namespace": NAMESPACE,
    "fields": [
        {
            "name": "deleteRecordList",
            "type": {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "HoodieDeleteRecord",
                    "fields": [
                        {"name": "recordKey", "type": ["null", "string"], "default": None},
                        {"name": "partitionPath", "type": ["null", "string"], "default": None},
                        {"name": "orderingVal", "type": ["null", *WRAPPERS, ARRAY_WRAPPER], "default": None},
                    ],
                },
            },
        }
    ],
}


def wrapper_short_name(full_name: str) -> str:
    return full_name.rsplit(".", 1)[-1]


def wrap_value(value: Any, arrow_type: pa.DataType) -> tuple[str, dict[str, Any]] | None:
    """A value as the wrapper-union branch Hudi uses for its type (notes §4.5): (full name, record)."""
    if value is None:
        return None
    if pa.types.is_boolean(arrow_type):
        name, wrapped = "BooleanWrapper", value
    elif pa.types.is_int8(arrow_type) or pa.types.is_int16(arrow_type) or pa.types.is_int32(arrow_type):
        name, wrapped = "IntWrapper", int(value)
    elif pa.types.is_int64(arrow_type):
        name, wrapped = "LongWrapper", int(value)
    elif pa.types.is_float32(arrow_type):
        name, wrapped = "FloatWrapper", float(value)
    elif pa.types.is_float64(arrow_type):
        name, wrapped = "DoubleWrapper", float(value)
    elif pa.types.is_string(arrow_type):
        name, wrapped = "StringWrapper", value
    elif pa.types.is_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        name, wrapped = "BytesWrapper", bytes(value)
    elif pa.types.is_date32(arrow_type):
        name, wrapped = "DateWrapper", int(value)
    elif pa.types.is_decimal(arrow_type):
        name, wrapped = "DecimalWrapper", decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-15))
    elif pa.types.is_timestamp(arrow_type):
        name, wrapped = "TimestampMicrosWrapper", int(value)
    elif pa.types.is_time64(arrow_type):
        name, wrapped = "TimeMicrosWrapper", int(value)
    else:
        return None
    return f"{NAMESPACE}.{name}", {"value": wrapped}


def raw_values(ordering: pa.Array) -> list[Any]:
    """Values in the form their wrapper stores (days, micros, ...)."""
    kind = ordering.type
    if pa.types.is_date32(kind):
        ordering = ordering.cast(pa.int32())
    elif pa.types.is_timestamp(kind):
        ordering = ordering.cast(pa.timestamp("us", tz=kind.tz)).cast(pa.int64())
    elif pa.types.is_time64(kind) or pa.types.is_time32(kind):
        ordering = ordering.cast(pa.time64("us")).cast(pa.int64())
    values: list[Any] = ordering.to_pylist()
    return values
