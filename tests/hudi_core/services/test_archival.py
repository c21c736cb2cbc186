"""Archival into the LSM history: what moves, what stays, and reads across the history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core import HudiTable
from hudi_core.timeline.archive import load_archived_instants
from hudi_core.timeline.serde import decode_instant_content
from tests import hudi_rs
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
KEEP = {
    "hoodie.keep.min.commits": "3",
    "hoodie.keep.max.commits": "5",
    "hoodie.clean.commits.retained": "2",
    "hoodie.timeline.compaction.batch.size": "2",
}
HISTORY = ".hoodie/timeline/history"


def _rows(ids: list[int], v: int) -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "p": ["a"] * len(ids)}, schema=SCHEMA)


def test_archival_moves_old_instants_and_reads_use_the_history(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "archive", ["id"], ["p"], None)
    results = []
    for v in range(16):
        checkpoint = f"cp{v}" if v < 3 else None
        results.append(table.upsert(_rows([v % 4, 100 + v], v), KEEP, checkpoint=checkpoint))
    timeline = table.timeline
    archived = timeline.archived()
    assert archived, "archival ran inline"
    commits = timeline.completed_data_instants()
    assert 3 <= len(commits) <= 5
    assert {a.action for a in archived} >= {"commit", "clean"}
    # Archived instants are gone from the active timeline, oldest first.
    active = {i.requested_time for i in timeline.instants()}
    assert all(a.requested_time not in active for a in archived)
    assert max(a.requested_time for a in archived if a.action == "commit") < min(i.requested_time for i in commits)

    # LSM layout: manifests, _version_, named layer files (layers merged with batch size 2).
    files = sorted(os.listdir(path / HISTORY))
    version = (path / HISTORY / "_version_").read_text()
    manifest = json.loads((path / HISTORY / f"manifest_{version}").read_text())
    listed = [e["fileName"] for e in manifest["files"]]
    assert all(name in files for name in listed)
    assert any(not name.endswith("_0.parquet") for name in listed), "layer 0 files were merged upwards"
    for entry in manifest["files"]:
        assert entry["fileLen"] == (path / HISTORY / entry["fileName"]).stat().st_size
        parquet = pq.ParquetFile(path / HISTORY / entry["fileName"])
        assert parquet.schema_arrow.names == ["instantTime", "completionTime", "action", "metadata", "plan", "version"]
        footer = parquet.metadata.metadata or {}
        assert json.loads(footer[b"parquet.avro.schema"])["name"] == "HoodieLSMTimelineInstant"
    for instant in load_archived_instants(table.storage, HISTORY):
        if instant.action == "commit":
            assert instant.metadata is not None
            record = decode_instant_content(instant.metadata, "lsm")
            assert record is not None and "partitionToWriteStats" in record

    # Reads: the snapshot (ours and hudi-rs), a checkpoint only the history holds, and an
    # incremental read reaching into the history.
    expected = {i % 4 for i in range(16)} | {100 + i for i in range(16)}
    assert set(table.read().column("id").to_pylist()) == expected
    assert set(hudi_rs.snapshot(table.base_uri).column("id").to_pylist()) == expected
    assert table.latest_checkpoint() == "cp2"
    since = table.read_incremental(results[0].completion_time)
    assert set(since.column("id").to_pylist()) == expected - {100}
    last = results[-1]
    assert canonical(table_rows(table.read_incremental(results[-2].completion_time), COLUMNS)) == canonical(
        table_rows(table.read(filters=[("_hoodie_commit_time", "=", last.instant_time)]), COLUMNS)
    )


def test_archival_stops_at_savepoints_and_pending_writes(tmp_path: Path) -> None:
    path = tmp_path / "t"
    manual = {**KEEP, "hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false"}
    table = HudiTable.create(str(path), SCHEMA, "archive", ["id"], ["p"], None, "MERGE_ON_READ", manual)
    results = [table.upsert(_rows([0, v], v), manual) for v in range(4)]  # id 0 gets a log each time
    table.savepoint(results[1].instant_time)
    results += [table.upsert(_rows([0, v], v), manual) for v in range(4, 10)]
    assert table.archive(manual) is not None
    archived = {a.requested_time for a in table.timeline.archived()}
    assert archived == {results[0].instant_time}, "nothing at or after the savepoint is archived"
    table.delete_savepoint(results[1].instant_time)
    pending = table.schedule_compaction()
    table.archive(manual)
    archived = {a.requested_time for a in table.timeline.archived()}
    assert pending is not None and all(t < pending for t in archived)
    assert len(archived) > 1
    assert sorted(table.read().column("id").to_pylist()) == list(range(10))
