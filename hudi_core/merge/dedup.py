"""Picking one row per key: the last one, or the one with the greatest ordering value.

Rows are sorted by (key, ordering value, position) and the last row of each key group wins, so ties
in the ordering value go to the later row, as Hudi's pre-combine does.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

_POSITION = "__hudi_position"


def last_per_key(table: pa.Table, key_column: str, order_column: str | None = None) -> pa.Table:
    """One row per distinct `key_column` value: the greatest `order_column` value, ties to the later row.

    Null ordering values rank lowest.
    """
    if table.num_rows <= 1 or not has_duplicates(table.column(key_column)):
        return table  # hashing the keys once is far cheaper than sorting and taking every column
    with_position = table.append_column(_POSITION, pa.array(range(table.num_rows), pa.int64()))
    sort_keys = [(key_column, "ascending", "at_start")]
    if order_column is not None:
        sort_keys.append((order_column, "ascending", "at_start"))
    sort_keys.append((_POSITION, "ascending", "at_start"))
    ordered = with_position.take(pc.sort_indices(with_position, sort_keys=sort_keys))
    keys = ordered.column(key_column).combine_chunks()
    is_last = pc.fill_null(pc.not_equal(keys.slice(0, len(keys) - 1), keys.slice(1)), True)
    winners = ordered.filter(pa.concat_arrays([is_last, pa.array([True])]))
    # Restore input order, which keeps writes deterministic.
    winners = winners.take(pc.sort_indices(winners.column(_POSITION)))
    return winners.drop_columns([_POSITION])


def has_duplicates(keys: pa.Array | pa.ChunkedArray) -> bool:
    return len(pc.unique(keys)) != len(keys)
