"""Hudi's Avro wrapper records for values inside unions (`HoodieMetadata.avsc`).

Delete blocks carry each delete's ordering value, and metadata-table column statistics their
min/max values, as a union of one-field records (`IntWrapper{value: int}`, ...). The union's
branch order is part of the on-disk format: branch 2 is IntWrapper, 3 LongWrapper, and so on.
"""

from __future__ import annotations

from typing import Any

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
