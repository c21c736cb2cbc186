"""Crash safety: a writer killed at any named crash point leaves the table readable as before, and
the next writer rolls its instant back; a live writer's instant and a held lock are never touched.

Crashed writers run in a subprocess with `HUDI_CRASH_AT=<point>` and die by SIGKILL (no cleanup, no
exception handlers). A killed writer of this machine is known dead at once (its lock and heartbeat
name its process), so the next writer never waits for them to expire.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import ConcurrentWriteError, HudiTable, WriteOperation
from hudi_core.concurrency.storage_lock import LOCK_FILE
from hudi_core.lifecycle.crash import CRASH_POINTS, ENV_VAR
from hudi_core.lifecycle.heartbeat import heartbeat_path
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.timeline.instant import DATA_ACTIONS, Action, Instant
from hudi_core.timeline.serde import decode_instant_content
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.client import WriteClient
from hudi_core.write.handles import FileGroupWrite, WriteContext, write_file_group
from tests import hudi_rs
from tests.invariants import assert_healthy
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[3]
SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
HEARTBEAT_MS = 1000
MISSES = 2
OPTIONS = {
    "hoodie.client.heartbeat.interval_in_ms": str(HEARTBEAT_MS),
    "hoodie.client.heartbeat.tolerable.misses": str(MISSES),
}
TABLE_TYPES = ["COPY_ON_WRITE", "MERGE_ON_READ"]
WRITE_POINTS = [p for p in CRASH_POINTS if p.startswith("write.")]
ROLLBACK_POINTS = [p for p in CRASH_POINTS if p.startswith("rollback.")]
# Points at which the crashed write has written data files.
POINTS_WITH_FILES = {"write.after_first_file", "write.after_files", "write.after_complete"}

FIRST = [
    {"id": "a", "ts": 1, "city": "sf", "fare": 1.0},
    {"id": "b", "ts": 1, "city": "sf", "fare": 2.0},
    {"id": "c", "ts": 1, "city": "nyc", "fare": 3.0},
    {"id": "d", "ts": 1, "city": "nyc", "fare": 4.0},
    {"id": "e", "ts": 1, "city": "la", "fare": 5.0},
]
# Updates in two partitions, an insert into a stored partition and one into a new partition.
CRASHED = [
    {"id": "a", "ts": 2, "city": "sf", "fare": 10.0},
    {"id": "c", "ts": 2, "city": "nyc", "fare": 30.0},
    {"id": "f", "ts": 2, "city": "sf", "fare": 60.0},
    {"id": "g", "ts": 2, "city": "chi", "fare": 70.0},
]
RECOVERY = [
    {"id": "b", "ts": 3, "city": "sf", "fare": 20.0},
    {"id": "d", "ts": 3, "city": "nyc", "fare": 40.0},
    {"id": "h", "ts": 3, "city": "nyc", "fare": 80.0},
]
DELETED = [{"id": "e", "ts": 3, "city": "la", "fare": 0.0}]

CHILD = """
import sys
import pyarrow as pa
from hudi_core import HudiTable
options = dict(arg.split("=", 1) for arg in sys.argv[3:])
HudiTable(sys.argv[1]).upsert(pa.ipc.open_file(sys.argv[2]).read_all(), options)
"""


# ---- helpers ------------------------------------------------------------------------------------


def _arrow(rows: Sequence[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=SCHEMA)


def _model() -> TableModel:
    return TableModel("id", lambda row: f"city={row['city']}", "ts")


def _new_table(base: Path, table_type: str, model: TableModel) -> HudiTable:
    table = HudiTable.create(
        str(base),
        SCHEMA,
        "crash_safety",
        ["id"],
        ["city"],
        ["ts"],
        table_type,
        {"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    result = table.upsert(_arrow(FIRST), OPTIONS)
    model.upsert(FIRST, result.instant_time, result.completion_time)
    return table


def _crash_upsert(base: Path, rows: Sequence[dict[str, Any]], crash_at: str, scratch: Path) -> None:
    """Upserts `rows` in a subprocess that must die by SIGKILL at `crash_at`."""
    data = scratch / f"batch-{time.monotonic_ns()}.arrow"
    with pa.ipc.new_file(data, SCHEMA) as sink:
        sink.write_table(_arrow(rows))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ENV_VAR: crash_at}
    options = [f"{k}={v}" for k, v in OPTIONS.items()]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(base), str(data), *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, f"writer did not crash at {crash_at}: {done.returncode}\n{done.stderr}"


def _assert_reads(base: Path, model: TableModel) -> None:
    """Our reader and hudi-rs both return exactly the model's current rows."""
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(HudiTable(str(base)).read(), COLUMNS)) == expected, "hudi_core read"
    assert canonical(table_rows(hudi_rs.snapshot(base), COLUMNS)) == expected, "hudi-rs read"
    assert_healthy(base, settled=False)


