"""Row orders for clustering: linear, Z-order and Hilbert (`hoodie.layout.optimize.strategy`).

Linear sorts by the columns in order, so only the first column ends up tightly clustered. The
space-filling curves interleave all columns, so every column's values narrow within each file and
min/max statistics prune on any of them. Each column is first mapped to its dense rank scaled to
`BITS` bits (as Hudi's sample-based curve build does with value ranges), so skewed or
differently-scaled columns weigh the same; nulls sort first. The curve value is then computed per
row with numpy: Z-order interleaves the bits, Hilbert follows Skilling's transform.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.services import LayoutStrategy, parse_layout_strategy
from hudi_core.errors import HudiConfigError

__all__ = ["BITS", "LayoutStrategy", "parse_layout_strategy", "sort_indices"]

BITS = 16  # per column: 2..4 columns fit a 64-bit curve value


def sort_indices(table: pa.Table, columns: Sequence[str], strategy: LayoutStrategy) -> pa.Array:
    """Row indices of `table` in the order `strategy` lays them out by `columns`."""
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise HudiConfigError(f"sort column(s) {missing} are not columns of the table ({table.column_names})")
    if not columns or table.num_rows == 0:
        return pa.array(np.arange(table.num_rows), pa.int64())
    if strategy is LayoutStrategy.LINEAR or len(columns) == 1:
        return pc.sort_indices(table, sort_keys=[(c, "ascending", "at_start") for c in columns])
    bits = min(BITS, 64 // len(columns))
    ranks = np.stack([_scaled_rank(table.column(c), bits) for c in columns], axis=1)
    keys = _zorder(ranks, bits) if strategy is LayoutStrategy.ZORDER else _hilbert(ranks, bits)
    return pa.array(np.argsort(keys, kind="stable"), pa.int64())


def _scaled_rank(column: pa.ChunkedArray, bits: int) -> npt.NDArray[np.uint64]:
    """Each value's dense rank (nulls first) scaled onto [0, 2**bits)."""
    flat = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(flat.type):
        flat = flat.dictionary_decode()
    rank = pc.rank(flat, sort_keys="ascending", tiebreaker="dense").to_numpy(zero_copy_only=False).astype(np.uint64)
    if flat.null_count:  # nulls rank last here; move them first
        nulls = flat.is_null().to_numpy(zero_copy_only=False)
        rank = np.where(nulls, np.uint64(1), rank + np.uint64(1))
        rank = np.unique(rank, return_inverse=True)[1].astype(np.uint64) + np.uint64(1)
    dense = rank - np.uint64(1)
    distinct = int(dense.max()) + 1 if len(dense) else 1
    if distinct <= 1:
        return np.zeros(len(dense), dtype=np.uint64)
    top = np.uint64((1 << bits) - 1)
    scaled: npt.NDArray[np.uint64] = (dense * top) // np.uint64(distinct - 1)
    return scaled


def _zorder(ranks: npt.NDArray[np.uint64], bits: int) -> npt.NDArray[np.uint64]:
    """Interleaves the bits of each row's coordinates, most significant first."""
    dims = ranks.shape[1]
    key = np.zeros(len(ranks), dtype=np.uint64)
    for bit in range(bits - 1, -1, -1):
        for d in range(dims):
            key = (key << np.uint64(1)) | ((ranks[:, d] >> np.uint64(bit)) & np.uint64(1))
    return key


def _hilbert(ranks: npt.NDArray[np.uint64], bits: int) -> npt.NDArray[np.uint64]:
    """The Hilbert index of each row (Skilling, "Programming the Hilbert curve", 2004)."""
    x = ranks.copy()
    dims = x.shape[1]
    one = np.uint64(1)
    # Inverse undo of the excess work: axes to transposed Hilbert index.
    q = one << np.uint64(bits - 1)
    while q > one:
        p = q - one
        for i in range(dims):
            high = (x[:, i] & q) != 0
            # Where set: invert the low bits of x[0]; else exchange low bits of x[0] and x[i].
            x[high, 0] ^= p
            t = (x[~high, 0] ^ x[~high, i]) & p
            x[~high, 0] ^= t
            x[~high, i] ^= t
        q >>= one
    for i in range(1, dims):  # Gray encode
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(len(x), dtype=np.uint64)
    q = one << np.uint64(bits - 1)
    while q > one:
        t[(x[:, dims - 1] & q) != 0] ^= q - one
        q >>= one
    for i in range(dims):
        x[:, i] ^= t
    # The transposed index holds the curve position's bits spread over the axes: interleave them.
    return _zorder(x, bits)
