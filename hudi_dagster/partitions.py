"""Dagster partitions <-> Hudi table partitions: filters for loads, checks for writes.

`partition_expr` metadata names the table column holding each Dagster partition dimension: a column
name for single-dimension assets, a {dimension: column} dict for multi-partitioned ones. Static and
time-window partition keys are matched against the column's values (strings by key; date and
timestamp columns by the time window). Dynamic partitions (and dynamic dimensions) match by key.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
import pyarrow as pa

Filter = tuple[str, str, Any]


def partition_columns(partition_expr: str | Mapping[str, str] | None) -> dict[str | None, str]:
    """{dimension (None for single-dimension assets): column} from `partition_expr` metadata."""
    if partition_expr is None:
        return {}
    if isinstance(partition_expr, str):
        return {None: partition_expr}
    if isinstance(partition_expr, Mapping):
        return {str(dimension): str(column) for dimension, column in partition_expr.items()}
    raise ValueError(f"partition_expr must be a column name or a {{dimension: column}} dict, not {partition_expr!r}")


def dimension_values(
    partitions_def: dg.PartitionsDefinition, keys: Sequence[str]
) -> dict[str | None, tuple[dg.PartitionsDefinition, list[str]]]:
    """The partition keys of each dimension touched by `keys` (multi-partition keys split)."""
    if isinstance(partitions_def, dg.MultiPartitionsDefinition):
        result: dict[str | None, tuple[dg.PartitionsDefinition, list[str]]] = {}
        parsed = [
            k if isinstance(k, dg.MultiPartitionKey) else partitions_def.get_partition_key_from_str(k) for k in keys
        ]
        for dimension in partitions_def.partitions_defs:
            values = sorted({k.keys_by_dimension[dimension.name] for k in parsed})
            result[dimension.name] = (dimension.partitions_def, values)
        return result
    if isinstance(
        partitions_def,
        (dg.TimeWindowPartitionsDefinition, dg.StaticPartitionsDefinition, dg.DynamicPartitionsDefinition),
    ):
        return {None: (partitions_def, list(keys))}
    raise ValueError(f"unsupported partitions definition for a Hudi table: {type(partitions_def).__name__}")


def partition_filters(
    partition_expr: str | Mapping[str, str] | None,
    partitions_def: dg.PartitionsDefinition | None,
    keys: Sequence[str],
    schema: pa.Schema,
) -> list[Filter]:
    """Hudi read filters selecting the rows of the given Dagster partition keys."""
    columns = partition_columns(partition_expr)
    if not columns or partitions_def is None or not keys:
        return []
    filters: list[Filter] = []
    for dimension, (definition, values) in dimension_values(partitions_def, keys).items():
        column = columns.get(dimension)
        if column is None:
            raise ValueError(f"partition_expr names no column for partition dimension {dimension!r}")
        filters.extend(_column_filters(column, definition, values, schema))
    return filters


def _column_filters(
    column: str, definition: dg.PartitionsDefinition, values: list[str], schema: pa.Schema
) -> list[Filter]:
    if column not in schema.names:
        raise ValueError(f"partition_expr column {column!r} is not in the table ({', '.join(schema.names)})")
    kind = schema.field(column).type
    if isinstance(definition, dg.TimeWindowPartitionsDefinition) and (
        pa.types.is_date(kind) or pa.types.is_timestamp(kind)
    ):
        windows = [definition.time_window_for_partition_key(v) for v in values]
        start, end = min(w.start for w in windows), max(w.end for w in windows)
        if pa.types.is_date(kind):
            return [(column, ">=", start.date()), (column, "<", end.date())]
        return [(column, ">=", start.astimezone(dt.UTC)), (column, "<", end.astimezone(dt.UTC))]
    return [(column, "in", values)]
