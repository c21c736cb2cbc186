"""Optimistic concurrency control between writers and table services of one process.

Interleavings are made deterministic by pausing one writer thread at a named point of the write
(the crash-point hooks): it has planned and written its files, and waits while another writer or a
service completes; then it tries to commit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.concurrency import retry_on_conflict
from hudi_core.errors import ConcurrentWriteError, HudiConfigError, WriteConflictError
from hudi_core.lifecycle.crash import ENV_VAR
from hudi_core.lifecycle.heartbeat import heartbeat_path
from hudi_core.timeline.instant import Action
from tests import hudi_rs
from tests.concurrency.options import LOCK_PACKAGE, occ
from tests.concurrency.pause import paused
from tests.invariants import assert_healthy
from tests.model import canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
COLUMNS = SCHEMA.names
OCC = occ(
    "InProcessLockProvider",
    **{
        "hoodie.cleaner.policy.failed.writes": "LAZY",
        "hoodie.client.heartbeat.interval_in_ms": "1000",
        "hoodie.client.heartbeat.tolerable.misses": "2",
        "hoodie.clean.automatic": "false",
        "hoodie.parquet.small.file.limit": "0",  # inserts open new file groups: they never collide
    },
)
TABLE_TYPES = ["COPY_ON_WRITE", "MERGE_ON_READ"]


def rows(*items: tuple[str, str, float]) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "city": c, "fare": f} for i, c, f in items], schema=SCHEMA)


def new_table(path: Path, table_type: str) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, table_type, OCC)
    table.insert(rows(("a", "sf", 1.0), ("b", "sf", 2.0), ("c", "nyc", 3.0)))
    return HudiTable(str(path), OCC)


def content(path: Path) -> list[tuple[Any, ...]]:
    ours = sorted(tuple(r[c] for c in COLUMNS) for r in table_rows(HudiTable(str(path)).read(columns=COLUMNS), COLUMNS))
    theirs = canonical(table_rows(hudi_rs.snapshot(path), COLUMNS))
    assert canonical([dict(zip(COLUMNS, r, strict=True)) for r in ours]) == theirs, "hudi-rs disagrees with us"
    return ours


def data_files_of(path: Path, instant: str) -> list[Path]:
    return [f for f in path.rglob("*") if f.is_file() and ".hoodie" not in f.parts and instant in f.name]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_writers_of_different_file_groups_both_commit(
    tmp_path: Path, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(tmp_path / "t", table_type)
    with paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 10.0)))) as first:
        second = HudiTable(str(tmp_path / "t"), OCC).upsert(rows(("c", "nyc", 30.0), ("d", "la", 4.0)))
    assert first.error is None and first.result is not None
    assert first.result.instant_time < second.instant_time  # requested first ...
    assert first.result.completion_time and second.completion_time
    assert first.result.completion_time > second.completion_time  # ... completed last
    assert content(tmp_path / "t") == [("a", "sf", 10.0), ("b", "sf", 2.0), ("c", "nyc", 30.0), ("d", "la", 4.0)]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_the_later_committer_of_a_shared_file_group_aborts_and_can_retry(
    tmp_path: Path, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(tmp_path / "t", table_type)
    with paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 10.0)))) as loser:
        HudiTable(str(tmp_path / "t"), OCC).upsert(rows(("b", "sf", 20.0)))
        loser_instant = next(i.requested_time for i in HudiTable(str(tmp_path / "t")).timeline.pending())
        assert data_files_of(tmp_path / "t", loser_instant), "the paused writer wrote files"
    assert isinstance(loser.error, WriteConflictError), loser.error
    assert "conflicts with" in str(loser.error) and "safe to retry" in str(loser.error)
    # The loser's files and instant are gone; a rollback records it; the winner's update stands.
    assert not data_files_of(tmp_path / "t", loser_instant)
    timeline = HudiTable(str(tmp_path / "t")).timeline
    assert timeline.find(loser_instant) is None
    assert any(i.action is Action.ROLLBACK for i in timeline.completed())
    assert content(tmp_path / "t") == [("a", "sf", 1.0), ("b", "sf", 20.0), ("c", "nyc", 3.0)]
    retried = retry_on_conflict(lambda: table.upsert(rows(("a", "sf", 10.0))))
    assert retried.updates == 1
    assert content(tmp_path / "t") == [("a", "sf", 10.0), ("b", "sf", 20.0), ("c", "nyc", 3.0)]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_inserts_of_new_file_groups_never_conflict(
    tmp_path: Path, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(tmp_path / "t", table_type)
    with paused(monkeypatch, lambda: table.insert(rows(("x", "sf", 7.0)))) as first:
        HudiTable(str(tmp_path / "t"), OCC).insert(rows(("y", "sf", 8.0)))
    assert first.error is None
    assert [r[0] for r in content(tmp_path / "t")] == ["a", "b", "c", "x", "y"]


@pytest.mark.parametrize("checked", [False, True], ids=["unchecked", "checked"])
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_key_overlap_check_aborts_the_second_insert_of_one_new_key(
    tmp_path: Path, table_type: str, checked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two concurrent upserts of one new key land in different new file groups: the file-group check
    lets both commit (the key is stored twice); with the key-overlap check the later one aborts."""
    options = {**OCC, "hoodie.write.concurrency.check.key.overlap": str(checked).lower()}
    table = new_table(tmp_path / "t", table_type)
    with paused(monkeypatch, lambda: table.upsert(rows(("k", "la", 1.0), ("m", "la", 5.0)), options)) as late:
        HudiTable(str(tmp_path / "t"), OCC).upsert(rows(("k", "la", 2.0), ("n", "la", 6.0)), options)
    if not checked:
        assert late.error is None, late.error
        assert [r[0] for r in content(tmp_path / "t")].count("k") == 2, "without the check the key is duplicated"
        return
    assert isinstance(late.error, WriteConflictError), late.error
    assert "1 record key(s): k;" in str(late.error)
    expected = [("a", "sf", 1.0), ("b", "sf", 2.0), ("c", "nyc", 3.0), ("k", "la", 2.0), ("n", "la", 6.0)]
    assert content(tmp_path / "t") == expected
    assert_healthy(tmp_path / "t")