def _timeline(base: Path) -> Timeline:
    return HudiTable(str(base)).timeline


def _pending_data_instants(base: Path) -> list[Instant]:
    return [i for i in _timeline(base).pending() if i.action in DATA_ACTIONS]


def _marked_files(base: Path, instant: str) -> set[str]:
    """Data files (relative paths) the instant's markers name."""
    root = base / ".hoodie" / ".temp" / instant
    return {
        str(p.relative_to(root)).rsplit(".marker.", 1)[0]
        for p in root.rglob("*")
        if p.is_file() and ".marker." in p.name
    }


def _files_named_for(base: Path, instant: str) -> set[str]:
    """Data files whose name carries the instant: `<fileId>_<token>_<instant>.parquet`, `.<fileId>_<instant>.log.*`."""
    found = set()
    for path in base.rglob("*"):
        relative = path.relative_to(base)
        if relative.parts[0] == ".hoodie" or not path.is_file():
            continue
        name = path.name
        if name.endswith(f"_{instant}.parquet") or (name.startswith(".") and f"_{instant}.log." in name):
            found.add(str(relative))
    return found


def _rolled_back(base: Path) -> dict[str, Instant]:
    """Completed rollback instants by the instant time they rolled back."""
    timeline = _timeline(base)
    result: dict[str, Instant] = {}
    for instant in timeline.completed():
        if instant.action is Action.ROLLBACK:
            metadata = decode_instant_content(timeline.read_content(instant), timeline.instant_path(instant)) or {}
            for target in metadata.get("commitsRollback") or []:
                result[target] = instant
    return result


def _assert_rolled_back(base: Path, failed: str, failed_files: set[str]) -> None:
    assert list(_rolled_back(base)) == [failed], f"expected a completed rollback of {failed} only"
    assert _timeline(base).pending() == [], "an instant is still pending"
    assert _timeline(base).find(failed) is None, "the failed instant is still on the timeline"
    assert not any((base / f).exists() for f in failed_files), "a data file of the failed write remains"
    assert _files_named_for(base, failed) == set()
    assert not (base / ".hoodie" / ".temp" / failed).exists(), "the failed instant's markers remain"
    assert not (base / heartbeat_path(failed)).exists(), "the failed instant's heartbeat remains"


def _recover(base: Path, model: TableModel) -> None:
    """The next writer: an upsert (which recovers) and a delete, both mirrored in the model."""
    table = HudiTable(str(base))
    result = table.upsert(_arrow(RECOVERY), OPTIONS)
    model.upsert(RECOVERY, result.instant_time, result.completion_time)
    result = table.delete(_arrow(DELETED), OPTIONS)
    model.delete(DELETED, result.instant_time, result.completion_time)


# ---- crashed writes ------------------------------------------------------------------------------


