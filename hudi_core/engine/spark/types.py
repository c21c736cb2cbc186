"""Schemas between Arrow and Spark, and Arrow data in exactly the shape Spark declared."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from hudi_core.schema.conform import conform_table

# Spark holds timestamps as UTC microseconds; its Arrow batches say so.
SPARK_TIMEZONE = "UTC"


def spark_schema(schema: pa.Schema) -> StructType:
    """The Spark schema of an Arrow schema (every field nullable, as Hudi's Avro schemas are)."""
    return from_arrow_schema(pa.schema([f.with_nullable(True) for f in schema]))


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema Spark expects batches of `schema` in."""
    return to_arrow_schema(schema, timezone=SPARK_TIMEZONE)


def batches_for_spark(table: pa.Table, schema: pa.Schema, max_rows: int = 65536) -> Iterator[pa.RecordBatch]:
    """`table` as record batches of exactly `schema` (names, order, types): Spark checks."""
    conformed = conform_table(table, schema, "spark batch")
    for batch in conformed.to_batches(max_chunksize=max_rows):
        yield pa.RecordBatch.from_arrays(batch.columns, schema=schema)
