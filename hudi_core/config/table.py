"""Table options persisted in `.hoodie/hoodie.properties`, and the typed :class:`TableConfig`.

Keys and defaults follow Apache Hudi 1.0.2's `HoodieTableConfig` (spec notes §2.1). v6 tables
persist `hoodie.table.precombine.field` and `hoodie.table.keygenerator.class`; v8 adds
`hoodie.table.keygenerator.type`; v9 and Hudi 1.2-written tables use `hoodie.table.ordering.fields`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from hudi_core.config import (
    ConfigOption,
    HudiConfigs,
    OptionStatus,
    enum_parser,
    int_at_least,
    int_in_range,
    option,
    parse_bool,
    parse_list,
    parse_str,
)
from hudi_core.errors import HudiConfigError, UnsupportedFeatureError, UnsupportedTableVersionError


class TableType(enum.Enum):
    COPY_ON_WRITE = "COPY_ON_WRITE"
    MERGE_ON_READ = "MERGE_ON_READ"


def parse_table_type(raw: str) -> TableType:
    value = raw.strip().upper()
    aliases = {"COW": TableType.COPY_ON_WRITE, "MOR": TableType.MERGE_ON_READ}
    return aliases.get(value) or enum_parser(TableType)(value)


class KeyGeneratorType(enum.Enum):
    SIMPLE = "SIMPLE"
    COMPLEX = "COMPLEX"
    NON_PARTITION = "NON_PARTITION"
    TIMESTAMP = "TIMESTAMP"
    CUSTOM = "CUSTOM"
    GLOBAL_DELETE = "GLOBAL_DELETE"
    HOODIE_TABLE_METADATA = "HOODIE_TABLE_METADATA"


# Java key generator classes (Spark and Avro flavours) and the type each one stands for.
KEY_GENERATOR_CLASSES: dict[str, KeyGeneratorType] = {
    **{
        f"org.apache.hudi.keygen.{name}": kind
        for names, kind in (
            (("SimpleKeyGenerator", "SimpleAvroKeyGenerator"), KeyGeneratorType.SIMPLE),
            (("ComplexKeyGenerator", "ComplexAvroKeyGenerator"), KeyGeneratorType.COMPLEX),
            (
                ("NonpartitionedKeyGenerator", "NonpartitionedAvroKeyGenerator"),
                KeyGeneratorType.NON_PARTITION,
            ),
            (
                ("TimestampBasedKeyGenerator", "TimestampBasedAvroKeyGenerator"),
                KeyGeneratorType.TIMESTAMP,
            ),
            (("CustomKeyGenerator", "CustomAvroKeyGenerator"), KeyGeneratorType.CUSTOM),
            (("GlobalDeleteKeyGenerator", "GlobalAvroDeleteKeyGenerator"), KeyGeneratorType.GLOBAL_DELETE),
        )
        for name in names
    },
    "org.apache.hudi.metadata.HoodieTableMetadataKeyGenerator": KeyGeneratorType.HOODIE_TABLE_METADATA,
}


def _parse_key_generator_class(raw: str) -> KeyGeneratorType:
    name = raw.strip()
    if name not in KEY_GENERATOR_CLASSES:
        raise ValueError(f"unknown key generator class (known: {', '.join(sorted(KEY_GENERATOR_CLASSES))})")
    return KEY_GENERATOR_CLASSES[name]


class RecordMergeMode(enum.Enum):
    EVENT_TIME_ORDERING = "EVENT_TIME_ORDERING"
    COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"
    CUSTOM = "CUSTOM"


class BaseFileFormat(enum.Enum):
    PARQUET = "PARQUET"
    ORC = "ORC"
    HFILE = "HFILE"
    LANCE = "LANCE"


class CdcLoggingMode(enum.Enum):
    OP_KEY_ONLY = "OP_KEY_ONLY"
    DATA_BEFORE = "DATA_BEFORE"
    DATA_BEFORE_AFTER = "DATA_BEFORE_AFTER"


def _parse_cdc_mode(raw: str) -> CdcLoggingMode:
    legacy = {
        "CDC_OP_KEY": "OP_KEY_ONLY",
        "CDC_DATA_BEFORE": "DATA_BEFORE",
        "CDC_DATA_BEFORE_AFTER": "DATA_BEFORE_AFTER",
    }
    value = raw.strip().upper()
    return enum_parser(CdcLoggingMode)(legacy.get(value, value))


def _parse_timezone(raw: str) -> str:
    value = raw.strip().upper()
    if value not in ("UTC", "LOCAL"):
        raise ValueError("expected UTC or LOCAL")
    return value


# Merge strategy ids persisted with `hoodie.record.merge.strategy.id` (spec notes §2.1).
EVENT_TIME_STRATEGY_ID = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
COMMIT_TIME_STRATEGY_ID = "ce9acb64-bde0-424c-9b91-f6ebba25356d"
PAYLOAD_STRATEGY_ID = "00000000-0000-0000-0000-000000000000"

DEFAULT_PAYLOAD_CLASS = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
OVERWRITE_PAYLOAD_CLASS = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"


class HudiTableConfig:
    """Options persisted in hoodie.properties."""

    NAME = option("hoodie.table.name", parse_str, None, "Table name; required.")
    TYPE = option("hoodie.table.type", parse_table_type, TableType.COPY_ON_WRITE, "COPY_ON_WRITE or MERGE_ON_READ.")
    VERSION = option(
        "hoodie.table.version", int_at_least(0), None, "On-disk table version: 6 (0.14/0.15), 8 (1.0), 9 (1.1)."
    )
    INITIAL_VERSION = option(
        "hoodie.table.initial.version", int_at_least(0), None, "Version the table was created with."
    )
    TIMELINE_LAYOUT_VERSION = option(
        "hoodie.timeline.layout.version",
        int_at_least(0),
        None,
        "1 for table v6 (flat .hoodie/), 2 for v8+ (.hoodie/timeline/).",
    )
    TIMELINE_PATH = option("hoodie.timeline.path", parse_str, "timeline", "Timeline folder under .hoodie on layout 2.")
    TIMELINE_HISTORY_PATH = option(
        "hoodie.timeline.history.path", parse_str, "history", "LSM archived timeline folder under the timeline folder."
    )
    ARCHIVELOG_FOLDER = option(
        "hoodie.archivelog.folder", parse_str, "archived", "Archived timeline folder (layout 1)."
    )
    RECORD_KEY_FIELDS: ConfigOption[list[str]] = option(
        "hoodie.table.recordkey.fields", parse_list, [], "Record key fields, comma-separated."
    )
    PARTITION_FIELDS = option(
        "hoodie.table.partition.fields", parse_str, "", "Partition fields; v8 entries may carry `:simple|timestamp`."
    )
    PRECOMBINE_FIELD = option("hoodie.table.precombine.field", parse_str, None, "Ordering field (v6/v8 name).")
    ORDERING_FIELDS = option("hoodie.table.ordering.fields", parse_list, None, "Ordering fields (v9 name).")
    KEY_GENERATOR_TYPE = option(
        "hoodie.table.keygenerator.type", enum_parser(KeyGeneratorType), None, "Key generator type (v8+)."
    )
    KEY_GENERATOR_CLASS = option(
        "hoodie.table.keygenerator.class", _parse_key_generator_class, None, "Java key generator class (v6)."
    )
    HIVE_STYLE_PARTITIONING = option(
        "hoodie.datasource.write.hive_style_partitioning", parse_bool, False, "Partition folders named field=value."
    )
    PARTITION_PATH_URLENCODE = option(
        "hoodie.datasource.write.partitionpath.urlencode", parse_bool, False, "Escape partition values as Hive does."
    )
    DROP_PARTITION_COLUMNS = option(
        "hoodie.datasource.write.drop.partition.columns", parse_bool, False, "Partition columns left out of data files."
    )
    POPULATE_META_FIELDS = option("hoodie.populate.meta.fields", parse_bool, True, "Fill the _hoodie_* meta columns.")
    BASE_FILE_FORMAT = option(
        "hoodie.table.base.file.format", enum_parser(BaseFileFormat), BaseFileFormat.PARQUET, "Base file format."
    )
    LOG_FILE_FORMAT = option("hoodie.table.log.file.format", parse_str, "HOODIE_LOG", "Log file format.")
    RECORD_MERGE_MODE = option(
        "hoodie.record.merge.mode", enum_parser(RecordMergeMode), None, "How base and log records are merged."
    )
    RECORD_MERGE_STRATEGY_ID = option(
        "hoodie.record.merge.strategy.id",
        parse_str,
        None,
        "Merge strategy UUID.",
        aliases=("hoodie.compaction.record.merger.strategy",),
    )
    PAYLOAD_CLASS = option("hoodie.compaction.payload.class", parse_str, None, "Legacy payload class.")
    LEGACY_PAYLOAD_CLASS = option("hoodie.table.legacy.payload.class", parse_str, None, "Payload class before RFC-97.")
    CREATE_SCHEMA = option("hoodie.table.create.schema", parse_str, None, "Avro schema given at table creation.")
    TIMELINE_TIMEZONE = option(
        "hoodie.table.timeline.timezone", _parse_timezone, "LOCAL", "Time zone of instant times."
    )
    METADATA_PARTITIONS: ConfigOption[list[str]] = option(
        "hoodie.table.metadata.partitions", parse_list, [], "Metadata-table partitions kept in sync."
    )
    METADATA_PARTITIONS_INFLIGHT: ConfigOption[list[str]] = option(
        "hoodie.table.metadata.partitions.inflight", parse_list, [], "Metadata-table partitions being built."
    )
    CDC_ENABLED = option("hoodie.table.cdc.enabled", parse_bool, False, "Write change-data-capture logs.")
    CDC_LOGGING_MODE = option(
        "hoodie.table.cdc.supplemental.logging.mode",
        _parse_cdc_mode,
        CdcLoggingMode.DATA_BEFORE_AFTER,
        "What CDC logs hold: OP_KEY_ONLY, DATA_BEFORE or DATA_BEFORE_AFTER.",
    )
    DATABASE_NAME = option("hoodie.database.name", parse_str, None, "Database name (part of the checksum).")
    CHECKSUM = option("hoodie.table.checksum", int_in_range(0, 2**32 - 1), None, "CRC32 of '<database>.<table>'.")
    TABLE_FORMAT = option("hoodie.table.format", parse_str, "native", "Table format (v9).")
    INDEX_DEFS_PATH = option("hoodie.table.index.defs.path", parse_str, None, "Index definitions file.")
    PARTITION_METAFILE_USE_BASE_FORMAT = option(
        "hoodie.partition.metafile.use.base.format", parse_bool, False, "Partition metafile as a base-format file."
    )
    BOOTSTRAP_BASE_PATH = option(
        "hoodie.bootstrap.base.path",
        parse_str,
        None,
        "Source of a bootstrapped table.",
        status=OptionStatus.UNSUPPORTED,
    )
    # Merge properties Apache Hudi 1.1+ persists (version 9); read from tables, not set through writes here.
    PARTIAL_UPDATE_MODE = option(
        "hoodie.table.partial.update.mode",
        parse_str,
        None,
        "How partial updates merge (IGNORE_DEFAULTS is read here).",
        status=OptionStatus.UNSUPPORTED,
    )
    MERGE_DELETE_FIELD = option(
        "hoodie.record.merge.property.hoodie.payload.delete.field",
        parse_str,
        None,
        "Field whose marker value makes a record a delete.",
        status=OptionStatus.UNSUPPORTED,
    )
    MERGE_DELETE_MARKER = option(
        "hoodie.record.merge.property.hoodie.payload.delete.marker",
        parse_str,
        None,
        "Value of the delete field that marks a delete.",
        status=OptionStatus.UNSUPPORTED,
    )


# Timestamp-based key generator settings persisted with the table.
TIMESTAMP_KEYGEN_PREFIX = "hoodie.keygen.timebased."
LEGACY_TIMESTAMP_KEYGEN_PREFIX = "hoodie.deltastreamer.keygen.timebased."  # Hudi Streamer's older spelling
TIMESTAMP_KEYGEN_PREFIXES = (TIMESTAMP_KEYGEN_PREFIX, LEGACY_TIMESTAMP_KEYGEN_PREFIX)

SUPPORTED_READ_VERSIONS = (6, 8, 9)


@dataclass(frozen=True)
class TableConfig:
    """The typed content of hoodie.properties.

    Attributes:
        name: `hoodie.table.name`.
        table_type: COPY_ON_WRITE or MERGE_ON_READ.
        version: table version (6, 8 or 9).
        timeline_layout_version: 1 (flat `.hoodie/`) or 2 (`.hoodie/timeline/`).
        record_key_fields: record key fields (empty for keyless tables).
        partition_fields: partition fields without their `:type` suffix.
        ordering_fields: ordering (precombine) fields, empty if none.
        key_generator_type: the key generator, from the type or the class key, or inferred.
        raw: every property as stored.
    """

    name: str
    table_type: TableType
    version: int
    timeline_layout_version: int
    record_key_fields: list[str]
    partition_fields: list[str]
    partition_field_types: dict[str, str]
    ordering_fields: list[str]
    key_generator_type: KeyGeneratorType
    hive_style_partitioning: bool
    partition_path_urlencode: bool
    populate_meta_fields: bool
    base_file_format: BaseFileFormat
    drop_partition_columns: bool
    record_merge_mode: RecordMergeMode
    payload_class: str | None
    create_schema: str | None
    timeline_path: str
    timeline_history_path: str
    archivelog_folder: str
    timeline_timezone: str
    metadata_partitions: list[str]
    cdc_enabled: bool
    cdc_logging_mode: CdcLoggingMode
    database_name: str | None
    raw: dict[str, str] = field(repr=False)

    @property
    def is_mor(self) -> bool:
        return self.table_type is TableType.MERGE_ON_READ

    @property
    def timestamp_keygen_options(self) -> dict[str, str]:
        """`hoodie.keygen.timebased.*` settings, keyed without their prefix."""
        result: dict[str, str] = {}
        for key, value in self.raw.items():
            for prefix in TIMESTAMP_KEYGEN_PREFIXES:
                if key.startswith(prefix):
                    result.setdefault(key[len(prefix) :], value)
        return result

    @classmethod
    def from_properties(cls, props: Mapping[str, str], where: str) -> TableConfig:
        """Builds and validates the config; `where` names the file in error messages."""
        cfg = HudiConfigs(props)
        T = HudiTableConfig  # noqa: N806 (a short alias for the key namespace)
        name = cfg.require(T.NAME, where)
        table_type = cfg.require(T.TYPE, where)
        version = cfg.require(T.VERSION, where)
        if version not in SUPPORTED_READ_VERSIONS:
            raise UnsupportedTableVersionError(
                f"{where}: table version {version} is not supported (readable versions: 6, 8, 9)"
            )
        layout = cfg.get(T.TIMELINE_LAYOUT_VERSION) or (2 if version >= 8 else 1)
        expected_layout = 2 if version >= 8 else 1
        if layout != expected_layout:
            raise UnsupportedTableVersionError(
                f"{where}: table version {version} needs timeline layout {expected_layout}, found {layout}"
            )
        base_format = cfg.value(T.BASE_FILE_FORMAT)
        if base_format in (BaseFileFormat.LANCE, BaseFileFormat.ORC):
            raise UnsupportedFeatureError(f"{where}: {base_format.value} base files are not supported")

        partition_entries = [p.strip() for p in cfg.value(T.PARTITION_FIELDS).split(",") if p.strip()]
        partition_fields = [p.split(":", 1)[0] for p in partition_entries]
        partition_types = {p.split(":", 1)[0]: p.split(":", 1)[1].upper() for p in partition_entries if ":" in p}

        ordering = cfg.get(T.ORDERING_FIELDS) or []
        precombine = cfg.get(T.PRECOMBINE_FIELD)
        if not ordering and precombine:
            ordering = [f.strip() for f in precombine.split(",") if f.strip()]

        keygen = cfg.get(T.KEY_GENERATOR_TYPE) or cfg.get(T.KEY_GENERATOR_CLASS)
        record_keys = cfg.value(T.RECORD_KEY_FIELDS)
        if keygen is None:
            keygen = infer_key_generator_type(record_keys, partition_fields, partition_types)

        payload = cfg.get(T.PAYLOAD_CLASS) or cfg.get(T.LEGACY_PAYLOAD_CLASS)
        merge_mode = cfg.get(T.RECORD_MERGE_MODE) or infer_merge_mode(payload, ordering, version)

        if cfg.value(T.DROP_PARTITION_COLUMNS):
            raise UnsupportedFeatureError(
                f"{where}: hoodie.datasource.write.drop.partition.columns=true is not supported"
            )
        return cls(
            name=name,
            table_type=table_type,
            version=version,
            timeline_layout_version=layout,
            record_key_fields=record_keys,
            partition_fields=partition_fields,
            partition_field_types=partition_types,
            ordering_fields=ordering,
            key_generator_type=keygen,
            hive_style_partitioning=cfg.value(T.HIVE_STYLE_PARTITIONING),
            partition_path_urlencode=cfg.value(T.PARTITION_PATH_URLENCODE),
            populate_meta_fields=cfg.value(T.POPULATE_META_FIELDS),
            base_file_format=base_format,
            drop_partition_columns=False,
            record_merge_mode=merge_mode,
            payload_class=payload,
            create_schema=cfg.get(T.CREATE_SCHEMA),
            timeline_path=cfg.value(T.TIMELINE_PATH),
            timeline_history_path=cfg.value(T.TIMELINE_HISTORY_PATH),
            archivelog_folder=cfg.value(T.ARCHIVELOG_FOLDER),
            timeline_timezone=cfg.value(T.TIMELINE_TIMEZONE),
            metadata_partitions=cfg.value(T.METADATA_PARTITIONS),
            cdc_enabled=cfg.value(T.CDC_ENABLED),
            cdc_logging_mode=cfg.value(T.CDC_LOGGING_MODE),
            database_name=cfg.get(T.DATABASE_NAME),
            raw=dict(props),
        )


def infer_key_generator_type(
    record_key_fields: list[str], partition_fields: list[str], partition_types: Mapping[str, str]
) -> KeyGeneratorType:
    """Hudi's `KeyGenUtils.inferKeyGeneratorType`."""
    if partition_types:
        return KeyGeneratorType.CUSTOM
    if not partition_fields:
        return KeyGeneratorType.NON_PARTITION
    if len(record_key_fields) <= 1 and len(partition_fields) == 1:  # no key fields: auto-generated keys
        return KeyGeneratorType.SIMPLE
    return KeyGeneratorType.COMPLEX