def _write_point_params() -> Iterator[Any]:
    for point in WRITE_POINTS:
        for table_type in TABLE_TYPES:
            marks = [pytest.mark.slow] if table_type == "MERGE_ON_READ" else []
            yield pytest.param(point, table_type, id=f"{point}-{table_type}", marks=marks)


@pytest.mark.parametrize(("point", "table_type"), list(_write_point_params()))
def test_upsert_crash_at_point_next_writer_recovers(point: str, table_type: str, tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    _new_table(base, table_type, model)

    _crash_upsert(base, CRASHED, point, tmp_path)

    if point == "write.after_complete":
        # The crashed write did commit: readers see it and nothing is rolled back.
        latest = _timeline(base).completed_data_instants()[-1]
        assert latest.requested_time != model.commits[-1].instant
        model.upsert(CRASHED, latest.requested_time, latest.completion_time)
        assert _pending_data_instants(base) == []
        _assert_reads(base, model)
        _recover(base, model)
        assert _rolled_back(base) == {}
        assert [i.action for i in _timeline(base).instants()].count(Action.ROLLBACK) == 0
        _assert_reads(base, model)
        assert_healthy(base)
        return

    (pending,) = _pending_data_instants(base)
    failed = pending.requested_time
    failed_files = _marked_files(base, failed) | _files_named_for(base, failed)
    if point in POINTS_WITH_FILES:
        assert failed_files, f"a crash at {point} should leave data files behind"
    _assert_reads(base, model)

    _recover(base, model)

    _assert_rolled_back(base, failed, failed_files)
    _assert_reads(base, model)
    assert_healthy(base)


def _crash_during_rollback(
    base: Path, point: str, table_type: str, model: TableModel, scratch: Path
) -> tuple[str, set[str]]:
    """A write crashes with files written; the recovering writer dies at `point` of its rollback."""
    _new_table(base, table_type, model)
    _crash_upsert(base, CRASHED, "write.after_files", scratch)
    (pending,) = _pending_data_instants(base)
    failed = pending.requested_time
    failed_files = _marked_files(base, failed) | _files_named_for(base, failed)
    assert failed_files
    _crash_upsert(base, RECOVERY, point, scratch)
    rollbacks = [i for i in _timeline(base).pending() if i.action is Action.ROLLBACK]
    assert len(rollbacks) == 1, "the crashed rollback should be pending"
    return failed, failed_files


@pytest.mark.slow
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("point", ROLLBACK_POINTS)
def test_recovery_crash_during_rollback_next_writer_finishes_it(point: str, table_type: str, tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    failed, failed_files = _crash_during_rollback(base, point, table_type, model, tmp_path)
    _assert_reads(base, model)

    _recover(base, model)

    _assert_rolled_back(base, failed, failed_files)
    _assert_reads(base, model)
    assert_healthy(base)


@pytest.mark.slow
def test_recovery_crash_during_rollback_resumed_once_single_rollback_instant(tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    _crash_during_rollback(base, "rollback.after_plan", "COPY_ON_WRITE", model, tmp_path)

    _recover(base, model)

    rollbacks = [i for i in _timeline(base).instants() if i.action is Action.ROLLBACK]
    assert len(rollbacks) == 1, f"expected one rollback instant, found {[i.requested_time for i in rollbacks]}"


# ---- live writers --------------------------------------------------------------------------------


class _FakeLiveWriter:
    """Holds a requested data instant with a heartbeat refreshed from a thread, as a live writer does."""

    def __init__(self, base: Path, action: Action) -> None:
        storage = Storage(str(base))
        self.instant_time = new_instant_time(after=latest_time_on(_timeline(base)))
        self.requested = base / ".hoodie" / "timeline" / f"{self.instant_time}.{action.value}.requested"
        self.heartbeat = base / heartbeat_path(self.instant_time)
        self._storage = storage
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _beat(self) -> None:
        self._storage.write_atomic(heartbeat_path(self.instant_time), str(int(time.time() * 1000)).encode("ascii"))

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_MS / 4000):
            self._beat()

    def __enter__(self) -> _FakeLiveWriter:
        self.requested.write_bytes(b"")
        self._beat()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_upsert_with_live_pending_writer_raises_concurrent_write_error(table_type: str, tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    _new_table(base, table_type, model)
    action = Action.DELTA_COMMIT if table_type == "MERGE_ON_READ" else Action.COMMIT
    with _FakeLiveWriter(base, action) as live:
        # Longer than the heartbeat validity: the live writer keeps beating, so it is never rolled back.
        with pytest.raises(ConcurrentWriteError, match=f"instant {live.instant_time}.*live writer"):
            HudiTable(str(base)).upsert(_arrow(RECOVERY), OPTIONS)
        assert live.requested.exists()
        assert live.heartbeat.exists()
        assert [i.requested_time for i in _pending_data_instants(base)] == [live.instant_time]
        assert _rolled_back(base) == {}
        assert not (base / LOCK_FILE).exists(), "the refused writer should release the table lock"
    _assert_reads(base, model)


def _write_lock(base: Path, expiration_ms: int) -> None:
    lock = base / LOCK_FILE
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = {"host": "elsewhere", "pid": 4242, "purpose": "upsert"}
    lock.write_text(
        json.dumps({"owner": "other-owner", "expiration": expiration_ms, "expired": False, "holder": holder})
    )


def test_upsert_while_table_locked_raises_concurrent_write_error(tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    _new_table(base, "COPY_ON_WRITE", model)
    before = _timeline(base).instants()
    _write_lock(base, int(time.time() * 1000) + 60_000)

    with pytest.raises(ConcurrentWriteError, match=r"locked by a live writer.*'pid': 4242"):
        HudiTable(str(base)).upsert(_arrow(RECOVERY), OPTIONS)

    assert _timeline(base).instants() == before
    assert json.loads((base / LOCK_FILE).read_text())["owner"] == "other-owner", "the held lock was touched"
    _assert_reads(base, model)


def test_upsert_with_expired_lock_takes_it_over_succeeds(tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    _new_table(base, "COPY_ON_WRITE", model)
    _write_lock(base, int(time.time() * 1000) - 1_000)

    result = HudiTable(str(base)).upsert(_arrow(RECOVERY), OPTIONS)

    model.upsert(RECOVERY, result.instant_time, result.completion_time)
    assert not (base / LOCK_FILE).exists()
    assert not list((base / LOCK_FILE).parent.glob("*.expired-*")), "the expired lock was left aside"
    _assert_reads(base, model)


# ---- in-process failures -------------------------------------------------------------------------


class _EngineError(RuntimeError):
    pass


class _FailingEngine:
    """Writes one file group, then fails as an executor would; remembers the file it wrote."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def __call__(self, context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[WriteStat]:
        self.written.append(write_file_group(context, tasks[0]).path)
        raise _EngineError("executor lost after the first file group")


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_write_engine_fails_after_request_rolls_back_and_raises(table_type: str, tmp_path: Path) -> None:
    base = tmp_path / "table"
    model = _model()
    table = _new_table(base, table_type, model)
    before = {i.requested_time for i in _timeline(base).instants()}
    engine = _FailingEngine()
    client = WriteClient(table.storage, OPTIONS, engine=engine)

    with pytest.raises(_EngineError, match="executor lost"):
        client.write(WriteOperation.UPSERT, _arrow(CRASHED))

    assert len(engine.written) == 1
    assert not (base / engine.written[0]).exists(), "the file the failed write wrote remains"

    (failed,) = _rolled_back(base)
    assert failed not in before
    assert _timeline(base).pending() == []
    assert _timeline(base).find(failed) is None
    assert _files_named_for(base, failed) == set()
    assert not (base / ".hoodie" / ".temp" / failed).exists()
    assert not (base / LOCK_FILE).exists()
    _assert_reads(base, model)
