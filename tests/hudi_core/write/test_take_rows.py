"""A write group's rows taken chunk by chunk are the rows pyarrow's take returns."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from hudi_core.write.handles import take_rows


def _chunked(rows: int) -> pa.Table:
    ids = pa.chunked_array([pa.array(range(a, min(a + 7, rows))) for a in range(0, rows, 7)])
    names = pa.chunked_array([pa.array([f"n{i}" for i in range(a, min(a + 5, rows))]) for a in range(0, rows, 5)])
    return pa.table({"id": ids, "name": names})  # columns chunked at different rows


@pytest.mark.parametrize("seed", range(5))
def test_take_rows_equals_take_in_any_order(seed: int) -> None:
    table = _chunked(60)
    rng = np.random.default_rng(seed)
    for positions in (
        np.sort(rng.choice(60, 17, replace=False)),
        rng.choice(60, 17, replace=False),
        rng.choice(60, 30, replace=True),
        np.array([], dtype=np.int64),
        np.arange(60),
    ):
        expected = table.combine_chunks().take(pa.array(positions, pa.int64()))
        assert take_rows(table, pa.array(positions, pa.int64())).equals(expected)


def test_take_rows_of_one_chunk_is_pyarrows_take() -> None:
    table = pa.table({"id": list(range(10))})
    assert take_rows(table, pa.array([3, 1, 2])).column("id").to_pylist() == [3, 1, 2]
