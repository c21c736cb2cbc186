"""The five `_hoodie_*` meta columns Hudi prepends to every record (spec notes §8.1)."""

from __future__ import annotations

import pyarrow as pa

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"

META_FIELDS: tuple[str, ...] = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)
META_FIELD_SET = frozenset(META_FIELDS)

# A data column (not a meta column) that marks a record as deleted when true (spec features §1.4).
IS_DELETED = "_hoodie_is_deleted"


def meta_arrow_fields() -> list[pa.Field]:
    return [pa.field(name, pa.string()) for name in META_FIELDS]


def with_meta_fields(schema: pa.Schema) -> pa.Schema:
    """`schema` with the meta columns first (any meta columns already in it are replaced)."""
    data_fields = [f for f in schema if f.name not in META_FIELD_SET]
    return pa.schema(meta_arrow_fields() + data_fields)


def without_meta_fields(schema: pa.Schema) -> pa.Schema:
    return pa.schema([f for f in schema if f.name not in META_FIELD_SET])
