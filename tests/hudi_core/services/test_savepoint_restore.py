"""Savepoints pin a commit; restore returns the table to it."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import ConcurrentWriteError, HudiConfigError, HudiError, HudiTable
from hudi_core.errors import TimelineError
from tests import hudi_rs
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names


def _rows(ids: list[int], v: int) -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "p": ["a" if i % 2 else "b" for i in ids]}, schema=SCHEMA)


def _record(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        record: dict[str, Any] = next(iter(fastavro.reader(f)))
    return record


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_restore_returns_exactly_the_savepointed_rows(table_type: str, tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "restore", ["id"], ["p"], None, table_type)
    table.insert(_rows([1, 2, 3, 4], 0))
    saved = table.upsert(_rows([1, 2, 5], 1))
    kept = {1: 1, 2: 1, 3: 0, 4: 0, 5: 1}  # id -> v as of the savepoint (no ordering field: the latest write)
    expected = canonical([{"id": i, "v": v, "p": "a" if i % 2 else "b"} for i, v in kept.items()])
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    result = table.savepoint(saved.instant_time, user="ops", comment="before the backfill")
    assert result.instant_time == saved.instant_time
    (completed,) = glob.glob(str(path / f".hoodie/timeline/{saved.instant_time}_*.savepoint"))
    metadata = _record(completed)
    assert metadata["savepointedBy"] == "ops" and metadata["comments"] == "before the backfill"
    listed = {name for p in metadata["partitionMetadata"].values() for name in p["savepointDataFile"]}
    assert listed == {n for s in table.file_slices() for n in [s.base_file, *s.log_files] if n}
    assert (path / f".hoodie/timeline/{saved.instant_time}.savepoint.inflight").stat().st_size == 0
    assert table.savepoints() == [saved.instant_time]

    table.upsert(_rows([3, 6], 2))
    table.delete(_rows([1], 3))
    table.insert_overwrite(_rows([7], 4))
    if table_type == "MERGE_ON_READ":
        table.compact()
    pending = table.schedule_clustering()
    assert pending is not None
    with pytest.raises(HudiConfigError, match="savepointed"):
        table.rollback(saved.instant_time)

    restored = table.restore(saved.instant_time)
    assert restored["instants_rolled_back"] >= 4
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == expected
    timeline = table.timeline
    assert not [i for i in timeline.instants() if i.action.value == "rollback"], "restore leaves no rollbacks"
    assert not timeline.pending()
    (restore_file,) = glob.glob(str(path / f".hoodie/timeline/{restored.instant_time}_*.restore"))
    restore_metadata = _record(restore_file)
    assert len(restore_metadata["instantsToRollback"]) == restored["instants_rolled_back"]
    plan = _record(str(path / f".hoodie/timeline/{restored.instant_time}.restore.requested"))
    assert plan["version"] == 2 and plan["savepointToRestoreTimestamp"] == saved.instant_time
    assert table.savepoints() == [saved.instant_time]

    # Later writes work and read back.
    table.upsert(_rows([8], 5))
    ids = sorted(table.read().column("id").to_pylist())
    assert ids == [1, 2, 3, 4, 5, 8]
    assert sorted(hudi_rs.snapshot(table.base_uri).column("id").to_pylist()) == ids


def test_savepoint_rules(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "restore", ["id"], ["p"], None)
    first = table.insert(_rows([1], 0))
    second = table.upsert(_rows([1], 1))
    table.savepoint(first.instant_time)
    with pytest.raises(HudiError, match="already savepointed"):
        table.savepoint(first.instant_time)
    table.savepoint(second.instant_time)
    with pytest.raises(HudiError, match="newer"):
        table.restore(first.instant_time)
    table.delete_savepoint(second.instant_time)
    assert table.savepoints() == [first.instant_time]
    table.restore(first.instant_time)
    assert table.read().column("v").to_pylist() == [0]
    with pytest.raises(HudiError, match="no completed commit"):
        table.savepoint("20000101000000000")


def test_pending_restore_blocks_writes(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "restore", ["id"], ["p"], None)
    first = table.insert(_rows([1], 0))
    table.savepoint(first.instant_time)
    table.upsert(_rows([1], 1))
    timeline_dir = tmp_path / "t/.hoodie/timeline"
    (timeline_dir / "29990101000000000.restore.requested").write_bytes(b"")
    with pytest.raises(ConcurrentWriteError, match="restore"):
        table.upsert(_rows([2], 2))
    (timeline_dir / "29990101000000000.restore.requested").unlink()
    table.upsert(_rows([2], 2))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_rollback_refuses_to_expose_file_versions_the_cleaner_removed(table_type: str, tmp_path: Path) -> None:
    """Rolling back the latest commit returns each file group it rewrote to its previous version;
    once the cleaner removed that version, the rollback would drop the group's records."""
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "restore", ["id"], ["p"], None, table_type)
    table.insert(_rows([1, 2, 3, 4], 0))
    latest = table.upsert(_rows([1, 2], 1)).instant_time
    if table_type == "MERGE_ON_READ":  # the upsert went to logs: the compaction writes new versions
        compaction = table.compact()
        assert compaction is not None and compaction.instant_time is not None
        latest = compaction.instant_time
    table.clean({"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"})
    expected = [{"id": 1, "v": 1, "p": "a"}, {"id": 2, "v": 1, "p": "b"}, {"id": 3, "v": 0, "p": "a"}]
    expected.append({"id": 4, "v": 0, "p": "b"})
    instants = [(i.requested_time, i.action, i.state) for i in table.timeline.instants()]

    with pytest.raises(TimelineError, match=f"rolling back {latest} would lose records: the cleaner removed"):
        table.rollback(latest)

    assert canonical(table_rows(table.read(), COLUMNS)) == canonical(expected)
    assert [(i.requested_time, i.action, i.state) for i in table.timeline.instants()] == instants
