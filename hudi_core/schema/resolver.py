"""Finding a table's schema: the latest commit's `extraMetadata.schema`, else the create schema.

This is what Hudi's `TableSchemaResolver` does; time travel resolves it as of the queried instant.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from hudi_core.config.table import HudiTableConfig, TableConfig
from hudi_core.errors import SchemaError
from hudi_core.schema.avro import AvroSchema, avro_to_arrow_schema, parse_avro_schema
from hudi_core.schema.meta_fields import with_meta_fields
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant


def resolve_avro_schema(timeline: Timeline, config: TableConfig, instants: Sequence[Instant]) -> AvroSchema | None:
    """The Avro table schema (without meta fields) as of the last of `instants` that records one."""
    for instant in reversed(instants):
        schema_text = timeline.commit_metadata(instant).schema
        if schema_text:
            return parse_avro_schema(schema_text, f"schema of instant {instant.requested_time}")
    if config.create_schema:
        return parse_avro_schema(config.create_schema, HudiTableConfig.CREATE_SCHEMA.key)
    return None


def table_arrow_schema(avro_schema: AvroSchema | None, table_name: str) -> pa.Schema:
    """The Arrow schema a read returns: the five meta columns, then the data columns."""
    if avro_schema is None:
        raise SchemaError(
            f"table {table_name} records no schema (no commit schema, no {HudiTableConfig.CREATE_SCHEMA.key})"
        )
    return with_meta_fields(avro_to_arrow_schema(avro_schema))
