"""A table service killed at any of its crash points leaves a plan the next run completes or rolls back.

Each case runs the service in a subprocess with `HUDI_CRASH_AT=<point>` (it dies by SIGKILL there),
runs the same service again (the killed process is known dead at once: its lock and heartbeat
name it), and checks that the table reads
exactly as before (ours and hudi-rs), that nothing is left pending, and that a later write works.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.lifecycle.crash import CRASH_POINTS, ENV_VAR
from tests import hudi_rs
from tests.invariants import assert_healthy
from tests.model import canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[3]
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
FAST = {
    "hoodie.client.heartbeat.interval_in_ms": "1000",
    "hoodie.client.heartbeat.tolerable.misses": "2",
    "hoodie.clean.automatic": "false",
    "hoodie.archive.automatic": "false",
    "hoodie.parquet.small.file.limit": "0",
}
SERVICE_OPTIONS = {
    **FAST,
    "hoodie.log.compaction.blocks.threshold": "3",
    "hoodie.clean.commits.retained": "2",
    "hoodie.keep.min.commits": "2",
    "hoodie.keep.max.commits": "3",
    "hoodie.clustering.plan.strategy.sort.columns": "v",
}
CHILD = """
import json, sys
from hudi_core import HudiTable
path, method, args, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
getattr(HudiTable(path), method)(*args, options=options)
"""


def _rows(ids: list[int], v: int) -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "p": ["a" if i % 2 else "b" for i in ids]}, schema=SCHEMA)


def _history(path: Path, table_type: str) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "crash", ["id"], ["p"], None, table_type, FAST)
    table.insert(_rows(list(range(8)), 0), FAST)
    for v in range(1, 6):
        table.upsert(_rows([1, 2, 3, 4, 10 + v], v), FAST)
    return table


def _content(upserts: int = 5, later: tuple[int, ...] = ()) -> list[tuple[Any, ...]]:
    """What `_history` leaves after its insert and first `upserts` upserts, then upserts of ids 1-4
    with each v of `later` (no ordering field: the latest write of an id wins)."""
    rows = dict.fromkeys(range(8), 0)
    for v in range(1, upserts + 1):
        rows.update(dict.fromkeys((1, 2, 3, 4, 10 + v), v))
    for v in later:
        rows.update(dict.fromkeys((1, 2, 3, 4), v))
    return canonical([{"id": i, "v": v, "p": "a" if i % 2 else "b"} for i, v in rows.items()])


Setup = tuple[HudiTable, str, list[Any], list[tuple[Any, ...]]]


def _compaction(path: Path, table_type: str) -> Setup:
    return _history(path, table_type), "compact", [None], _content()


def _log_compaction(path: Path, table_type: str) -> Setup:
    return _history(path, table_type), "log_compact", [None], _content()


def _clustering(path: Path, table_type: str) -> Setup:
    return _history(path, table_type), "cluster", [None], _content()


def _clean(path: Path, table_type: str) -> Setup:
    table = _history(path, table_type)
    if table_type == "MERGE_ON_READ":  # slices become cleanable once a compaction started new ones
        table.compact(None, SERVICE_OPTIONS)
        for v in (6, 7):
            table.upsert(_rows([1, 2, 3, 4], v), FAST)
        return table, "clean", [], _content(later=(6, 7))
    return table, "clean", [], _content()


def _archive(path: Path, table_type: str) -> Setup:
    table = _history(path, table_type)
    table.clean(SERVICE_OPTIONS)
    return table, "archive", [], _content()


def _savepoint(path: Path, table_type: str) -> Setup:
    table = _history(path, table_type)
    return table, "savepoint", [table.timeline.completed_data_instants()[-1].requested_time], _content()


def _restore(path: Path, table_type: str) -> Setup:
    table = _history(path, table_type)
    saved = table.timeline.completed_data_instants()[2].requested_time  # the insert and two upserts
    table.savepoint(saved)
    return table, "restore", [saved], _content(upserts=2)


SETUPS: dict[str, Callable[[Path, str], Setup]] = {
    "compaction": _compaction,
    "logcompaction": _log_compaction,
    "clustering": _clustering,
    "clean": _clean,
    "archive": _archive,
    "savepoint": _savepoint,
    "restore": _restore,
}
MOR_ONLY = {"compaction", "logcompaction"}  # Copy-on-Write tables have no logs to compact
CASES = [
    pytest.param(point, table_type, id=f"{point}-{table_type}")
    for point in CRASH_POINTS
    if point.split(".")[0] in SETUPS
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    if table_type == "MERGE_ON_READ" or point.split(".")[0] not in MOR_ONLY
]


def _run(path: Path, method: str, args: list[Any], crash_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop(ENV_VAR, None)
    if crash_at:
        env[ENV_VAR] = crash_at
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(path), method, json.dumps(args), json.dumps(SERVICE_OPTIONS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize(("point", "table_type"), CASES)
def test_service_crash_then_rerun(point: str, table_type: str, tmp_path: Path) -> None:
    path = tmp_path / "t"
    table, method, args, expected = SETUPS[point.split(".", maxsplit=1)[0]](path, table_type)
    if method == "restore":
        assert canonical(table_rows(table.read(as_of=args[0]), COLUMNS)) == expected
    else:
        assert canonical(table_rows(table.read(), COLUMNS)) == expected
    crashed = _run(path, method, args, point)
    assert crashed.returncode == -signal.SIGKILL, f"no crash at {point}: {crashed.returncode} {crashed.stderr}"
    if method != "restore":  # mid-restore the table is half restored; writers are refused
        assert canonical(table_rows(table.read(), COLUMNS)) == expected, "a crashed service changed the content"
        assert_healthy(path, settled=False)

    rerun = _run(path, method, args, None)
    assert rerun.returncode == 0, rerun.stderr
    table = HudiTable(str(path))
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    assert canonical(table_rows(hudi_rs.snapshot(str(path)), COLUMNS)) == expected
    assert_healthy(path)
    table.upsert(_rows([1, 99], 42), FAST)
    assert {1, 99} <= set(table.read().column("id").to_pylist())
    table.clean({**SERVICE_OPTIONS, "hoodie.clean.commits.retained": "1"})
    assert_healthy(path)
