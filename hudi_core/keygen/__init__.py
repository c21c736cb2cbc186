"""Key generators: the record key and partition path of each row (spec notes §7).

* record keys: simple = the single key field's value; complex = `f1:v1,f2:v2` with `__null__` /
  `__empty__` for null / empty parts. A single-field complex key is the bare value on table v8
  (Hudi 1.0.2) and `f:v` on v9 (HUDI-7001).
* partition paths: field values joined by `/`, `field=value` when Hive style, null or empty as
  `__HIVE_DEFAULT_PARTITION__`, optionally URL-encoded; timestamp-based generators format a time;
  the custom generator mixes simple and timestamp fields; non-partitioned tables use "".

Keys and paths are computed column-wise with Arrow compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.properties import PROPERTIES_NAME
from hudi_core.config.table import HudiTableConfig, KeyGeneratorType, TableConfig
from hudi_core.errors import HudiConfigError, InvalidKeyError, SchemaError
from hudi_core.keygen.partition_path import segments, value_strings, written_segment_problem
from hudi_core.keygen.timestamp import TimestampPartitionFormat
from hudi_core.schema.meta_fields import RECORD_KEY

NULL_KEY_PART = "__null__"
EMPTY_KEY_PART = "__empty__"


def _as_string(column: Any, name: str, role: str = "record key") -> Any:
    try:
        return value_strings(column, name)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise SchemaError(f"{role} field {name!r} of type {column.type} has no string form ({e})") from e


def record_keys(
    table: pa.Table, fields: Sequence[str], key_generator: KeyGeneratorType, field_prefixed_single: bool
) -> pa.ChunkedArray | pa.Array:
    """The record key of every row of `table` (null where a simple key is null)."""
    if not fields:
        raise HudiConfigError(
            f"the table declares no record key field ({HudiTableConfig.RECORD_KEY_FIELDS.key} is absent from "
            f"{PROPERTIES_NAME}); writes that need record keys cannot run on it"
        )
    missing = [f for f in fields if f not in table.column_names]
    if missing:
        raise InvalidKeyError(f"record key field(s) {missing} missing from the data")
    prefixed = len(fields) > 1 or (key_generator is KeyGeneratorType.COMPLEX and field_prefixed_single)
    if not prefixed:
        return _as_string(table.column(fields[0]), fields[0])
    parts = []
    for name in fields:
        text = _as_string(table.column(name), name)
        text = pc.if_else(pc.equal(text, ""), EMPTY_KEY_PART, text)
        parts.append(pc.binary_join_element_wise(f"{name}:", pc.fill_null(text, NULL_KEY_PART), ""))
    return pc.binary_join_element_wise(*parts, ",")


@dataclass(frozen=True)
class RecordKeySpec:
    """Where a table's record keys come from when reading.

    Attributes:
        fields: the record key fields.
        key_generator: the key generator type.
        from_meta_field: keys are stored in `_hoodie_record_key` (meta fields populated).
        field_prefixed_single: a single-field complex key is `f:v` (table v9) rather than bare.
    """

    fields: tuple[str, ...]
    key_generator: KeyGeneratorType
    from_meta_field: bool
    field_prefixed_single: bool

    @property
    def source_columns(self) -> tuple[str, ...]:
        """The columns a reader must load to know each row's key."""
        return (RECORD_KEY,) if self.from_meta_field else self.fields

    def keys(self, table: pa.Table) -> pa.ChunkedArray | pa.Array:
        """The record key of every row of `table`."""
        if self.from_meta_field and RECORD_KEY in table.column_names:
            return table.column(RECORD_KEY)
        return record_keys(table, self.fields, self.key_generator, self.field_prefixed_single)


