"""Preparing a batch for writing: validation, key generation, de-duplication.

Everything here runs before an instant is requested, so a rejected batch leaves the table exactly as
it was. Checks: the data converts to writable Arrow types; the schema is an accepted evolution of the
table's; record key fields are present and never null or empty; partition and ordering fields are
present (ordering values never null); insert duplicates follow `hoodie.datasource.insert.dup.policy`.
The delete operation keeps no ordering values: it deletes by key, whatever the stored records hold
(a `_hoodie_is_deleted = true` row of an upsert is the delete that keeps its ordering value).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import DuplicateKeyError, InvalidKeyError, SchemaError
from hudi_core.keygen import KeyGenerator, auto_key_suffixes
from hudi_core.merge.dedup import has_duplicates, last_per_key
from hudi_core.schema.arrow_avro import normalize_for_write
from hudi_core.schema.evolution import cast_to_schema, evolve_schema
from hudi_core.schema.meta_fields import IS_DELETED, META_FIELD_SET
from hudi_core.table.create import refuse_meta_field_roles
from hudi_core.write.operation import WriteOperation

# Columns the write path carries next to the data.
KEY = "__hudi_write_key"
PARTITION = "__hudi_write_partition"
DELETED = "__hudi_write_deleted"
TAGGED = "__hudi_tagged"  # the index located the record (an update or delete, not an insert)
BASE_POSITION = "__hudi_base_position"  # a tagged record's row in its base file (null: unknown)
INTERNAL_COLUMNS = (KEY, PARTITION, DELETED)


@dataclass(frozen=True)
class PreparedBatch:
    """A validated batch.

    Attributes:
        rows: data columns in `schema`, then the record key, partition path and delete flag.
        schema: the table's data schema after this write (evolved if the batch added columns).
    """

    rows: pa.Table
    schema: pa.Schema

    @property
    def num_rows(self) -> int:
        return int(self.rows.num_rows)

    def data(self) -> pa.Table:
        return self.rows.drop_columns(list(INTERNAL_COLUMNS))


def to_arrow(data: Any) -> pa.Table:
    """An Arrow table from a pyarrow Table, RecordBatch(Reader), pandas DataFrame or list of dicts."""
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if type(data).__module__.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, list) and all(isinstance(row, dict) for row in data):
        try:
            return pa.Table.from_pylist(data)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise SchemaError(f"the rows do not form a table: {e}") from e
    kinds = "a pyarrow Table, RecordBatchReader, pandas DataFrame or list of dicts"
    raise SchemaError(f"cannot write {type(data).__name__}: pass {kinds}")


def prepare_batch(
    data: Any,
    operation: WriteOperation,
    table_schema: pa.Schema | None,
    keygen: KeyGenerator,
    ordering_field: str | None,
    dedup: bool,
    global_index: bool,
    auto_key_start: tuple[int, int] = (0, 0),
) -> PreparedBatch:
    """Validates and keys a batch (see module docstring); raises before anything is written.

    `auto_key_start`: on a table without record key fields, the task number and first row number
    of the batch's generated keys (`hudi_core.keygen.auto_key_suffixes`).
    """
    refuse_meta_field_roles(
        keygen.record_key_fields, keygen.partition_fields, [ordering_field] if ordering_field else []
    )
    table = to_arrow(data)
    # Incoming meta columns (a read's output written back) are dropped and filled anew, as Hudi does.
    table = table.drop_columns([c for c in table.column_names if c in META_FIELD_SET])
    table = normalize_for_write(table)
    duplicated = {n for n in table.column_names if table.column_names.count(n) > 1}
    if duplicated:
        raise SchemaError(f"the data has duplicate column names {sorted(duplicated)}")
    deleting = operation is WriteOperation.DELETE
    missing_keys = [n for n in keygen.record_key_fields if n not in table.column_names]
    if missing_keys:
        raise InvalidKeyError(f"record key field(s) {missing_keys} missing from the data")
    if deleting:
        needed = list(keygen.record_key_fields) + ([] if global_index else list(keygen.partition_fields))
        missing = [n for n in needed if n not in table.column_names]
        if missing:
            raise SchemaError(f"delete needs column(s) {missing} to locate records")
    schema = evolve_schema(table_schema, table.schema, require_all=not deleting)
    table = cast_to_schema(table, schema) if not deleting else _cast_present(table, schema)
    if ordering_field and not deleting:
        if ordering_field not in table.column_names:
            raise SchemaError(f"ordering field {ordering_field!r} is missing from the data")
        nulls = table.column(ordering_field).null_count
        if nulls:
            raise SchemaError(f"ordering field {ordering_field!r} is null in {nulls} record(s)")
    keys = (
        keygen.record_keys(table) if not keygen.generates_keys else auto_key_suffixes(table.num_rows, *auto_key_start)
    )
    partitions = (
        keygen.partition_paths(table) if not (deleting and global_index) else pa.nulls(table.num_rows, pa.string())
    )
    deleted = pa.repeat(True, table.num_rows) if deleting else _is_deleted(table)
    if deleting and ordering_field in table.column_names:
        # Hudi's delete operation deletes by key: its records carry no ordering value (Hudi's
        # EmptyHoodieRecordPayload), so they win over any stored record, as under commit-time ordering.
        table = table.drop_columns([ordering_field])
    rows = table.append_column(KEY, keys).append_column(PARTITION, partitions).append_column(DELETED, deleted)
    if dedup and not keygen.generates_keys:  # generated keys are unique
        group = KEY if global_index else "__hudi_write_group"
        if not global_index:
            rows = rows.append_column(
                group, pc.binary_join_element_wise(rows.column(PARTITION), rows.column(KEY), "\x00")
            )
        order = ordering_field if ordering_field in rows.column_names and not deleting else None
        rows = last_per_key(rows, group, order)
        if not global_index:
            rows = rows.drop_columns([group])
    return PreparedBatch(rows, schema)


def with_deletes(
    batch: PreparedBatch,
    deletes: Any,
    keygen: KeyGenerator,
    ordering_field: str | None,
    global_index: bool,
) -> PreparedBatch:
    """`batch` plus the records `deletes` names (record key and partition columns), deleted in the
    same commit as the batch is written.

    They delete by key, as the delete operation does, whatever ordering value the stored records
    hold; no `_hoodie_is_deleted` column reaches the table. A key both written and deleted is refused.
    """
    table = to_arrow(deletes)
    located = [*keygen.record_key_fields, *([] if global_index else keygen.partition_fields)]
    missing = [n for n in located if n not in table.column_names]
    if missing:
        raise SchemaError(f"deleted records need column(s) {missing} to locate them")
    removed = prepare_batch(
        table.select(located),
        WriteOperation.DELETE,
        batch.schema,
        keygen,
        ordering_field,
        dedup=True,
        global_index=global_index,
    ).rows
    if not removed.num_rows:
        return batch

    def identities(rows: pa.Table) -> pa.ChunkedArray | pa.Array:
        if global_index:
            return rows.column(KEY)
        return pc.binary_join_element_wise(rows.column(PARTITION), rows.column(KEY), "\x00")

    both = pc.is_in(identities(removed), value_set=identities(batch.rows).combine_chunks())
    overlap = int(pc.sum(pc.cast(both, pa.int64())).as_py() or 0)
    if overlap:
        raise InvalidKeyError(f"{overlap} record(s) are both written and deleted by the same write")
    columns = [
        removed.column(f.name) if f.name in removed.column_names else pa.nulls(removed.num_rows, f.type)
        for f in batch.rows.schema
    ]
    padded = pa.Table.from_arrays(columns, schema=batch.rows.schema)
    return PreparedBatch(pa.concat_tables([batch.rows, padded]), batch.schema)


def _cast_present(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A delete batch: the columns it has, in the table's types."""
    fields = [f for f in schema if f.name in table.column_names]
    return cast_to_schema(table.select([f.name for f in fields]), pa.schema(fields))


def _is_deleted(table: pa.Table) -> pa.ChunkedArray | pa.Array:
    if IS_DELETED in table.column_names and pa.types.is_boolean(table.column(IS_DELETED).type):
        return pc.fill_null(table.column(IS_DELETED), False)
    return pa.repeat(False, table.num_rows)


def check_insert_duplicates(batch: PreparedBatch, global_index: bool) -> None:
    """`hoodie.datasource.insert.dup.policy=fail` within the batch itself."""
    keys = (
        batch.rows.column(KEY)
        if global_index
        else pc.binary_join_element_wise(batch.rows.column(PARTITION), batch.rows.column(KEY), "\x00")
    )
    if has_duplicates(keys):
        raise DuplicateKeyError(
            f"the insert batch holds duplicate record keys ({HudiWriteConfig.INSERT_DUP_POLICY.key}=fail)"
        )
