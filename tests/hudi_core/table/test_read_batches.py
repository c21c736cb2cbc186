"""`read_batches` streams what `read` returns: base files batch by batch (a stream holds one batch of a
file, not the file), slices that merge log files whole, in plan order, with filters applied."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_core import HudiTable

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
ROWS = 90_000


def _rows(ids: range, ts: int) -> pa.Table:
    ids_list = list(ids)
    return pa.table(
        {
            "id": ids_list,
            "v": [f"v{ts}-{i}" for i in ids_list],
            "ts": [ts] * len(ids_list),
            "p": ["a" if i % 10 else "b" for i in ids_list],
        },
        schema=SCHEMA,
    )


def _sorted(table: pa.Table) -> list[dict[str, object]]:
    return sorted(table.select(SCHEMA.names).to_pylist(), key=lambda row: (row["id"], row["p"]))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_batches_hold_what_a_read_returns_a_batch_of_a_file_at_a_time(tmp_path: Path, table_type: str) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "stream", ["id"], ["p"], ["ts"], table_type)
    table.bulk_insert(_rows(range(ROWS), 1))
    table.upsert(_rows(range(0, ROWS, 50), 2))  # Merge-on-Read: every file group gets a log
    largest_file = max(s.base_file_size for s in table.file_slices())
    assert largest_file > 0

    batches = list(table.read_batches())
    assert _sorted(pa.Table.from_batches(batches)) == _sorted(table.read())
    assert max(b.num_rows for b in batches) <= (65_536 if table_type == "COPY_ON_WRITE" else ROWS)
    if table_type == "COPY_ON_WRITE":
        assert len(batches) > len(table.file_slices())  # files larger than a batch come in several

    wanted = [("ts", "=", 2), ("p", "=", "b")]
    streamed = pa.Table.from_batches(list(table.read_batches(["id", "ts", "p"], filters=wanted)))
    read = table.read(["id", "ts", "p"], filters=wanted)
    assert streamed.column_names == ["id", "ts", "p"]
    assert sorted(streamed.column("id").to_pylist()) == sorted(read.column("id").to_pylist())
    assert pc.all(pc.equal(streamed.column("p"), "b")).as_py()
