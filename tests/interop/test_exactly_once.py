"""Exactly-once downstream processing with checkpoints, through SIGKILLed runs.

A downstream job reads the upstream table incrementally from its own latest checkpoint up to the
upstream's latest completion time, aggregates the window (count and sum per key) and inserts the
aggregates with `checkpoint=<window end>`. Because the checkpoint commits with the data, a job
killed anywhere -- after reading, after inflight, after writing data files -- and rerun until it
succeeds counts every upstream row exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.write.crash import ENV_VAR

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM_SCHEMA = pa.schema([("event", pa.string()), ("k", pa.string()), ("v", pa.int64())])
HEARTBEAT_OPTIONS = {"hoodie.client.heartbeat.interval_in_ms": "100", "hoodie.client.heartbeat.tolerable.misses": "2"}
EXPIRY_S = 0.5
JOB_CRASH_VAR = "EXACTLY_ONCE_JOB_CRASH"

JOB = """
import os, signal, sys
import pyarrow as pa
import pyarrow.compute as pc
from hudi_core import HudiTable, TableNotFoundError, write_hudi

upstream_path, downstream_path = sys.argv[1], sys.argv[2]
options = dict(arg.split("=", 1) for arg in sys.argv[3:])
try:
    checkpoint = HudiTable(downstream_path).latest_checkpoint()
except TableNotFoundError:
    checkpoint = None
upstream = HudiTable(upstream_path)
timeline = upstream.timeline
ends = [timeline.completion_order_key(i) for i in timeline.completed_data_instants()]
end = max(ends) if ends else None
if end is None or (checkpoint is not None and end <= checkpoint):
    print("nothing to do")
    sys.exit(0)
rows = upstream.read_incremental(checkpoint or "earliest", end, columns=["k", "v"])
if os.environ.get("EXACTLY_ONCE_JOB_CRASH") == "after_read":
    os.kill(os.getpid(), signal.SIGKILL)
sums = rows.group_by("k").aggregate([("v", "sum"), ("v", "count")])
keys = sums.column("k")
window = pa.table({
    "id": pc.binary_join_element_wise(keys, pa.scalar(end), "@"),
    "k": keys,
    "window_end": pa.repeat(pa.scalar(end), len(sums)),
    "total": sums.column("v_sum"),
    "count": sums.column("v_count"),
})
write_hudi(downstream_path, window, {
    "hoodie.table.name": "aggregates",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.operation": "insert",
    **options,
}, checkpoint=end)
print("wrote", len(sums))
"""


def run_job(upstream: Path, downstream: Path, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop(ENV_VAR, None)
    env.pop(JOB_CRASH_VAR, None)
    if crash == "after_read":
        env[JOB_CRASH_VAR] = crash
    elif crash is not None:
        env[ENV_VAR] = crash
    options = [f"{k}={v}" for k, v in HEARTBEAT_OPTIONS.items()]
    return subprocess.run(
        [sys.executable, "-c", JOB, str(upstream), str(downstream), *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_until_success(upstream: Path, downstream: Path, crash: str) -> None:
    crashed = run_job(upstream, downstream, crash)
    assert crashed.returncode == -signal.SIGKILL, f"job did not die at {crash}: {crashed.stdout}{crashed.stderr}"
    for _ in range(3):
        time.sleep(EXPIRY_S)  # the dead job's heartbeat and lock expire
        done = run_job(upstream, downstream)
        if done.returncode == 0:
            return
    raise AssertionError(f"the job did not recover after a crash at {crash}: {done.stderr}")


class Upstream:
    def __init__(self, path: Path) -> None:
        self.table = HudiTable.create(str(path), UPSTREAM_SCHEMA, "events", ["event"], None, None)
        self.sums: dict[str, int] = defaultdict(int)
        self.counts: dict[str, int] = defaultdict(int)
        self.next_event = 0

    def commit(self, size: int) -> str:
        rows = []
        for i in range(size):
            key = f"key{(self.next_event + i) % 5}"
            value = (self.next_event + i) * 7 % 31
            rows.append({"event": f"e{self.next_event + i:05d}", "k": key, "v": value})
            self.sums[key] += value
            self.counts[key] += 1
        self.next_event += size
        result = self.table.insert(pa.Table.from_pylist(rows, schema=UPSTREAM_SCHEMA))
        assert result.completion_time is not None
        return result.completion_time


def downstream_totals(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    rows = HudiTable(str(path)).read(columns=["k", "total", "count"]).to_pylist()
    sums: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        sums[row["k"]] += row["total"]
        counts[row["k"]] += row["count"]
    return dict(sums), dict(counts)


CRASHES = ["after_read", "write.after_requested", "write.after_inflight", "write.after_files", "write.after_complete"]


@pytest.mark.slow
def test_killed_jobs_rerun_until_success_count_every_row_once(tmp_path: Path) -> None:
    upstream = Upstream(tmp_path / "upstream")
    downstream = tmp_path / "downstream"
    last = upstream.commit(20)
    for crash in CRASHES:
        last = upstream.commit(13)
        run_until_success(tmp_path / "upstream", downstream, crash)
        assert HudiTable(str(downstream)).latest_checkpoint() == last, f"checkpoint after a crash at {crash}"
    assert downstream_totals(downstream) == (dict(upstream.sums), dict(upstream.counts))
    # Nothing new upstream: a rerun writes nothing.
    before = HudiTable(str(downstream)).timeline.instants()
    assert "nothing to do" in run_job(tmp_path / "upstream", downstream).stdout
    assert HudiTable(str(downstream)).timeline.instants() == before
