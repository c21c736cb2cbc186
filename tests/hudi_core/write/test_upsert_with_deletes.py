"""An upsert that also deletes records in the same commit (`write_hudi(..., deletes=)`): what a
replacing writer (a re-run Dagster partition, a CDC mirror) needs to stay one atomic commit.

Deleted records are named by key and partition only, delete whatever ordering value the stored
record holds (as the delete operation does), and add no `_hoodie_is_deleted` column to the table.
hudi-rs reads the result as we do.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.errors import InvalidKeyError, SchemaError
from tests import hudi_rs

ROWS = pa.table({"id": [1, 2, 3, 4], "p": ["a", "a", "b", "b"], "ts": [5, 5, 5, 5], "v": ["x"] * 4})


def _options(table_type: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
    }


def _snapshot(path: Path) -> list[tuple[int, str, int]]:
    table = HudiTable(str(path)).read(columns=["id", "v", "ts"])
    return sorted(zip(table["id"].to_pylist(), table["v"].to_pylist(), table["ts"].to_pylist(), strict=True))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_one_commit_updates_inserts_and_deletes(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    options = _options(table_type)
    write_hudi(str(path), ROWS, options)
    written = pa.table({"id": [1, 5], "p": ["a", "b"], "ts": [7, 1], "v": ["y", "new"]})
    # ts 0 on a deleted record: a delete by key wins over the stored ts 5 all the same.
    result = write_hudi(str(path), written, options, deletes=pa.table({"id": [2, 3], "p": ["a", "b"], "ts": [0, 0]}))
    assert (result.updates, result.inserts, result.deletes) == (1, 1, 2)
    assert len(HudiTable(str(path)).timeline.completed_data_instants()) == 2
    expected = [(1, "y", 7), (4, "x", 5), (5, "new", 1)]
    assert _snapshot(path) == expected
    assert "_hoodie_is_deleted" not in HudiTable(str(path)).schema.names
    theirs = hudi_rs.snapshot(path)
    assert sorted(zip(theirs["id"].to_pylist(), theirs["v"].to_pylist(), theirs["ts"].to_pylist(), strict=True)) == (
        expected
    )


def test_only_deletes_and_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "t"
    options = _options("COPY_ON_WRITE")
    write_hudi(str(path), ROWS, options)
    write_hudi(str(path), ROWS.slice(0, 0), options, deletes=pa.table({"id": [1, 9], "p": ["a", "a"]}))
    assert [row[0] for row in _snapshot(path)] == [2, 3, 4]


def test_refused_deletes_leave_the_table_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "t"
    options = _options("MERGE_ON_READ")
    write_hudi(str(path), ROWS, options)
    before = sorted(p.name for p in path.rglob("*") if p.is_file())
    row = pa.table({"id": [1], "p": ["a"], "ts": [9], "v": ["z"]})
    with pytest.raises(InvalidKeyError, match="both written and deleted"):
        write_hudi(str(path), row, options, deletes=pa.table({"id": [1], "p": ["a"]}))
    with pytest.raises(SchemaError, match=r"need column\(s\) \['p'\]"):
        write_hudi(str(path), row, options, deletes=pa.table({"id": [2]}))
    with pytest.raises(Exception, match="only an upsert deletes"):
        write_hudi(
            str(path),
            row,
            {**options, "hoodie.datasource.write.operation": "insert"},
            deletes=pa.table({"id": [2], "p": ["a"]}),
        )
    assert sorted(p.name for p in path.rglob("*") if p.is_file()) == before
    assert _snapshot(path) == [(i, "x", 5) for i in (1, 2, 3, 4)]
