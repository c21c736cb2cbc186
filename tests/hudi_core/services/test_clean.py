"""Cleaning policies, what they never delete, and the clean plan and metadata."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable, IncrementalRangeUnavailableError
from tests import hudi_rs
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
MANUAL = {"hoodie.clean.automatic": "false"}


def _rows(ids: list[int], v: int, partition: str = "a") -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "p": [partition] * len(ids)}, schema=SCHEMA)


def _versions(path: Path) -> int:
    return len(glob.glob(str(path / "a" / "*.parquet")))


def _history(path: Path, commits: int, table_type: str = "COPY_ON_WRITE") -> tuple[HudiTable, list[Any]]:
    """One file group rewritten by every commit (Copy-on-Write) or given a log (Merge-on-Read)."""
    table = HudiTable.create(str(path), SCHEMA, "clean", ["id"], ["p"], None, table_type, MANUAL)
    results = [table.upsert(_rows([1, 2], v), MANUAL) for v in range(commits)]
    return table, results


def _record(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        record: dict[str, Any] = next(iter(fastavro.reader(f)))
    return record


def test_keep_latest_commits_keeps_time_travel_to_the_retained_commits(tmp_path: Path) -> None:
    table, results = _history(tmp_path / "t", 8)
    assert _versions(tmp_path / "t") == 8
    result = table.clean({"hoodie.clean.commits.retained": "3"})
    assert result is not None and result["files_deleted"] == 4
    # Slices of the 3 retained commits stay, plus the newest one before them.
    assert _versions(tmp_path / "t") == 4
    for retained, v in zip(results[-3:], range(5, 8), strict=True):
        assert table.read(as_of=retained.instant_time).column("v").to_pylist() == [v, v]
    assert sorted(hudi_rs.snapshot(table.base_uri).column("v").to_pylist()) == [7, 7]
    with pytest.raises(IncrementalRangeUnavailableError, match=results[1].instant_time):
        table.read_incremental(results[0].completion_time, results[1].completion_time)

    (plan_file,) = glob.glob(str(tmp_path / f"t/.hoodie/timeline/{result.instant_time}.clean.requested"))
    plan = _record(plan_file)
    assert plan["version"] == 2 and plan["policy"] == "KEEP_LATEST_COMMITS"
    assert plan["earliestInstantToRetain"] == {
        "timestamp": results[-3].instant_time,
        "action": "commit",
        "state": "COMPLETED",
    }
    assert plan["lastCompletedCommitTimestamp"] == results[-1].instant_time
    assert plan["filesToBeDeletedPerPartition"] == {}
    paths = [info["filePath"] for info in plan["filePathsToBeDeletedPerPartition"]["a"]]
    assert len(paths) == 4 and all(p.startswith("file:/") for p in paths)
    (done,) = glob.glob(str(tmp_path / f"t/.hoodie/timeline/{result.instant_time}_*.clean"))
    metadata = _record(done)
    assert metadata["version"] == 2 and metadata["totalFilesDeleted"] == 4
    assert metadata["earliestCommitToRetain"] == results[-3].instant_time
    names = metadata["partitionMetadata"]["a"]["successDeleteFiles"]
    assert sorted(names) == sorted(p.rsplit("/", 1)[1] for p in paths)
    assert table.clean({"hoodie.clean.commits.retained": "3"}) is None  # nothing left


def test_keep_latest_file_versions(tmp_path: Path) -> None:
    table, _ = _history(tmp_path / "t", 6)
    result = table.clean(
        {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "2"}
    )
    assert result is not None and _versions(tmp_path / "t") == 2


def test_savepoints_and_automatic_cleaning(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "clean", ["id"], ["p"], None)
    retain = {"hoodie.clean.commits.retained": "2"}
    first = table.upsert(_rows([1, 2], 0), retain)
    table.savepoint(first.instant_time)
    for v in range(1, 6):
        result = table.upsert(_rows([1, 2], v), retain)
    assert any(s.action == "clean" for s in result.table_services), "hoodie.clean.automatic defaults to true"
    # The savepointed slice survives cleaning; the time between is gone.
    assert table.read(as_of=first.instant_time).column("v").to_pylist() == [0, 0]
    assert _versions(path) == 4  # savepoint + newest before the retained window + 2 retained


def test_merge_on_read_slices_and_pending_compaction(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "clean", ["id"], ["p"], None, "MERGE_ON_READ", MANUAL)
    table.insert(_rows([1, 2], 0))
    for v in range(1, 4):
        table.upsert(_rows([1], v), MANUAL)
    table.compact(options=MANUAL)
    table.upsert(_rows([2], 9), MANUAL)
    pending = table.schedule_compaction()
    assert pending is not None
    table.upsert(_rows([1], 10), MANUAL)
    expected = canonical([{"id": 1, "v": 10, "p": "a"}, {"id": 2, "v": 9, "p": "a"}])
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    result = table.clean({"hoodie.clean.commits.retained": "1"})
    assert result is not None
    old_logs = glob.glob(str(tmp_path / "t/a/.*.log.*"))
    # The first slice (base + 3 logs) went; the slice the pending compaction reads stayed.
    assert len(old_logs) == 2
    table.compact(pending)
    assert canonical(table_rows(table.read(), COLUMNS)) == expected


def test_replaced_file_groups_and_deleted_partitions_go(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "clean", ["id"], ["p"], None, options=MANUAL)
    table.insert(pa.concat_tables([_rows([1, 2], 0, "a"), _rows([3], 0, "b")]))
    table.insert_overwrite(_rows([4], 1, "a"), MANUAL)
    table.delete_partitions(["b"], MANUAL)
    for v in range(3):
        table.upsert(_rows([4], 2 + v, "a"), MANUAL)
    result = table.clean({"hoodie.clean.commits.retained": "2"})
    assert result is not None and result["partitions_deleted"] == 1
    assert not (path / "b").exists()
    assert sorted(table.read().column("id").to_pylist()) == [4]
    assert sorted(hudi_rs.snapshot(table.base_uri).column("id").to_pylist()) == [4]