def test_a_compaction_planned_meanwhile_on_the_same_file_group_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(tmp_path / "t", "MERGE_ON_READ")
    table.upsert(rows(("a", "sf", 5.0)))  # a log to compact
    with paused(monkeypatch, lambda: table.upsert(rows(("b", "sf", 20.0)))) as writer:
        planned = HudiTable(str(tmp_path / "t"), OCC).schedule_compaction()
        assert planned is not None
    assert isinstance(writer.error, WriteConflictError) and f"compaction {planned}" in str(writer.error)
    HudiTable(str(tmp_path / "t"), OCC).compact(planned)
    assert content(tmp_path / "t") == [("a", "sf", 5.0), ("b", "sf", 2.0), ("c", "nyc", 3.0)]


def test_a_compaction_completed_meanwhile_on_the_same_file_group_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(tmp_path / "t", "MERGE_ON_READ")
    table.upsert(rows(("a", "sf", 5.0)))
    with paused(monkeypatch, lambda: table.upsert(rows(("b", "sf", 20.0)))) as writer:
        HudiTable(str(tmp_path / "t"), OCC).compact()
    assert isinstance(writer.error, WriteConflictError) and "completed since this write started" in str(writer.error)
    assert content(tmp_path / "t") == [("a", "sf", 5.0), ("b", "sf", 2.0), ("c", "nyc", 3.0)]


def test_a_live_writer_is_never_rolled_back_and_a_dead_one_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = new_table(tmp_path / "t", "COPY_ON_WRITE")
    with paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 10.0)))) as live:
        # Single-writer mode would refuse to start next to a live write; optimistic writers go on.
        for round_ in range(3):
            HudiTable(str(tmp_path / "t"), OCC).upsert(rows(("c", "nyc", 30.0 + round_)))
    assert live.error is None and live.result is not None
    assert content(tmp_path / "t") == [("a", "sf", 10.0), ("b", "sf", 2.0), ("c", "nyc", 32.0)]


KILLED_WRITER = """
import sys, json
import pyarrow as pa
from hudi_core import HudiTable, write_hudi
options = json.loads(sys.argv[2])
schema = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
HudiTable(sys.argv[1], options).upsert(pa.Table.from_pylist([{"id": "b", "city": "sf", "fare": 99.0}], schema=schema))
"""


def test_a_killed_writer_is_rolled_back_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "t"
    fs_lock = {**OCC, "hoodie.write.lock.provider": LOCK_PACKAGE + "FileSystemBasedLockProvider"}
    new_table(path, "MERGE_ON_READ")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ENV_VAR: "write.after_files"}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(path), json.dumps(fs_lock)], env=env, check=False, timeout=120
    )
    assert killed.returncode == -signal.SIGKILL
    dead = HudiTable(str(path)).timeline.pending()
    assert len(dead) == 1 and data_files_of(path, dead[0].requested_time)
    # No wait: the killed writer was a process of this machine, which its heartbeat names.
    HudiTable(str(path), fs_lock).upsert(rows(("c", "nyc", 30.0)))
    assert HudiTable(str(path)).timeline.find(dead[0].requested_time) is None
    assert not data_files_of(path, dead[0].requested_time)
    assert content(path) == [("a", "sf", 1.0), ("b", "sf", 2.0), ("c", "nyc", 30.0)]


