"""How a Hudi table is registered in a catalog, as Apache Hudi's Hive sync registers it.

A Copy-on-Write table is one external table. A Merge-on-Read table is three: `<name>_ro` (the
read-optimized view: base files only), `<name>_rt` (the snapshot view, merging logs) and `<name>`
(the snapshot again, `hoodie.meta.sync.sync_snapshot_with_table_name`); with `skip_ro_suffix`,
`<name>` is the read-optimized view. They differ in their input format and the serde property
`hoodie.query.as.ro.table`. Every registration is catalog-neutral; `hive_metastore` and `glue` map
it to their APIs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import pyarrow as pa

from hudi_core.config.sync import QUERY_AS_RO_TABLE
from hudi_core.config.table import TableConfig
from hudi_core.schema.meta_fields import META_FIELD_SET
from hudi_core.sync.schema import hive_type, spark_table_properties
from hudi_core.sync.settings import SyncSettings

PARQUET_INPUT_FORMAT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
REALTIME_INPUT_FORMAT = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
PARQUET_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"

LAST_COMMIT_TIME_SYNC = "last_commit_time_sync"
LAST_COMMIT_COMPLETION_TIME_SYNC = "last_commit_completion_time_sync"
SYNC_PROPERTIES = (LAST_COMMIT_TIME_SYNC, LAST_COMMIT_COMPLETION_TIME_SYNC)

RO_SUFFIX = "_ro"
RT_SUFFIX = "_rt"


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    comment: str = ""


@dataclass(frozen=True)
class CatalogTable:
    """One catalog table of a Hudi table (its partitions are synced separately).

    Attributes:
        location: the table's base path as catalogs store it (`file:/...` for local tables).
        columns: the data columns (partition columns left out), Hive-typed.
        partition_keys: the catalog's partition columns.
        table_properties: what the sync owns: EXTERNAL, the Spark data source properties and the
            user's extra properties (the sync times are added by the sync itself).
    """

    database: str
    name: str
    location: str
    columns: tuple[Column, ...]
    partition_keys: tuple[Column, ...]
    input_format: str
    output_format: str
    serde_library: str
    serde_properties: Mapping[str, str] = field(default_factory=dict)
    table_properties: Mapping[str, str] = field(default_factory=dict)

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"

    def partition_location(self, partition_path: str) -> str:
        return f"{self.location}/{partition_path}" if partition_path else self.location


def catalog_location(base_uri: str) -> str:
    """`base_uri` as Hadoop qualifies it, and so as Hudi registers it: `file:/abs/path` for a
    local path, the URI itself otherwise."""
    if "://" not in base_uri and not base_uri.startswith("file:"):
        return "file:" + os.path.abspath(base_uri)
    if base_uri.startswith("file://"):
        return "file:" + base_uri[len("file://") :]
    return base_uri.rstrip("/")


def registrations(
    settings: SyncSettings, table: TableConfig, schema: pa.Schema, base_uri: str
) -> tuple[CatalogTable, ...]:
    """The catalog tables `table` is registered as (one, or two for Merge-on-Read)."""
    location = catalog_location(base_uri)
    fields = [f for f in schema if not (settings.omit_metadata_fields and f.name in META_FIELD_SET)]
    by_name = {f.name: f for f in fields}
    columns = tuple(
        Column(f.name, hive_type(f.type, settings.support_timestamp))
        for f in fields
        if f.name not in settings.partition_fields
    )
    partition_keys = tuple(
        Column(name, hive_type(by_name[name].type, settings.support_timestamp) if name in by_name else "string")
        for name in settings.partition_fields
    )
    properties: dict[str, str] = {"EXTERNAL": "TRUE"}
    if settings.sync_as_datasource:
        spark_properties = spark_table_properties(
            pa.schema(fields), settings.partition_fields, settings.schema_part_length
        )
        properties.update(spark_properties)
    properties.update(settings.table_properties)

    def registration(name: str, input_format: str, read_optimized: bool) -> CatalogTable:
        # `path` is the base path as the table names it (`file:///x`), the location as Hadoop
        # qualifies it (`file:/x`): both as Apache Hudi registers them. Spark reads the flag.
        serde = {"path": base_uri.rstrip("/"), "serialization.format": "1"}
        if settings.sync_as_datasource:
            serde[QUERY_AS_RO_TABLE] = str(read_optimized).lower()
        serde.update(settings.serde_properties)
        return CatalogTable(
            database=settings.database,
            name=name,
            location=location,
            columns=columns,
            partition_keys=partition_keys,
            input_format=input_format,
            output_format=PARQUET_OUTPUT_FORMAT,
            serde_library=PARQUET_SERDE,
            serde_properties=serde,
            table_properties=properties,
        )

    if not table.is_mor:
        return (registration(settings.table, PARQUET_INPUT_FORMAT, False),)
    read_optimized_name = settings.table if settings.skip_ro_suffix else settings.table + RO_SUFFIX
    tables = []
    if settings.table_strategy in ("ALL", "RO"):
        tables.append(registration(read_optimized_name, PARQUET_INPUT_FORMAT, True))
    if settings.table_strategy in ("ALL", "RT"):
        tables.append(registration(settings.table + RT_SUFFIX, REALTIME_INPUT_FORMAT, False))
        if settings.snapshot_with_table_name and not settings.skip_ro_suffix:
            # The table's own name is its snapshot view too (Hudi 1.x's default).
            tables.append(registration(settings.table, REALTIME_INPUT_FORMAT, False))
    return tuple(tables)
