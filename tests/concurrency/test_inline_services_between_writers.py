"""Two writer processes on one Merge-on-Read table without optimistic concurrency (one writer at a
time, by the table lock), with inline compaction or clustering: a service never starts work it
cannot commit, so every plan is executed once and nothing it wrote is rolled back and written again;
and no writer finds a clustering plan pending between its scheduling and its execution (its updates
would be refused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hudi_core import HudiTable
from hudi_core.timeline.instant import Action, State
from tests.concurrency.service_writer import CITIES, KEYS, SCHEMA
from tests.invariants import assert_healthy
from tests.model import canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[2]
WRITERS = ("0", "1")
WRITES = 6
COMPACTION = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
CLUSTERING = {
    "hoodie.clustering.inline": "true",
    "hoodie.clustering.inline.max.commits": "2",
    "hoodie.parquet.small.file.limit": "0",  # every write adds file groups, for clustering to merge
}


def run_writers(path: Path, options: dict[str, str], tmp: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = tmp / "events.jsonl"
    command = [sys.executable, "-m", "tests.concurrency.service_writer", str(path)]
    processes = [
        subprocess.Popen([*command, writer, str(WRITES), str(out), json.dumps(options)], env=env, cwd=REPO_ROOT)
        for writer in WRITERS
    ]
    try:
        codes = [process.wait(timeout=600) for process in processes]
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert codes == [0] * len(WRITERS), "a writer failed (its error is above)"
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("service, options", [("compaction", COMPACTION), ("clustering", CLUSTERING)])
def test_inline_services_of_two_writers_run_each_plan_once(
    tmp_path: Path, service: str, options: dict[str, str]
) -> None:
    path = tmp_path / "t"
    HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "MERGE_ON_READ", options)

    events = run_writers(path, options, tmp_path)
    executions = Counter((e["executed"], e["unit"]) for e in events if "executed" in e)
    failures = [e["failed"] for e in events if "failed" in e and service in e["failed"]]
    print(f"{service}: {len(executions)} units in {len({i for i, _ in executions})} plans, {len(failures)} failed")
    assert executions, f"no inline {service} ran"
    assert all(n == 1 for n in executions.values()), f"units executed again: {executions}"

    timeline = HudiTable(str(path)).timeline
    assert not [i for i in timeline.instants() if i.action is Action.ROLLBACK], "work was rolled back"
    done = {i.requested_time for i in timeline.completed()}
    pending = {i.requested_time: i for i in timeline.pending()}
    for instant in {i for i, _ in executions}:
        assert instant in done, f"{service} {instant} executed but did not complete"
    assert all(i.state is State.REQUESTED for i in pending.values()), "a plan was left half executed"
    expected = [
        {"id": f"{w}-{n}-{c}", "city": c, "fare": float(WRITES - 1)}
        for w in WRITERS
        for c in CITIES
        for n in range(KEYS)
    ]
    assert canonical(table_rows(HudiTable(str(path)).read(), SCHEMA.names)) == canonical(expected)
    assert_healthy(path, settled=not pending)
