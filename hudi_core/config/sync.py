"""Catalog (meta) sync options: Hive metastore and AWS Glue.

Keys and defaults are Hudi 1.0.2's (`HiveSyncConfig`, `HoodieSyncConfig`, `AWSGlueCatalogSyncClient`'s
`HoodieAWSConfig`). Where Hudi infers a default from the table (database, table name, partition
fields, extractor), the declaration's default is None and `hudi_core.sync.settings` infers it the
same way.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

from hudi_core.config import (
    ConfigOption,
    OptionStatus,
    int_at_least,
    java_class_parser,
    one_of,
    option,
    parse_bool,
    parse_list,
    parse_str,
)


class SyncTool(enum.Enum):
    """`hoodie.meta.sync.client.tool.class` values this build runs (by simple class name)."""

    HIVE = "HiveSyncTool"
    GLUE = "AwsGlueCatalogSyncTool"


class PartitionValueExtractor(enum.Enum):
    """`hoodie.datasource.hive_sync.partition_extractor_class` values (by simple class name)."""

    MULTI_PART_KEYS = "MultiPartKeysValueExtractor"
    SINGLE_PART = "SinglePartPartitionValueExtractor"
    HIVE_STYLE = "HiveStylePartitionValueExtractor"
    NON_PARTITIONED = "NonPartitionedExtractor"
    SLASH_ENCODED_DAY = "SlashEncodedDayPartitionValueExtractor"
    SLASH_ENCODED_HOUR = "SlashEncodedHourPartitionValueExtractor"


#: The serde property Apache Hudi's sync sets on every registered table: "true" for a Merge-on-Read
#: table's read-optimized view (Spark reads it to pick the query type).
QUERY_AS_RO_TABLE = "hoodie.query.as.ro.table"

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


def _parse_identifier(raw: str) -> str:
    # Hive and Glue names are letters, digits and underscores; anything else would reach the
    # catalog as a name no SQL engine can query without quoting, or be refused half-way.
    value = raw.strip()
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError("a database or table name is letters, digits and underscores")
    return value


def _parse_tools(raw: str) -> tuple[SyncTool, ...]:
    parse = java_class_parser(SyncTool, "org.apache.hudi.hive. / org.apache.hudi.aws.sync.", "meta sync tool")
    tools = tuple(parse(name) for name in parse_list(raw))
    if not tools:
        raise ValueError("name at least one sync tool class")
    return tools


def _parse_metastore_uris(raw: str) -> tuple[str, ...]:
    uris = tuple(parse_list(raw))
    for uri in uris:
        if not re.fullmatch(r"thrift://[^:/\s]+:\d{1,5}", uri):
            raise ValueError(f"{uri!r} is not a metastore address of the form thrift://host:port")
    if not uris:
        raise ValueError("name at least one thrift://host:port")
    return uris


def _parse_mode(raw: str) -> str:
    mode = one_of("HMS", "JDBC", "HIVEQL")(raw)
    if mode != "HMS":
        raise ValueError(
            f"mode {raw.strip()} runs DDL through a HiveServer2; this build syncs over the metastore's "
            "Thrift API only: use hms"
        )
    return mode


def _parse_false_only(what: str) -> Callable[[str], bool]:
    def parse(raw: str) -> bool:
        if parse_bool(raw):
            raise ValueError(what)
        return False

    return parse


def _parse_parquet(raw: str) -> str:
    if raw.strip().upper() != "PARQUET":
        raise ValueError("only PARQUET base files are registered")
    return "PARQUET"


def parse_key_values(raw: str) -> dict[str, str]:
    """Hudi's `key=value` lines (one per line) of extra table or serde properties."""
    pairs: dict[str, str] = {}
    for line in raw.splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{line!r} is not key=value")
        pairs[key.strip()] = value.strip()
    return pairs