@dataclass(frozen=True)
class MergeBehaviour:
    """How records of one key merge (RFC-97: merge mode, partial updates, delete marker).

    Attributes:
        mode: COMMIT_TIME_ORDERING or EVENT_TIME_ORDERING.
        ignore_defaults: a winning record's null fields keep the value it replaces
            (partial update mode IGNORE_DEFAULTS).
        delete_field: a record whose `delete_field` equals `delete_marker` is a delete.
        delete_marker: see `delete_field`.
    """

    mode: RecordMergeMode
    ignore_defaults: bool = False
    delete_field: str | None = None
    delete_marker: str | None = None

    @property
    def plain(self) -> bool:
        """Whether the merge mode says it all (no partial updates or delete markers)."""
        return not self.ignore_defaults and self.delete_field is None


_MODEL = "org.apache.hudi.common.model."
METADATA_PAYLOAD_CLASS = "org.apache.hudi.metadata.HoodieMetadataPayload"

# The payload classes Apache Hudi ships whose behaviour is implemented, as its version-9 upgrade
# maps them (`hudi_core.merge.behaviour` resolves a table's rule from them).
BUILT_IN_PAYLOADS: dict[str, MergeBehaviour] = {
    _MODEL + "OverwriteWithLatestAvroPayload": MergeBehaviour(RecordMergeMode.COMMIT_TIME_ORDERING),
    _MODEL + "DefaultHoodieRecordPayload": MergeBehaviour(RecordMergeMode.EVENT_TIME_ORDERING),
    _MODEL + "EventTimeAvroPayload": MergeBehaviour(RecordMergeMode.EVENT_TIME_ORDERING),
    _MODEL + "OverwriteNonDefaultsWithLatestAvroPayload": MergeBehaviour(
        RecordMergeMode.COMMIT_TIME_ORDERING, ignore_defaults=True
    ),
    _MODEL + "PartialUpdateAvroPayload": MergeBehaviour(RecordMergeMode.EVENT_TIME_ORDERING, ignore_defaults=True),
    _MODEL + "AWSDmsAvroPayload": MergeBehaviour(
        RecordMergeMode.COMMIT_TIME_ORDERING, delete_field="Op", delete_marker="D"
    ),
    # The metadata table's own payload: its reader merges metadata records itself.
    METADATA_PAYLOAD_CLASS: MergeBehaviour(RecordMergeMode.COMMIT_TIME_ORDERING),
}