@dataclass(frozen=True)
class KeyGenerator:
    """The key generator of one table, as its hoodie.properties persist it."""

    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...]
    generator: KeyGeneratorType
    hive_style: bool
    url_encode: bool
    field_prefixed_single: bool
    partition_field_types: dict[str, str] = field(default_factory=dict)
    timestamp_format: TimestampPartitionFormat | None = None

    @classmethod
    def from_table_config(cls, config: TableConfig) -> KeyGenerator:
        uses_time = config.key_generator_type is KeyGeneratorType.TIMESTAMP or "TIMESTAMP" in set(
            config.partition_field_types.values()
        )
        return cls(
            record_key_fields=tuple(config.record_key_fields),
            partition_fields=tuple(config.partition_fields),
            generator=config.key_generator_type,
            hive_style=config.hive_style_partitioning,
            url_encode=config.partition_path_urlencode,
            field_prefixed_single=config.version >= 9,
            partition_field_types=dict(config.partition_field_types),
            timestamp_format=TimestampPartitionFormat.from_options(config.timestamp_keygen_options)
            if uses_time
            else None,
        )

    @property
    def key_spec(self) -> RecordKeySpec:
        return self.key_spec_for(populate_meta_fields=True)

    def key_spec_for(self, populate_meta_fields: bool) -> RecordKeySpec:
        """Where stored keys are: `_hoodie_record_key`, or recomputed from the key fields."""
        return RecordKeySpec(self.record_key_fields, self.generator, populate_meta_fields, self.field_prefixed_single)

    @property
    def is_partitioned(self) -> bool:
        return self.generator is not KeyGeneratorType.NON_PARTITION and bool(self.partition_fields)

    @property
    def generates_keys(self) -> bool:
        """The table has no record key fields: Hudi generates keys (`AutoRecordGenWrapperKeyGenerator`)."""
        return not self.record_key_fields

    def record_keys(self, table: pa.Table) -> pa.ChunkedArray | pa.Array:
        """Validated record keys: a null or empty key is an InvalidKeyError naming the field."""
        keys = record_keys(table, self.record_key_fields, self.generator, self.field_prefixed_single)
        if len(self.record_key_fields) == 1:
            bad = pc.sum(pc.fill_null(pc.equal(keys, ""), True)).as_py() or 0
            if bad:
                raise InvalidKeyError(
                    f"{bad} record(s) have a null or empty record key field {self.record_key_fields[0]!r}"
                )
        else:
            every_missing = None
            for name in self.record_key_fields:
                column = table.column(name)
                missing = pc.is_null(column)
                if pa.types.is_string(column.type):
                    missing = pc.fill_null(pc.equal(column, ""), True)
                every_missing = missing if every_missing is None else pc.and_(every_missing, missing)
            bad = pc.sum(every_missing).as_py() or 0
            if bad:
                raise InvalidKeyError(
                    f"{bad} record(s) have every record key field {list(self.record_key_fields)} null or empty"
                )
        return keys

    def partition_paths(self, table: pa.Table) -> pa.ChunkedArray | pa.Array:
        """The partition path of every row ("" for non-partitioned tables)."""
        if not self.is_partitioned:
            return pa.repeat(pa.scalar("", pa.string()), table.num_rows)
        missing = [f for f in self.partition_fields if f not in table.column_names]
        if missing:
            raise SchemaError(f"partition field(s) {missing} missing from the data")
        parts = []
        for name in self.partition_fields:
            column = table.column(name)
            kind = (
                "TIMESTAMP"
                if self.generator is KeyGeneratorType.TIMESTAMP
                else self.partition_field_types.get(name, "SIMPLE")
            )
            if kind == "TIMESTAMP":
                assert self.timestamp_format is not None
                text = self.timestamp_format.format(column, name)
            else:
                text = _as_string(column, name, "partition")
            part = segments(text, name, self.hive_style, self.url_encode)
            _check_segments(text, part, name, self.url_encode)
            parts.append(part)
        return parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, "/")


def auto_key_suffixes(count: int, task: int = 0, first_row: int = 0) -> pa.Array:
    """The `<task>_<row>` part of auto-generated record keys, `<instant>_<task>_<row>` once written
    (Apache Hudi's `AutoRecordGenWrapperKeyGenerator`: the Spark partition id and the row's number in
    it). The instant is prepended when the write's instant is known (`WriteContext.auto_key_prefix`)."""
    rows = pc.cast(pa.array(np.arange(first_row, first_row + count, dtype=np.int64)), pa.string())
    return pc.binary_join_element_wise(f"{task}_", rows, "")


def _check_segments(values: Any, paths: Any, name: str, url_encode: bool) -> None:
    """Refuses values whose path would leave the partition folders (module `partition_path`).

    Hudi's key generators write such values as they are, so refusing them is the only choice that
    keeps tables readable by Hudi; a `/` inside a value stays legal (multi-level partitions). A
    leading `/` is refused unless URL-encoding turns it into `%2F`.
    """
    if not url_encode:
        leading = pc.filter(values, pc.fill_null(pc.starts_with(values, "/"), False))
        if len(leading):
            value = leading[0].as_py()
            raise SchemaError(f"partition field {name!r} has value {value!r}, whose leading '/' makes an absolute path")
    for path in pc.unique(paths).to_pylist():
        problem = next((p for p in map(written_segment_problem, path.split("/")) if p is not None), None)
        if problem is not None:
            _refuse(values, paths, path, name, problem)


def _refuse(values: Any, paths: Any, path: str, name: str, problem: str) -> None:
    value = pc.filter(values, pc.fill_null(pc.equal(paths, path), False))[0].as_py()
    raise SchemaError(f"partition field {name!r} has value {value!r}, whose partition path {path!r} has {problem}")
