"""Bringing data read from one file to the table schema.

Files written before a schema change lack added columns (filled with nulls) and may hold
narrower types (Avro promotions int->long, int/long->float/double, float->double, string<->bytes);
nested structs, lists and maps evolve the same way. Legacy two-level Parquet lists name their
element `array`; the table schema names it `element`.
"""

from __future__ import annotations

import pyarrow as pa

from hudi_core.errors import SchemaError


def null_rows(schema: pa.Schema, count: int) -> pa.Table:
    """`count` rows of nulls in `schema` (placeholders for absent images, missing columns, ...)."""
    return pa.Table.from_arrays([pa.nulls(count, f.type) for f in schema], schema=schema)


def conform_table(table: pa.Table, schema: pa.Schema, where: str) -> pa.Table:
    """`table` with exactly the fields of `schema`, in its order and with its types."""
    if table.schema.equals(schema, check_metadata=False):
        return table
    columns: list[pa.ChunkedArray | pa.Array] = []
    for field in schema:
        index = table.schema.get_field_index(field.name)
        if index < 0:
            columns.append(pa.nulls(table.num_rows, field.type))
        else:
            columns.append(conform_chunked(table.column(index), field.type, f"{where}: column {field.name}"))
    return pa.Table.from_arrays(columns, schema=schema)


def conform_chunked(column: pa.ChunkedArray, target: pa.DataType, where: str) -> pa.ChunkedArray:
    if column.type.equals(target):
        return column
    return pa.chunked_array([conform_array(chunk, target, where) for chunk in column.chunks], type=target)


def conform_array(array: pa.Array, target: pa.DataType, where: str) -> pa.Array:
    """`array` as `target`, recursing into nested types; raises SchemaError when impossible."""
    source = array.type
    if source.equals(target):
        return array
    if pa.types.is_null(source):
        return pa.nulls(len(array), target)
    if array.offset and (pa.types.is_nested(source)):
        array = pa.concat_arrays([array])  # nested builders reject sliced validity bitmaps
    mask = array.is_null() if array.null_count else None
    if pa.types.is_struct(target) and pa.types.is_struct(source):
        children = []
        for child in target:
            idx = source.get_field_index(child.name)
            if idx < 0:
                children.append(pa.nulls(len(array), child.type))
            else:
                children.append(conform_array(array.field(idx), child.type, f"{where}.{child.name}"))
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)
    if pa.types.is_list(target) and (pa.types.is_list(source) or pa.types.is_large_list(source)):
        flat = array.cast(pa.list_(source.value_field)) if pa.types.is_large_list(source) else array
        values = conform_array(flat.values, target.value_type, f"{where}[]")
        return pa.ListArray.from_arrays(flat.offsets, values, type=target, mask=mask)
    if pa.types.is_map(target) and pa.types.is_map(source):
        keys = conform_array(array.keys, target.key_type, f"{where}{{key}}")
        items = conform_array(array.items, target.item_type, f"{where}{{value}}")
        return pa.MapArray.from_arrays(array.offsets, keys, items, type=target, mask=mask)
    try:
        return array.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise SchemaError(f"{where}: cannot read {source} as {target}: {e}") from e
