"""Key generators: the record key (and partition path) of each row (spec notes §7).

* simple: the single key field's value as a string;
* complex: `f1:v1,f2:v2`, with `__null__` / `__empty__` for null / empty values; a single-field
  complex key is the bare value on table v8 (Hudi 1.0.2) and `f:v` on v9;
* non-partitioned and timestamp-based generators derive keys like simple/complex ones.

Keys are computed column-wise with Arrow compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.table import KeyGeneratorType
from hudi_core.errors import SchemaError
from hudi_core.schema.meta_fields import RECORD_KEY

NULL_KEY_PART = "__null__"
EMPTY_KEY_PART = "__empty__"


def _as_string(column: pa.ChunkedArray | pa.Array, name: str) -> pa.ChunkedArray | pa.Array:
    try:
        return pc.cast(column, pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise SchemaError(f"record key field {name!r} of type {column.type} has no string form") from e


def record_keys(
    table: pa.Table, fields: Sequence[str], key_generator: KeyGeneratorType, field_prefixed_single: bool
) -> pa.ChunkedArray | pa.Array:
    """The record key of every row of `table`.

    Args:
        table: rows holding the key fields.
        fields: the record key fields.
        key_generator: the table's key generator type.
        field_prefixed_single: whether a single-field complex key is written `f:v` (v9) or bare (v8).
    """
    missing = [f for f in fields if f not in table.column_names]
    if missing:
        raise SchemaError(f"record key field(s) {missing} missing from the data")
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
    """Where a table's record keys come from.

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
