"""A consumer task killed with SIGKILL (`airflow tasks test` in a subprocess, at a crash point of
hudi_core) and retried: every source commit lands in the target exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from hudi_core import HudiTable, write_hudi
from hudi_core.lifecycle.crash import ENV_VAR as CRASH_VARIABLE

SOURCE_OPTIONS = {
    "hoodie.table.name": "source",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
}


def _airflow_task(source: Path, target: Path, crash_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HUDI_TEST_SOURCE": str(source), "HUDI_TEST_TARGET": str(target)}
    env.pop(CRASH_VARIABLE, None)
    if crash_at is not None:
        env[CRASH_VARIABLE] = crash_at
    airflow = str(Path(sys.executable).parent / "airflow")
    command = [airflow, "tasks", "test", "hudi_crash_retry", "copy"]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, check=False)


def _rows(ids: range, ts: int) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids), "value": [float(i * ts) for i in ids]})


def _data(path: Path) -> list[tuple[str, int, float]]:
    table = HudiTable(str(path)).read(columns=["id", "ts", "value"])
    return sorted(zip(*(table.column(n).to_pylist() for n in ("id", "ts", "value")), strict=True))


def _data_commits(path: Path) -> list[str]:
    return [i.requested_time for i in HudiTable(str(path)).timeline.completed_data_instants()]


def test_killed_after_the_commit_the_retry_finds_its_window_done(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    write_hudi(str(source), _rows(range(10), 1), SOURCE_OPTIONS)

    killed = _airflow_task(source, target, "write.after_complete")
    assert killed.returncode in (-signal.SIGKILL, 1, 137), killed.stdout[-2000:] + killed.stderr[-2000:]
    assert len(_data_commits(target)) == 1  # committed, though the task never reported success

    retried = _airflow_task(source, target, None)
    assert retried.returncode == 0, retried.stdout[-3000:] + retried.stderr[-3000:]
    assert "no new commits" in retried.stdout + retried.stderr
    assert len(_data_commits(target)) == 1  # not written twice
    assert _data(target) == _data(source)


def test_killed_before_the_commit_the_retry_writes_it_once(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    write_hudi(str(source), _rows(range(10), 1), SOURCE_OPTIONS)
    assert _airflow_task(source, target, None).returncode == 0
    write_hudi(str(source), _rows(range(5, 15), 2), SOURCE_OPTIONS)

    killed = _airflow_task(source, target, "write.after_files")
    assert killed.returncode != 0
    timeline = HudiTable(str(target)).timeline
    assert len(_data_commits(target)) == 1 and timeline.pending()  # the second write died inflight

    retried = _airflow_task(source, target, None)
    assert retried.returncode == 0, retried.stdout[-3000:] + retried.stderr[-3000:]
    assert len(_data_commits(target)) == 2  # the window once, after rolling back the dead attempt
    assert not HudiTable(str(target)).timeline.pending()
    assert _data(target) == _data(source)
