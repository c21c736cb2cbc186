"""What a sync is asked to do: the catalog options resolved against the table, as Hudi infers them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.sync import HudiMetaSyncConfig as S
from hudi_core.config.sync import PartitionValueExtractor, SyncTool
from hudi_core.config.table import TableConfig
from hudi_core.errors import HudiConfigError

_DEFAULT_DATABASE = "default"


@dataclass(frozen=True)
class SyncSettings:
    """One table's registration settings, shared by every catalog it is synced to.

    Attributes:
        tools: the catalogs to sync, in order.
        database / table: the catalog names (the Merge-on-Read tables add `_ro` / `_rt`).
        partition_fields: the catalog's partition columns.
        extractor: how their values come from a partition path.
        metastore_uris: the Hive metastore's Thrift addresses.
        glue_endpoint / glue_region: AWS Glue's, when set.
    """

    tools: tuple[SyncTool, ...]
    database: str
    table: str
    partition_fields: tuple[str, ...]
    extractor: PartitionValueExtractor
    auto_create_database: bool = True
    skip_ro_suffix: bool = False
    sync_as_datasource: bool = True
    support_timestamp: bool = False
    omit_metadata_fields: bool = False
    table_strategy: str = "ALL"
    ignore_exceptions: bool = False
    batch_size: int = 1000
    serde_properties: Mapping[str, str] = field(default_factory=dict)
    table_properties: Mapping[str, str] = field(default_factory=dict)
    schema_part_length: int = 4000
    incremental: bool = True
    snapshot_with_table_name: bool = True
    decode_partition: bool = False
    metastore_uris: tuple[str, ...] = ("thrift://localhost:9083",)
    glue_endpoint: str | None = None
    glue_region: str | None = None


def sync_requested(options: Mapping[str, str]) -> bool:
    """Whether the options turn on a sync after every commit (Hive sync or meta sync)."""
    configs = HudiConfigs(options)
    return configs.value(S.HIVE_SYNC_ENABLE) or configs.value(S.META_SYNC_ENABLE)


def sync_tools(configs: HudiConfigs, standalone: bool) -> tuple[SyncTool, ...]:
    """The tools a commit's sync runs, as Hudi's Spark writer picks them: Hive sync when
    `hive_sync.enable`, plus the tool classes when `meta.sync.enable`. A standalone sync
    (`hudi-core sync`) runs the tool classes named (Hive by default)."""
    named = configs.value(S.TOOLS)
    if standalone:
        return named
    tools: list[SyncTool] = []
    if configs.value(S.HIVE_SYNC_ENABLE):
        tools.append(SyncTool.HIVE)
    if configs.value(S.META_SYNC_ENABLE):
        tools.extend(tool for tool in named if tool not in tools)
    return tuple(tools)


def _inferred_extractor(fields: tuple[str, ...], hive_style: bool) -> PartitionValueExtractor:
    # Hudi's inference (HoodieSyncConfig.META_SYNC_PARTITION_EXTRACTOR_CLASS).
    if not fields:
        return PartitionValueExtractor.NON_PARTITIONED
    if len(fields) == 1:
        return PartitionValueExtractor.HIVE_STYLE if hive_style else PartitionValueExtractor.SINGLE_PART
    return PartitionValueExtractor.MULTI_PART_KEYS


def resolve_sync_settings(options: Mapping[str, str], table: TableConfig, standalone: bool = False) -> SyncSettings:
    """The sync settings of `options` for `table`; raises HudiConfigError for malformed or
    contradicting options (before any catalog is called)."""
    validate_options(options)
    configs = HudiConfigs(table.raw, options)
    serde_properties: dict[str, str] = configs.get(S.SERDE_PROPERTIES) or {}
    table_properties: dict[str, str] = configs.get(S.TABLE_PROPERTIES) or {}
    named_fields = configs.get(S.PARTITION_FIELDS)
    partition_fields = tuple(named_fields if named_fields else table.partition_fields)
    extractor = configs.get(S.PARTITION_EXTRACTOR) or _inferred_extractor(
        partition_fields, table.hive_style_partitioning
    )
    if extractor is PartitionValueExtractor.NON_PARTITIONED and partition_fields:
        raise HudiConfigError(
            f"{S.PARTITION_EXTRACTOR.key} is NonPartitionedExtractor but {S.PARTITION_FIELDS.key} names "
            f"{', '.join(partition_fields)}: a partitioned table needs an extractor of its partition values"
        )
    if extractor is not PartitionValueExtractor.NON_PARTITIONED and not partition_fields:
        raise HudiConfigError(
            f"{S.PARTITION_EXTRACTOR.key} is {extractor.value} but the table has no partition fields: "
            f"set {S.PARTITION_FIELDS.key} or use NonPartitionedExtractor"
        )
    single_value = {
        PartitionValueExtractor.SINGLE_PART,
        PartitionValueExtractor.HIVE_STYLE,
        PartitionValueExtractor.SLASH_ENCODED_DAY,
        PartitionValueExtractor.SLASH_ENCODED_HOUR,
    }
    if extractor in single_value and len(partition_fields) != 1:
        raise HudiConfigError(
            f"{S.PARTITION_EXTRACTOR.key} {extractor.value} extracts one value, but "
            f"{S.PARTITION_FIELDS.key} names {len(partition_fields)} fields ({', '.join(partition_fields)})"
        )
    return SyncSettings(
        tools=sync_tools(configs, standalone),
        database=configs.get(S.DATABASE) or table.database_name or _DEFAULT_DATABASE,
        table=configs.get(S.TABLE) or table.name,
        partition_fields=partition_fields,
        extractor=extractor,
        auto_create_database=configs.value(S.AUTO_CREATE_DATABASE),
        skip_ro_suffix=configs.value(S.SKIP_RO_SUFFIX),
        sync_as_datasource=configs.value(S.SYNC_AS_DATASOURCE),
        support_timestamp=configs.value(S.SUPPORT_TIMESTAMP),
        omit_metadata_fields=configs.value(S.OMIT_METADATA_FIELDS),
        table_strategy=configs.value(S.TABLE_STRATEGY),
        ignore_exceptions=configs.value(S.IGNORE_EXCEPTIONS),
        batch_size=configs.value(S.BATCH_NUM),
        serde_properties=serde_properties,
        table_properties=table_properties,
        schema_part_length=configs.value(S.SCHEMA_STRING_LENGTH_THRESHOLD),
        incremental=configs.value(S.INCREMENTAL),
        snapshot_with_table_name=configs.value(S.SNAPSHOT_WITH_TABLE_NAME),
        decode_partition=configs.value(S.DECODE_PARTITION),
        metastore_uris=configs.value(S.METASTORE_URIS),
        glue_endpoint=configs.get(S.GLUE_ENDPOINT),
        glue_region=configs.get(S.GLUE_REGION),
    )
