"""Creating a version-8 table: `hoodie.properties` with the key set Spark + Hudi 1.0 writes (notes §2.1).

The key generator, partitioning, ordering field, merge mode and encodings are persisted here once
and honoured by every later writer; nothing is re-inferred from a later write's options.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.properties import (
    PROPERTIES_BACKUP_FILE,
    PROPERTIES_FILE,
    format_properties,
    parse_properties,
    table_checksum,
)
from hudi_core.config.table import (
    COMMIT_TIME_STRATEGY_ID,
    DEFAULT_PAYLOAD_CLASS,
    EVENT_TIME_STRATEGY_ID,
    KEY_GENERATOR_CLASSES,
    LEGACY_TIMESTAMP_KEYGEN_PREFIX,
    OVERWRITE_PAYLOAD_CLASS,
    TIMESTAMP_KEYGEN_PREFIX,
    TIMESTAMP_KEYGEN_PREFIXES,
    HudiTableConfig,
    KeyGeneratorType,
    RecordMergeMode,
    TableType,
    infer_key_generator_type,
    infer_merge_mode,
    payload_merge_mode,
)
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import HudiConfigError, SchemaError, TableExistsError, UnsupportedFeatureError
from hudi_core.schema.arrow_avro import normalize_for_write, table_avro_schema
from hudi_core.schema.meta_fields import META_FIELD_SET
from hudi_core.storage import Storage

TABLE_VERSION = 8
METAFOLDER = ".hoodie"
PARTITION_METAFILE = ".hoodie_partition_metadata"
# Empty folders Spark creates with a table; Java tools expect them.
_EMPTY_DIRS = (
    ".hoodie/timeline/history",
    ".hoodie/.temp",
    ".hoodie/.aux/.bootstrap/.partitions",
    ".hoodie/.aux/.bootstrap/.fileids",
    ".hoodie/.schema",
)


@dataclass(frozen=True)
class TableDefinition:
    """Everything hoodie.properties records about a new table."""

    name: str
    table_type: TableType
    create_schema: str
    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...]
    key_generator: KeyGeneratorType
    ordering_field: str | None
    merge_mode: RecordMergeMode
    hive_style_partitioning: bool = False
    partition_path_urlencode: bool = False
    populate_meta_fields: bool = True
    database_name: str = "default"
    partition_field_types: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, str] = field(default_factory=dict)
    version: int = TABLE_VERSION

    def properties(self) -> dict[str, str]:
        """hoodie.properties entries, in the order a Hudi 1.0 Spark writer emits them.

        Version 9 (Apache Hudi 1.1+) names the ordering fields `hoodie.table.ordering.fields`, keeps
        the merge mode alone (no payload class or strategy id) and records the table format.
        """
        event_time = self.merge_mode is RecordMergeMode.EVENT_TIME_ORDERING
        v9 = self.version >= 9
        # Version 8 also names the merge rule by payload class and strategy id; version 9 does not.
        payload_class = DEFAULT_PAYLOAD_CLASS if event_time else OVERWRITE_PAYLOAD_CLASS
        strategy_id = EVENT_TIME_STRATEGY_ID if event_time else COMMIT_TIME_STRATEGY_ID
        partition_entries = [
            f"{f}:{self.partition_field_types[f].lower()}" if f in self.partition_field_types else f
            for f in self.partition_fields
        ]
        props: dict[str, Any] = {
            HudiTableConfig.PAYLOAD_CLASS.key: None if v9 else payload_class,
            HudiTableConfig.INITIAL_VERSION.key: str(self.version),
            HudiTableConfig.KEY_GENERATOR_TYPE.key: self.key_generator.value,
            HudiTableConfig.TYPE.key: self.table_type.value,
            HudiTableConfig.PRECOMBINE_FIELD.key: None if v9 else self.ordering_field,
            HudiTableConfig.PARTITION_FIELDS.key: ",".join(partition_entries) or None,
            HudiTableConfig.ARCHIVELOG_FOLDER.key: "archived",
            HudiTableConfig.CREATE_SCHEMA.key: self.create_schema,
            HudiTableConfig.TIMELINE_LAYOUT_VERSION.key: "2",
            HudiTableConfig.TIMELINE_HISTORY_PATH.key: "history",
            HudiTableConfig.CHECKSUM.key: str(table_checksum(self.database_name, self.name)),
            HudiTableConfig.DROP_PARTITION_COLUMNS.key: "false",
            HudiTableConfig.RECORD_MERGE_STRATEGY_ID.key: None if v9 else strategy_id,
            HudiTableConfig.TABLE_FORMAT.key: "native" if v9 else None,
            HudiTableConfig.NAME.key: self.name,
            HudiTableConfig.RECORD_KEY_FIELDS.key: ",".join(self.record_key_fields) or None,  # absent: auto keys
            HudiTableConfig.TIMELINE_PATH.key: "timeline",
            HudiTableConfig.HIVE_STYLE_PARTITIONING.key: str(self.hive_style_partitioning).lower(),
            HudiTableConfig.DATABASE_NAME.key: self.database_name,
            HudiTableConfig.PARTITION_PATH_URLENCODE.key: str(self.partition_path_urlencode).lower(),
            HudiTableConfig.RECORD_MERGE_MODE.key: self.merge_mode.value,
            HudiTableConfig.VERSION.key: str(self.version),
            HudiTableConfig.ORDERING_FIELDS.key: self.ordering_field if v9 else None,
            HudiTableConfig.POPULATE_META_FIELDS.key: None if self.populate_meta_fields else "false",
        }
        props.update(self.extra)
        return {k: str(v) for k, v in props.items() if v is not None}


def write_new_table(storage: Storage, definition: TableDefinition) -> None:
    """Lays out `.hoodie/` and publishes hoodie.properties (create-if-absent: one creator wins)."""
    for folder in _EMPTY_DIRS:
        storage.makedirs(folder)
    text = format_properties(definition.properties(), f"Properties saved on {datetime.now(UTC).isoformat()}")
    if not storage.create_exclusive(PROPERTIES_FILE, text.encode("utf-8")):
        raise TableExistsError(f"a Hudi table already exists at {storage.base_uri}")


def write_partition_metafile(storage: Storage, partition_path: str, instant_time: str) -> None:
    """`.hoodie_partition_metadata` of a partition (Java lists partitions by this file, notes §2.3)."""
    path = posixpath.join(partition_path, PARTITION_METAFILE) if partition_path else PARTITION_METAFILE
    if storage.exists(path):
        return
    depth = len(partition_path.split("/")) if partition_path else 0
    text = format_properties({"commitTime": instant_time, "partitionDepth": str(depth)}, "partition metadata")
    storage.create_exclusive(path, text.encode("utf-8"))


def refuse_meta_field_roles(
    record_key_fields: Sequence[str], partition_fields: Sequence[str], ordering_fields: Sequence[str]
) -> None:
    """A meta column cannot key, partition or order records: writers drop incoming meta columns and
    fill them from those very fields (as Apache Hudi's writer does)."""
    for role, names in (
        ("record key", record_key_fields),
        ("partition", partition_fields),
        ("ordering", ordering_fields),
    ):
        meta = [n for n in names if n in META_FIELD_SET]
        if meta:
            raise SchemaError(
                f"{role} field(s) {meta} are Hudi meta columns, which the writer fills itself; name data columns"
            )


def _parse_merge_mode(options: Mapping[str, str], ordering_field: str | None) -> RecordMergeMode:
    configs = HudiConfigs(options)
    mode = configs.get(HudiWriteConfig.RECORD_MERGE_MODE) or configs.get(HudiTableConfig.RECORD_MERGE_MODE)
    payload = configs.get(HudiWriteConfig.PAYLOAD_CLASS) or configs.get(HudiTableConfig.PAYLOAD_CLASS)
    if mode is None and payload:
        mode = payload_merge_mode(payload)
    if mode is None:
        mode = infer_merge_mode(None, [ordering_field] if ordering_field else [], TABLE_VERSION)
    if mode is RecordMergeMode.CUSTOM:
        raise UnsupportedFeatureError("CUSTOM merge mode (user record mergers) is not supported")
    if mode is RecordMergeMode.EVENT_TIME_ORDERING and ordering_field is None:
        raise HudiConfigError(f"EVENT_TIME_ORDERING needs an ordering field ({HudiWriteConfig.PRECOMBINE_FIELD.key})")
    return mode


def _key_generator(
    options: Mapping[str, str], record_keys: Sequence[str], partitions: Sequence[str], types: Mapping[str, str]
) -> KeyGeneratorType:
    configs = HudiConfigs(options)
    given_type = configs.get(HudiWriteConfig.KEY_GENERATOR_TYPE) or configs.get(HudiTableConfig.KEY_GENERATOR_TYPE)
    given_class = configs.get(HudiWriteConfig.KEY_GENERATOR_CLASS)
    if given_type:
        return given_type
    if given_class:
        return KEY_GENERATOR_CLASSES[given_class]
    return configs.get(HudiTableConfig.KEY_GENERATOR_CLASS) or infer_key_generator_type(
        list(record_keys), list(partitions), types
    )


# The option each create() field argument sets, named in errors about it.
_FIELD_KEYS = {
    "record key": HudiTableConfig.RECORD_KEY_FIELDS.key,
    "partition": HudiTableConfig.PARTITION_FIELDS.key,
    "ordering": HudiTableConfig.PRECOMBINE_FIELD.key,
}


def _field_list(fields: Sequence[str] | str | None) -> list[str]:
    """Field names given as a list, or as one comma-separated string."""
    if isinstance(fields, str):
        return [f.strip() for f in fields.split(",") if f.strip()]
    return list(fields or [])


def _check_arguments(schema: pa.Schema, table_name: str, table_type: str, options: Mapping[str, str]) -> TableType:
    """Checks the arguments of `HudiTable.create` that options could also set; returns the table type.

    An option that contradicts an argument (another `hoodie.table.name`, table type or version) is
    an error, never silently overridden.
    """
    if not isinstance(schema, pa.Schema):
        raise SchemaError(f"a table schema must be a pyarrow.Schema, got {type(schema).__name__}")
    if not isinstance(table_name, str) or not table_name or not all(c.isalnum() or c in "_-" for c in table_name):
        raise HudiConfigError(
            f"invalid table name {table_name!r} ({HudiTableConfig.NAME.key}): use letters, digits, '_' and '-'"
        )
    if not isinstance(table_type, str):
        raise HudiConfigError(f"{HudiTableConfig.TYPE.key} must be a string, got {type(table_type).__name__}")
    kind = HudiTableConfig.TYPE.parse(table_type)
    configs = HudiConfigs(options)
    given = {
        HudiTableConfig.NAME.key: (configs.get(HudiTableConfig.NAME), table_name),
        HudiTableConfig.TYPE.key: (configs.get(HudiTableConfig.TYPE), kind),
        HudiWriteConfig.TABLE_TYPE.key: (configs.get(HudiWriteConfig.TABLE_TYPE), kind),
        HudiTableConfig.VERSION.key: (
            configs.get(HudiTableConfig.VERSION),
            configs.value(HudiWriteConfig.WRITE_TABLE_VERSION),
        ),
    }
    for key, (value, decided) in given.items():
        if key in options and value != decided:
            shown = decided.value if isinstance(decided, TableType) else decided
            raise HudiConfigError(f"option {key}={options[key]} contradicts the table being created ({shown})")
    return kind


def table_definition(
    schema: pa.Schema,
    table_name: str,
    record_key_fields: Sequence[str],
    partition_fields: Sequence[str] | None,
    ordering_fields: Sequence[str] | None,
    table_type: str,
    options: Mapping[str, str],
) -> TableDefinition:
    """Validates a new table's definition (see `HudiTable.create`)."""
    validate_options(options)
    kind = _check_arguments(schema, table_name, table_type, options)
    data_schema = normalize_for_write(schema.empty_table()).schema
    columns = set(data_schema.names)
    record_key_fields, partition_fields, ordering_fields = (
        _field_list(fields) for fields in (record_key_fields, partition_fields, ordering_fields)
    )
    if not record_key_fields and not HudiConfigs(options).value(HudiTableConfig.POPULATE_META_FIELDS):
        # Without key fields the generated keys live only in _hoodie_record_key.
        meta = HudiTableConfig.POPULATE_META_FIELDS.key
        raise HudiConfigError(f"a table without record key fields (auto-generated keys) needs {meta}=true")
    entries = list(partition_fields or [])
    partitions = [p.split(":", 1)[0] for p in entries]
    types = {p.split(":", 1)[0]: p.split(":", 1)[1].upper() for p in entries if ":" in p}
    unknown_types = sorted({t for t in types.values() if t not in ("SIMPLE", "TIMESTAMP")})
    if unknown_types:
        raise HudiConfigError(
            f"partition field types {unknown_types} in {HudiTableConfig.PARTITION_FIELDS.key}: use field:simple or "
            "field:timestamp"
        )
    ordering = list(ordering_fields or [])
    if len(ordering) > 1:
        raise HudiConfigError(f"a table takes at most one ordering field, got {ordering}")
    refuse_meta_field_roles(record_key_fields, partitions, ordering)
    for role, names in (("record key", record_key_fields), ("partition", partitions), ("ordering", ordering)):
        missing = [n for n in names if n not in columns]
        if missing:
            raise SchemaError(
                f"{role} field(s) {missing} are not columns of the schema ({sorted(columns)}; {_FIELD_KEYS[role]})"
            )
    configs = HudiConfigs(options)
    key_generator = _key_generator(options, record_key_fields, partitions, types)
    if key_generator is KeyGeneratorType.NON_PARTITION and partitions:
        raise HudiConfigError(f"the non-partitioned key generator cannot partition by {partitions}")
    timestamp_options = {k: v for k, v in options.items() if k.startswith(TIMESTAMP_KEYGEN_PREFIXES)}
    extra = {
        k.replace(LEGACY_TIMESTAMP_KEYGEN_PREFIX, TIMESTAMP_KEYGEN_PREFIX, 1): v for k, v in timestamp_options.items()
    }
    if configs.value(HudiTableConfig.CDC_ENABLED):
        extra[HudiTableConfig.CDC_ENABLED.key] = "true"
        mode = configs.value(HudiTableConfig.CDC_LOGGING_MODE)
        extra[HudiTableConfig.CDC_LOGGING_MODE.key] = mode.value
    return TableDefinition(
        name=table_name,
        table_type=kind,
        create_schema=json.dumps(table_avro_schema(data_schema, table_name), separators=(",", ":")),
        record_key_fields=tuple(record_key_fields),
        partition_fields=tuple(partitions),
        key_generator=key_generator,
        ordering_field=ordering[0] if ordering else None,
        merge_mode=_parse_merge_mode(options, ordering[0] if ordering else None),
        hive_style_partitioning=configs.value(HudiTableConfig.HIVE_STYLE_PARTITIONING),
        partition_path_urlencode=configs.value(HudiTableConfig.PARTITION_PATH_URLENCODE),
        populate_meta_fields=configs.value(HudiTableConfig.POPULATE_META_FIELDS),
        database_name=configs.get(HudiTableConfig.DATABASE_NAME) or "default",
        partition_field_types=types,
        extra=extra,
        version=configs.value(HudiWriteConfig.WRITE_TABLE_VERSION),
    )


def update_table_properties(storage: Storage, updates: Mapping[str, str | None]) -> None:
    """Changes hoodie.properties entries (None removes one) with Hudi's update protocol.

    The current file is copied to `hoodie.properties.backup` first, so a reader that meets a
    half-written file falls back to the backup; the backup goes once the new file is in place.
    """
    current = storage.read_bytes(PROPERTIES_FILE)
    props = parse_properties(current.decode("utf-8"), storage.full_path(PROPERTIES_FILE))
    changed = dict(props)
    for key, value in updates.items():
        if value is None:
            changed.pop(key, None)
        else:
            changed[key] = value
    if changed == props:
        return
    storage.write_atomic(PROPERTIES_BACKUP_FILE, current)
    text = format_properties(changed, f"Updated at {datetime.now(UTC).isoformat()}")
    storage.write_atomic(PROPERTIES_FILE, text.encode("utf-8"))
    storage.delete(PROPERTIES_BACKUP_FILE)