def test_services_take_the_same_lock_and_run_between_writers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = new_table(tmp_path / "t", "MERGE_ON_READ")
    table.upsert(rows(("c", "nyc", 5.0)))
    with paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 10.0)))) as writer:
        HudiTable(str(tmp_path / "t"), OCC).compact()  # compacts nyc only: sf has no logs yet
        HudiTable(str(tmp_path / "t"), OCC).clean()
    assert writer.error is None
    assert content(tmp_path / "t") == [("a", "sf", 10.0), ("b", "sf", 2.0), ("c", "nyc", 5.0)]


def test_option_errors(tmp_path: Path) -> None:
    table = new_table(tmp_path / "t", "COPY_ON_WRITE")
    with pytest.raises(HudiConfigError, match="LAZY"):
        table.upsert(rows(("a", "sf", 1.5)), {"hoodie.cleaner.policy.failed.writes": "EAGER"})
    with pytest.raises(HudiConfigError, match="InProcessLockProvider"):
        HudiTable(str(tmp_path / "t"), {**OCC, "hoodie.write.lock.provider": "com.example.MyLock"})
    with pytest.raises(HudiConfigError, match=r"zookeeper\.url"):
        table.upsert(
            rows(("a", "sf", 1.5)),
            {"hoodie.write.lock.provider": LOCK_PACKAGE + "ZookeeperBasedLockProvider"},
        )
    with pytest.raises(HudiConfigError, match="non-blocking"):
        HudiTable(str(tmp_path / "t"), {"hoodie.write.concurrency.mode": "NON_BLOCKING_CONCURRENCY_CONTROL"})
    assert content(tmp_path / "t") == [("a", "sf", 1.0), ("b", "sf", 2.0), ("c", "nyc", 3.0)]


def test_single_writer_mode_still_refuses_a_second_live_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t"
    single = {k: v for k, v in OCC.items() if not k.startswith("hoodie.write.") and "failed.writes" not in k}
    HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "COPY_ON_WRITE", single).insert(
        rows(("a", "sf", 1.0))
    )
    table = HudiTable(str(path), single)
    with (
        paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 2.0)))) as first,
        pytest.raises(ConcurrentWriteError),
    ):
        HudiTable(str(path), single).upsert(rows(("b", "nyc", 3.0)))
    assert first.error is None


def test_write_hudi_retries_a_lost_conflict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new_table(tmp_path / "t", "COPY_ON_WRITE")
    options = {
        **OCC,
        "hoodie.table.name": "trips",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.write.num.retries.on.conflict.failures": "2",
    }
    with paused(monkeypatch, lambda: write_hudi(str(tmp_path / "t"), rows(("a", "sf", 10.0)), options)) as retried:
        HudiTable(str(tmp_path / "t"), OCC).upsert(rows(("b", "sf", 20.0)))
    assert retried.error is None and retried.result is not None
    rollbacks = [i for i in HudiTable(str(tmp_path / "t")).timeline.completed() if i.action is Action.ROLLBACK]
    assert len(rollbacks) == 1  # the first attempt lost and was rolled back
    assert content(tmp_path / "t") == [("a", "sf", 10.0), ("b", "sf", 20.0), ("c", "nyc", 3.0)]


def test_a_live_writer_rolled_back_as_dead_does_not_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its heartbeat thread starved (made stale here): another writer rolls the write back; the
    write then fails as a lost conflict instead of publishing files that are gone."""
    path = tmp_path / "t"
    table = new_table(path, "COPY_ON_WRITE")
    minute = {**OCC, "hoodie.client.heartbeat.interval_in_ms": "60000"}  # no beat while the test runs
    with paused(monkeypatch, lambda: table.upsert(rows(("a", "sf", 10.0)), minute)) as starved:
        [pending] = HudiTable(str(path)).timeline.pending()
        long_ago = time.time() - 600
        os.utime(path / heartbeat_path(pending.requested_time), (long_ago, long_ago))
        HudiTable(str(path), minute).upsert(rows(("c", "nyc", 30.0)))
        assert HudiTable(str(path)).timeline.find(pending.requested_time) is None, "rolled back as dead"
    assert isinstance(starved.error, WriteConflictError), starved.error
    assert "no longer pending" in str(starved.error) and "safe to retry" in str(starved.error)
    assert not data_files_of(path, pending.requested_time)
    assert content(path) == [("a", "sf", 1.0), ("b", "sf", 2.0), ("c", "nyc", 30.0)]
    retry_on_conflict(lambda: table.upsert(rows(("a", "sf", 10.0))))
    assert content(path) == [("a", "sf", 10.0), ("b", "sf", 2.0), ("c", "nyc", 30.0)]
    assert_healthy(path)