# Payload classes users pass and the merge mode each stands for: the built-in payloads whose
# behaviour is a merge mode alone (the others are read, not written, here).
PAYLOAD_MERGE_MODES: dict[str, RecordMergeMode] = {
    **{name: behaviour.mode for name, behaviour in BUILT_IN_PAYLOADS.items() if behaviour.plain},
    METADATA_PAYLOAD_CLASS: RecordMergeMode.CUSTOM,
}


def payload_merge_mode(payload_class: str) -> RecordMergeMode:
    """The merge mode of a payload class; HudiConfigError naming it when there is no equivalent."""
    mode = PAYLOAD_MERGE_MODES.get(payload_class.strip())
    if mode is None:
        raise HudiConfigError(
            f"payload class {payload_class} has no hudi_core equivalent "
            f"(supported: {', '.join(sorted(PAYLOAD_MERGE_MODES))}); use hoodie.write.record.merge.mode"
        )
    return mode


def infer_merge_mode(payload_class: str | None, ordering_fields: list[str], version: int) -> RecordMergeMode:
    """The merge mode of a table that does not persist one, from its payload class (RFC-97).

    Without a payload class the table orders by event time when it has an ordering field; before
    table version 8 Spark's default payload was OverwriteWithLatestAvroPayload (commit time).
    """
    if payload_class:
        return PAYLOAD_MERGE_MODES.get(payload_class.strip(), RecordMergeMode.CUSTOM)
    if version < 8:
        return RecordMergeMode.COMMIT_TIME_ORDERING
    return RecordMergeMode.EVENT_TIME_ORDERING if ordering_fields else RecordMergeMode.COMMIT_TIME_ORDERING
