"""The small table the fault tests write: record key `id`, a value `v`, partition `p`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa

from hudi_core import HudiTable

SCHEMA = pa.schema([("id", pa.string()), ("v", pa.int64()), ("p", pa.string())])


def rows(ids: Iterable[int], v: int, partitions: Sequence[str] = ("a",)) -> pa.Table:
    """Keys `k<id>` with value `v`, spread over `partitions` by id."""
    keys = list(ids)
    return pa.table(
        {
            "id": [f"k{i}" for i in keys],
            "v": [v] * len(keys),
            "p": [partitions[i % len(partitions)] for i in keys],
        },
        schema=SCHEMA,
    )


def values(base: Path) -> dict[str, int]:
    """The table's content: value by key."""
    table = HudiTable(str(base)).read(columns=["id", "v"])
    return dict(zip(table.column("id").to_pylist(), table.column("v").to_pylist(), strict=True))