class HudiMetaSyncConfig:
    """Which catalogs a write syncs to, and how tables and partitions are named there."""

    HIVE_SYNC_ENABLE = option(
        "hoodie.datasource.hive_sync.enable",
        parse_bool,
        False,
        "Sync the table to the Hive metastore after every commit.",
    )
    META_SYNC_ENABLE = option(
        "hoodie.datasource.meta.sync.enable",
        parse_bool,
        False,
        "Sync the table after every commit with the tools hoodie.meta.sync.client.tool.class names.",
    )
    TOOLS: ConfigOption[tuple[SyncTool, ...]] = option(
        "hoodie.meta.sync.client.tool.class",
        _parse_tools,
        (SyncTool.HIVE,),
        "Comma-separated sync tools: org.apache.hudi.hive.HiveSyncTool, "
        "org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool.",
    )
    DATABASE = option(
        "hoodie.datasource.hive_sync.database",
        _parse_identifier,
        None,
        "Catalog database; default: hoodie.database.name, else `default`.",
    )
    TABLE = option(
        "hoodie.datasource.hive_sync.table",
        _parse_identifier,
        None,
        "Catalog table name; default: hoodie.table.name.",
    )
    PARTITION_FIELDS: ConfigOption[list[str]] = option(
        "hoodie.datasource.hive_sync.partition_fields",
        parse_list,
        None,
        "The catalog's partition columns, one per partition path level; default: the table's partition fields.",
    )
    PARTITION_EXTRACTOR = option(
        "hoodie.datasource.hive_sync.partition_extractor_class",
        java_class_parser(PartitionValueExtractor, "org.apache.hudi.hive.", "partition value extractor"),
        None,
        "How partition values come from a partition path; default: inferred from the partition fields "
        "and hoodie.datasource.write.hive_style_partitioning, as Hudi infers it.",
    )
    AUTO_CREATE_DATABASE = option(
        "hoodie.datasource.hive_sync.auto_create_database",
        parse_bool,
        True,
        "Create the database when it does not exist (otherwise the sync fails).",
    )
    SKIP_RO_SUFFIX = option(
        "hoodie.datasource.hive_sync.skip_ro_suffix",
        parse_bool,
        False,
        "Merge-on-Read: register the read-optimized table without the `_ro` suffix.",
    )
    SYNC_AS_DATASOURCE = option(
        "hoodie.datasource.hive_sync.sync_as_datasource",
        parse_bool,
        True,
        "Add the table properties Spark reads a data source table by (provider hudi, its schema).",
    )
    SUPPORT_TIMESTAMP = option(
        "hoodie.datasource.hive_sync.support_timestamp",
        parse_bool,
        False,
        "Register timestamp columns as `timestamp` (otherwise `bigint`, as Hudi does).",
    )
    OMIT_METADATA_FIELDS = option(
        "hoodie.datasource.hive_sync.omit_metadata_fields",
        parse_bool,
        False,
        "Leave the `_hoodie_*` columns out of the catalog's schema.",
    )
    TABLE_STRATEGY = option(
        "hoodie.datasource.hive_sync.table.strategy",
        one_of("ALL", "RO", "RT"),
        "ALL",
        "Merge-on-Read: register the read-optimized table (RO), the real-time one (RT) or both (ALL).",
    )
    IGNORE_EXCEPTIONS = option(
        "hoodie.datasource.hive_sync.ignore_exceptions",
        parse_bool,
        False,
        "A failed sync after a commit is a warning of the write's result instead of an error.",
    )
    BATCH_NUM = option(
        "hoodie.datasource.hive_sync.batch_num",
        int_at_least(1),
        1000,
        "Partitions per metastore call.",
    )
    SERDE_PROPERTIES = option(
        "hoodie.datasource.hive_sync.serde_properties",
        parse_key_values,
        None,
        "Extra serde properties, one key=value per line.",
    )
    TABLE_PROPERTIES = option(
        "hoodie.datasource.hive_sync.table_properties",
        parse_key_values,
        None,
        "Extra table properties, one key=value per line.",
    )
    SCHEMA_STRING_LENGTH_THRESHOLD = option(
        "hoodie.datasource.hive_sync.schema_string_length_thresh",
        int_at_least(1),
        4000,
        "Longest part of the Spark schema JSON kept in one table property (spark.sql.sources.schema.part.N).",
    )
    INCREMENTAL = option(
        "hoodie.meta.sync.incremental",
        parse_bool,
        True,
        "Sync only the partitions commits changed since the last sync (otherwise list them all).",
    )
    SNAPSHOT_WITH_TABLE_NAME = option(
        "hoodie.meta.sync.sync_snapshot_with_table_name",
        parse_bool,
        True,
        "Merge-on-Read: register the snapshot view under the table's own name too (besides `_rt`).",
    )
    DECODE_PARTITION = option(
        "hoodie.meta.sync.decode_partition",
        parse_bool,
        False,
        "URL-decode partition values (tables written with hoodie.datasource.write.partitionpath.urlencode).",
    )
    MODE = option(
        "hoodie.datasource.hive_sync.mode",
        _parse_mode,
        "HMS",
        "How the Hive metastore is reached: hms (its Thrift API) is the only mode of this build.",
    )
    METASTORE_URIS: ConfigOption[tuple[str, ...]] = option(
        "hoodie.datasource.hive_sync.metastore.uris",
        _parse_metastore_uris,
        ("thrift://localhost:9083",),
        "The metastore's Thrift address(es), thrift://host:port, comma-separated; tried in order.",
    )
    USE_JDBC = option(
        "hoodie.datasource.hive_sync.use_jdbc",
        parse_str,
        None,
        "this build syncs over the metastore's Thrift API (mode hms) whatever this says",
        status=OptionStatus.IGNORED,
    )
    CREATE_MANAGED_TABLE = option(
        "hoodie.datasource.hive_sync.create_managed_table",
        _parse_false_only("a managed table lets DROP TABLE delete the Hudi table's files: tables are external"),
        False,
        "Register a managed table instead of an external one: refused.",
    )
    BASE_FILE_FORMAT = option(
        "hoodie.datasource.hive_sync.base_file_format",
        _parse_parquet,
        "PARQUET",
        "The base file format the catalog's input format reads: PARQUET.",
    )
    GLUE_ENDPOINT = option(
        "hoodie.aws.glue.endpoint",
        parse_str,
        None,
        "AWS Glue's endpoint URL (default: boto3's, or AWS_ENDPOINT_URL_GLUE / AWS_ENDPOINT_URL).",
    )
    GLUE_REGION = option(
        "hoodie.aws.glue.region",
        parse_str,
        None,
        "AWS Glue's region (default: boto3's, from AWS_REGION / AWS_DEFAULT_REGION or the profile).",
    )
