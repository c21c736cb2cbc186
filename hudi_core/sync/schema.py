"""A table's schema as catalogs store it: Hive column types, and the Spark schema JSON that Spark
reads a data source table by (`spark.sql.sources.schema.*`).

Types follow Apache Hudi's sync, which converts the table's Avro schema through Parquet
(`HiveSchemaUtil`): 8- and 16-bit integers are Avro ints, so `int`; timestamps are `bigint` unless
`hoodie.datasource.hive_sync.support_timestamp` (then `timestamp`); strings, enums and JSON are
`string`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from hudi_core.errors import MetaSyncError


def hive_type(arrow_type: pa.DataType, support_timestamp: bool) -> str:
    """The Hive type of a column of `arrow_type`."""
    t = arrow_type
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t) or pa.types.is_uint8(t):
        return "int"
    if pa.types.is_uint16(t):
        return "int"
    if pa.types.is_integer(t):
        return "bigint"
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_dictionary(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "binary"
    if pa.types.is_date(t):
        return "date"
    if pa.types.is_timestamp(t):
        return "timestamp" if support_timestamp else "bigint"
    if pa.types.is_time(t):
        return "int" if t.bit_width == 32 else "bigint"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return f"array<{hive_type(t.value_type, support_timestamp)}>"
    if pa.types.is_map(t):
        return f"map<{hive_type(t.key_type, support_timestamp)},{hive_type(t.item_type, support_timestamp)}>"
    if pa.types.is_struct(t):
        fields = ",".join(f"{f.name}:{hive_type(f.type, support_timestamp)}" for f in t)
        return f"struct<{fields}>"
    raise MetaSyncError(f"no Hive type for Arrow type {t}")


def spark_type(arrow_type: pa.DataType) -> Any:
    """The Spark SQL type of a column of `arrow_type`, in Spark's JSON form."""
    t = arrow_type
    simple: list[tuple[Any, str]] = [
        (pa.types.is_boolean, "boolean"),
        (lambda x: pa.types.is_int8(x) or pa.types.is_int16(x) or pa.types.is_int32(x), "integer"),
        (lambda x: pa.types.is_uint8(x) or pa.types.is_uint16(x), "integer"),
        (pa.types.is_integer, "long"),
        (lambda x: pa.types.is_float16(x) or pa.types.is_float32(x), "float"),
        (pa.types.is_float64, "double"),
        (lambda x: pa.types.is_string(x) or pa.types.is_large_string(x) or pa.types.is_dictionary(x), "string"),
        (
            lambda x: pa.types.is_binary(x) or pa.types.is_large_binary(x) or pa.types.is_fixed_size_binary(x),
            "binary",
        ),
        (pa.types.is_date, "date"),
    ]
    for matches, name in simple:
        if matches(t):
            return name
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pa.types.is_time(t):
        return "integer" if t.bit_width == 32 else "long"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return {"type": "array", "elementType": spark_type(t.value_type), "containsNull": t.value_field.nullable}
    if pa.types.is_map(t):
        return {
            "type": "map",
            "keyType": spark_type(t.key_type),
            "valueType": spark_type(t.item_type),
            "valueContainsNull": t.item_field.nullable,
        }
    if pa.types.is_struct(t):
        return spark_struct(list(t))
    raise MetaSyncError(f"no Spark type for Arrow type {t}")


def spark_struct(fields: Sequence[pa.Field]) -> dict[str, Any]:
    return {
        "type": "struct",
        "fields": [
            {"name": f.name, "type": spark_type(f.type), "nullable": f.nullable, "metadata": {}} for f in fields
        ],
    }


def spark_table_properties(schema: pa.Schema, partition_fields: Sequence[str], part_length: int) -> dict[str, str]:
    """Spark's data source table properties: its provider, the schema JSON in parts of at most
    `part_length` characters with the partition columns last, and the partition columns."""
    data = [f for f in schema if f.name not in partition_fields]
    partitions = [
        schema.field(name) if name in schema.names else pa.field(name, pa.string()) for name in partition_fields
    ]
    text = json.dumps(spark_struct([*data, *partitions]), separators=(",", ":"))
    # Apache Hudi writes these two with a space (its JSON is built by hand); kept byte for byte.
    text = text.replace('{"type":"array","', '{"type":"array", "').replace('{"type":"map","', '{"type":"map", "')
    parts = [text[i : i + part_length] for i in range(0, len(text), part_length)]
    properties = {
        "spark.sql.sources.provider": "hudi",
        "spark.sql.sources.schema.numParts": str(len(parts)),
        **{f"spark.sql.sources.schema.part.{i}": part for i, part in enumerate(parts)},
    }
    if partition_fields:
        properties["spark.sql.sources.schema.numPartCols"] = str(len(partition_fields))
        properties.update({f"spark.sql.sources.schema.partCol.{i}": name for i, name in enumerate(partition_fields)})
    return properties
