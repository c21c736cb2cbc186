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
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.lifecycle.crash import ENV_VAR
from tests.concurrency.options import occ
from tests.concurrency.pause import paused

REPO_ROOT = Path(__file__).resolve().parents[2]
UPSTREAM_SCHEMA = pa.schema([("event", pa.string()), ("k", pa.string()), ("v", pa.int64())])
HEARTBEAT_OPTIONS = {"hoodie.client.heartbeat.interval_in_ms": "1000", "hoodie.client.heartbeat.tolerable.misses": "2"}
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
        result = self.table.insert(_events(self, size))
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


# Both upstream writers add file groups (no small-file packing): they never conflict.
OCC_UPSTREAM = occ("FileSystemBasedLockProvider", **{"hoodie.parquet.small.file.limit": "0"})


@pytest.mark.slow
def test_a_commit_requested_earlier_but_completed_later_is_consumed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hudi #7160: with two upstream writers, t1 is requested first but completes after t2. A
    downstream run between the two completions must not move its checkpoint past t1's rows."""
    upstream_path, downstream = tmp_path / "upstream", tmp_path / "downstream"
    upstream = Upstream(upstream_path)
    upstream.table = HudiTable(str(upstream_path), {**HEARTBEAT_OPTIONS, **OCC_UPSTREAM})
    upstream.commit(20)
    assert run_job(upstream_path, downstream).returncode == 0

    with paused(monkeypatch, lambda: upstream.table.insert(_events(upstream, 13))) as early:
        late_completion = upstream.commit(11)  # requested after `early`, completed before it
        pending = HudiTable(str(upstream_path)).timeline.pending()
        assert len(pending) == 1 and pending[0].requested_time < late_completion
        run_until_success(upstream_path, downstream, "after_read")
        assert HudiTable(str(downstream)).latest_checkpoint() == late_completion
    assert early.error is None and early.result is not None and early.result.completion_time is not None
    assert early.result.instant_time < late_completion < early.result.completion_time

    run_until_success(upstream_path, downstream, "write.after_files")
    assert HudiTable(str(downstream)).latest_checkpoint() == early.result.completion_time
    assert downstream_totals(downstream) == (dict(upstream.sums), dict(upstream.counts))
    assert "nothing to do" in run_job(upstream_path, downstream).stdout


def _events(upstream: Upstream, size: int) -> pa.Table:
    """The next `size` upstream events, recorded in the model (as Upstream.commit does)."""
    rows = []
    for i in range(size):
        key = f"key{(upstream.next_event + i) % 5}"
        value = (upstream.next_event + i) * 7 % 31
        rows.append({"event": f"e{upstream.next_event + i:05d}", "k": key, "v": value})
        upstream.sums[key] += value
        upstream.counts[key] += 1
    upstream.next_event += size
    return pa.Table.from_pylist(rows, schema=UPSTREAM_SCHEMA)
