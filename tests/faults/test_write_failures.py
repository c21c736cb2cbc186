"""A write's failure paths: a failure before its files are written leaves no instant, heartbeat or
lock; a lock that cannot be kept is given back; and whatever fails after the commit never undoes
the committed write (nor fails it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from hudi_core import HudiStorageError, HudiTable, WriteConflictError, WriteOperation
from hudi_core.concurrency.storage_lock import LOCK_FILE, TableLock
from hudi_core.lifecycle.heartbeat import HEARTBEAT_DIR
from hudi_core.lifecycle.markers import TEMP_DIR, Markers
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.write.client import WriteClient, arrow_engine
from hudi_core.write.handles import FileGroupWrite, WriteContext
from tests.faults.faulty_storage import inject
from tests.faults.tables import SCHEMA, rows, values
from tests.invariants import assert_healthy

ENOSPC_TEXT = "No space left on device"
OPTIONS = {"hoodie.parquet.small.file.limit": "0"}


def test_a_lock_whose_first_refresh_fails_is_given_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inject(monkeypatch, fail_at=1, matching="table_lock.json.")  # the refresh right after creation
    lock = TableLock(Storage(str(tmp_path)), validity_ms=60_000, purpose="write")
    with pytest.raises(HudiStorageError, match=ENOSPC_TEXT):
        lock.acquire()
    assert not (tmp_path / LOCK_FILE).exists(), "the lock stayed held by a process that gave up"
    with TableLock(Storage(str(tmp_path)), validity_ms=60_000, purpose="next"):
        pass


def _table(base: Path, options: dict[str, str] | None = None) -> HudiTable:
    table = HudiTable.create(str(base), SCHEMA, "fail", ["id"], ["p"], None, "COPY_ON_WRITE", options or OPTIONS)
    table.insert(rows(range(4), 0), options or OPTIONS)
    return table


@pytest.mark.parametrize(
    ("matching", "fail_at"),
    [("/.hoodie/timeline/", 1), ("/.hoodie/.heartbeat/", 3)],
    ids=["requesting-the-instant", "starting-the-heartbeat"],
)
def test_a_write_failing_before_its_files_leaves_no_instant_heartbeat_or_lock(
    matching: str, fail_at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "t"
    _table(base)
    with monkeypatch.context() as patch:
        # The instant's requested file; or the heartbeat's third write, its refresher's first beat.
        inject(patch, fail_at=fail_at, matching=matching)
        with pytest.raises(HudiStorageError, match=ENOSPC_TEXT):
            HudiTable(str(base)).upsert(rows([1], 1), OPTIONS)
    assert not HudiTable(str(base)).timeline.pending()
    assert os.listdir(base / HEARTBEAT_DIR) == []
    assert not (base / LOCK_FILE).exists()
    HudiTable(str(base)).upsert(rows([2], 2), OPTIONS)
    assert values(base) == {"k0": 0, "k1": 0, "k2": 2, "k3": 0}
    assert_healthy(base)


def test_abort_after_the_commit_never_rolls_the_commit_back(tmp_path: Path) -> None:
    """A Spark datasource write whose commit step raised after completing is aborted by Spark."""
    table = _table(tmp_path / "t")
    client = WriteClient(table.storage, OPTIONS)
    inflight = client.start(WriteOperation.INSERT)
    client.finish(WriteOperation.INSERT, inflight, [], SCHEMA)
    client.abort(inflight, WriteOperation.INSERT)
    completed = [i.requested_time for i in HudiTable(str(tmp_path / "t")).timeline.completed_data_instants()]
    assert inflight.requested_time in completed
    assert values(tmp_path / "t") == {f"k{i}": 0 for i in range(4)}


def test_a_cleanup_failing_after_the_commit_neither_fails_nor_undoes_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "t"
    _table(base)
    delete_all = Markers.delete_all

    def failing_delete_all(markers: Markers) -> None:
        if (base / markers.directory).exists():
            raise HudiStorageError(f"cannot delete {base / markers.directory}: [Errno 5] Input/output error")
        delete_all(markers)

    with monkeypatch.context() as patch:
        patch.setattr(Markers, "delete_all", failing_delete_all)
        result = HudiTable(str(base)).upsert(rows([1, 9], 1), OPTIONS)
    assert result.instant_time in [i.requested_time for i in HudiTable(str(base)).timeline.completed()]
    assert values(base) == {"k0": 0, "k1": 1, "k2": 0, "k3": 0, "k9": 1}

    HudiTable(str(base)).upsert(rows([2], 2), OPTIONS)  # the next writer removes the markers left
    assert not (base / TEMP_DIR).exists() or os.listdir(base / TEMP_DIR) == []
    assert_healthy(base)


def test_a_single_writer_rolled_back_meanwhile_as_a_dead_one_does_not_commit(tmp_path: Path) -> None:
    """A paused writer whose lock and heartbeat went stale was rolled back by the next writer: when it
    wakes up it must not publish a commit whose files are gone."""
    table = _table(tmp_path / "t")
    before = values(tmp_path / "t")

    def paused_then_rolled_back(context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[WriteStat]:
        stats = arrow_engine(context, tasks)
        # Meanwhile: the lock expired and was taken over, the heartbeat went stale (no identity, as
        # a writer of another host), and the next writer rolled this write back.
        (tmp_path / "t" / LOCK_FILE).unlink()
        heartbeat = tmp_path / "t" / HEARTBEAT_DIR / context.instant_time
        heartbeat.write_bytes(b"")
        os.utime(heartbeat, (1, 1))
        WriteClient(Storage(str(tmp_path / "t")), {}).rollback(context.instant_time)
        return stats

    client = WriteClient(table.storage, OPTIONS, engine=paused_then_rolled_back)
    with pytest.raises(WriteConflictError, match="is no longer pending"):
        client.write(WriteOperation.UPSERT, rows(range(2, 6), 1))
    assert values(tmp_path / "t") == before
    assert table.timeline.pending() == [] and table.orphan_files() == []
    assert_healthy(tmp_path / "t")
