"""Schema evolution on write: which incoming schemas a table accepts, and the evolved table schema.

Accepted (Avro-compatible, so older files stay readable): new nullable columns (also nested
fields), and promotions int->long, int/long->float/double, float->double, string<->bytes. An
incoming column narrower than the table's is cast up. A missing column, or any other type change,
is rejected naming the column: dropping or retyping data is not an evolution Hudi readers accept.
"""

from __future__ import annotations

import pyarrow as pa

from hudi_core.errors import SchemaError
from hudi_core.schema.conform import conform_table

_PROMOTIONS = {
    (pa.int32(), pa.int64()),
    (pa.int32(), pa.float32()),
    (pa.int32(), pa.float64()),
    (pa.int64(), pa.float32()),
    (pa.int64(), pa.float64()),
    (pa.float32(), pa.float64()),
    (pa.string(), pa.binary()),
    (pa.binary(), pa.string()),
}


def _promotable(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether Avro schema resolution reads `source` data as `target`."""
    return source.equals(target) or (source, target) in _PROMOTIONS


def _evolve_type(table: pa.DataType, incoming: pa.DataType, where: str) -> pa.DataType:
    if table.equals(incoming):
        return table
    if pa.types.is_struct(table) and pa.types.is_struct(incoming):
        fields = []
        for child in table:
            index = incoming.get_field_index(child.name)
            if index < 0:
                raise SchemaError(f"{where}.{child.name}: nested field missing from the data")
            fields.append(
                pa.field(child.name, _evolve_type(child.type, incoming.field(index).type, f"{where}.{child.name}"))
            )
        fields += [pa.field(f.name, f.type) for f in incoming if table.get_field_index(f.name) < 0]
        return pa.struct(fields)
    if pa.types.is_list(table) and pa.types.is_list(incoming):
        return pa.list_(pa.field("element", _evolve_type(table.value_type, incoming.value_type, f"{where}[]")))
    if pa.types.is_map(table) and pa.types.is_map(incoming):
        value = _evolve_type(table.item_type, incoming.item_type, f"{where}{{}}")
        return pa.map_(pa.field("key", table.key_type, nullable=False), pa.field("value", value))
    if pa.types.is_decimal(table) and pa.types.is_decimal(incoming):
        if incoming.scale == table.scale and incoming.precision <= table.precision:
            return table
        raise SchemaError(f"{where}: decimal({incoming.precision},{incoming.scale}) does not fit the table's {table}")
    same_time_kind = (
        pa.types.is_timestamp(table)
        and pa.types.is_timestamp(incoming)
        and table.unit == incoming.unit
        and (table.tz is None) == (incoming.tz is None)
    )
    if same_time_kind:
        return table
    if _promotable(incoming, table):
        return table  # narrower data: cast up on write
    if _promotable(table, incoming):
        return incoming  # the table's type widens
    raise SchemaError(f"{where}: the data's type {incoming} is not compatible with the table's type {table}")


def evolve_schema(table_schema: pa.Schema | None, incoming: pa.Schema, require_all: bool = True) -> pa.Schema:
    """The table schema after accepting `incoming` (data columns only).

    Args:
        table_schema: the current data schema, or None for a table's first write.
        incoming: the schema of the data being written.
        require_all: every table column must be present (False for deletes, which need keys only).
    """
    if table_schema is None:
        return pa.schema([pa.field(f.name, f.type) for f in incoming])
    fields = []
    for field in table_schema:
        index = incoming.get_field_index(field.name)
        if index < 0:
            if require_all:
                raise SchemaError(f"column {field.name!r} of the table is missing from the data")
            fields.append(field)
            continue
        fields.append(
            pa.field(field.name, _evolve_type(field.type, incoming.field(index).type, f"column {field.name!r}"))
        )
    fields += [pa.field(f.name, f.type) for f in incoming if table_schema.get_field_index(f.name) < 0]
    return pa.schema(fields)


def cast_to_schema(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """`table` in `schema` (columns the data lacks become null)."""
    return conform_table(table, schema, "write data")
