"""`HoodieMetadataRecord`: the one record type of every metadata-table partition (notes §5.2, A.5).

Values are Avro binary datums of the schema Hudi 1.0.x writes (`HoodieMetadataRecord.avsc`, a copy
of notes Appendix A.5) or, on metadata tables Apache Hudi 1.1+ wrote, 1.2's
(`HoodieMetadataRecordV9.avsc`); log blocks and HFiles declare it with the five `_hoodie_*` fields
in front (`MetadataRecordSchema.stored`), all null because the metadata table does not populate
meta fields. The record key lives in the HFile cell's row, so the Avro `key` field is written empty.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from typing import Any

import fastavro

from hudi_core.schema.meta_fields import META_FIELDS


@dataclass(frozen=True)
class MetadataRecordSchema:
    """The `HoodieMetadataRecord` schema of one table version, as written and as stored.

    Attributes:
        record: the record schema.
        stored: the record schema with the five `_hoodie_*` fields in front (block headers, HFile info).
    """

    record: dict[str, Any]
    stored: dict[str, Any]

    @functools.cached_property
    def record_json(self) -> str:
        return json.dumps(self.record, separators=(",", ":"))

    @functools.cached_property
    def stored_json(self) -> str:
        return json.dumps(self.stored, separators=(",", ":"))

    @functools.cached_property
    def parsed_stored(self) -> Any:
        return fastavro.parse_schema(self.stored)


def _load(resource: str) -> MetadataRecordSchema:
    record = json.loads(resources.files("hudi_core.metadata").joinpath(resource).read_text(encoding="utf-8"))
    meta = [{"name": name, "type": ["null", "string"], "doc": "", "default": None} for name in META_FIELDS]
    return MetadataRecordSchema(record, {**record, "fields": [*meta, *record["fields"]]})


# Table version 9 (Apache Hudi 1.1+) adds column statistics' `valueType` and an `ArrayWrapper` value
# branch; a metadata table keeps one schema, or readers cannot reconcile its blocks.
SCHEMA_V8 = _load("HoodieMetadataRecord.avsc")
SCHEMA_V9 = _load("HoodieMetadataRecordV9.avsc")


def metadata_record_schema(table_version: int) -> MetadataRecordSchema:
    """The schema a metadata table of `table_version` writes its records in."""
    return SCHEMA_V9 if table_version >= 9 else SCHEMA_V8


ALL_PARTITIONS_KEY = "__all_partitions__"
NON_PARTITIONED_NAME = "."  # how the metadata table names the partition of a non-partitioned table


class RecordType(IntEnum):
    ALL_PARTITIONS = 1
    PARTITION_FILES = 2
    COLUMN_STATS = 3
    BLOOM_FILTER = 4
    RECORD_INDEX = 5
    PARTITION_STATS = 6


MetadataRecord = dict[str, Any]

_PAYLOAD_FIELDS = (
    "filesystemMetadata",
    "BloomFilterMetadata",
    "ColumnStatsMetadata",
    "recordIndexMetadata",
    "SecondaryIndexMetadata",
)


def partition_name(partition_path: str) -> str:
    """The metadata table's name of a data-table partition ("." for the table's root)."""
    return partition_path or NON_PARTITIONED_NAME


def partition_path(name: str) -> str:
    """The data-table partition path a metadata-table partition name stands for."""
    return "" if name == NON_PARTITIONED_NAME else name


def new_record(record_type: RecordType, **payload: Any) -> MetadataRecord:
    record: MetadataRecord = dict.fromkeys(META_FIELDS)
    record.update({"key": "", "type": int(record_type)})
    record.update(dict.fromkeys(_PAYLOAD_FIELDS))
    record.update(payload)
    return record


def files_record(added: Mapping[str, int], deleted: Sequence[str] = ()) -> MetadataRecord:
    """A `files` entry of one partition: files added (name -> size) and files deleted."""
    listing = {name: {"size": int(size), "isDeleted": False} for name, size in added.items()}
    listing.update({name: {"size": 0, "isDeleted": True} for name in deleted})
    return new_record(RecordType.PARTITION_FILES, filesystemMetadata=listing)


def all_partitions_record(added: Sequence[str], deleted: Sequence[str] = ()) -> MetadataRecord:
    """The `__all_partitions__` entry: partitions added and dropped (sizes are always 0)."""
    listing = {partition_name(p): {"size": 0, "isDeleted": False} for p in added}
    listing.update({partition_name(p): {"size": 0, "isDeleted": True} for p in deleted})
    return new_record(RecordType.ALL_PARTITIONS, filesystemMetadata=listing)


def encode(record: MetadataRecord, schema: MetadataRecordSchema) -> bytes:
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, schema.parsed_stored, record)
    return buffer.getvalue()


@functools.lru_cache(maxsize=16)
def _parsed(schema_json: str) -> Any:
    return fastavro.parse_schema(json.loads(schema_json))


def decode(value: bytes, writer_schema_json: str) -> MetadataRecord:
    """One datum written in `writer_schema_json` (a newer table's superset schema reads too)."""
    parsed = _parsed(writer_schema_json)
    # Wrapper unions come back as (branch name, record): IntWrapper and DateWrapper (or LongWrapper
    # and TimestampMicrosWrapper) hold the same shape, so a bare record re-encoded (a merge, a
    # compaction) would take the first such branch and change the value's type for Apache Hudi.
    record = fastavro.schemaless_reader(
        io.BytesIO(value), parsed, None, return_record_name=True, return_record_name_override=True
    )
    if not isinstance(record, dict):
        raise TypeError(f"a metadata record decoded to {type(record).__name__}")
    return record


def listed_files(record: MetadataRecord | None) -> dict[str, int]:
    """Name -> size of the live files (or partitions) of a `files` record."""
    if record is None:
        return {}
    listing = record.get("filesystemMetadata") or {}
    return {name: int(info["size"]) for name, info in listing.items() if not info["isDeleted"]}
