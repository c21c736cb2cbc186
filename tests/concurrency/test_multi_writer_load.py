"""Four writer processes upserting at once under optimistic concurrency, on overlapping and disjoint
partitions, for a bounded time: every acknowledged commit's rows are present with their final
values (applied in completion order), and every rejected commit left nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from tests import hudi_rs
from tests.concurrency.options import occ
from tests.concurrency.writer_process import KEYS_PER_CITY, SCHEMA, key
from tests.invariants import assert_healthy

REPO_ROOT = Path(__file__).resolve().parents[2]
OCC = occ(
    "FileSystemBasedLockProvider",
    **{
        "hoodie.write.lock.wait_time_ms": "100",
        "hoodie.write.lock.num_retries": "600",
        "hoodie.write.lock.wait_time_ms_between_retry": "10",
        "hoodie.clean.automatic": "false",
        "hoodie.parquet.small.file.limit": "0",
    },
)
# Writers 0 and 1 share sf and nyc; 2 and 3 each own a partition of their own.
WRITERS = {"0": "sf,nyc", "1": "sf,nyc", "2": "la", "3": "chi"}
SECONDS = 6


def run_writers(path: Path, options: dict[str, str], tmp: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = tmp / "attempts.jsonl"
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.concurrency.writer_process",
                str(path),
                writer,
                str(SECONDS),
                cities,
                str(out),
                json.dumps(options),
            ],
            env=env,
            cwd=REPO_ROOT,
        )
        for writer, cities in WRITERS.items()
    ]
    for process in processes:
        assert process.wait(timeout=SECONDS + 120) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_four_writers_keep_every_acknowledged_commit(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    cities = sorted({c for group in WRITERS.values() for c in group.split(",")})
    initial = [{"id": key(c, n), "city": c, "fare": -1.0} for c in cities for n in range(KEYS_PER_CITY)]
    table = HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, table_type, OCC)
    table.insert(pa.Table.from_pylist(initial, schema=SCHEMA))

    attempts = run_writers(path, OCC, tmp_path)
    acknowledged = sorted((a for a in attempts if "instant" in a), key=lambda a: a["completion"])
    rejected = [a for a in attempts if "rejected" in a]
    assert len(acknowledged) + len(rejected) == len(attempts) and acknowledged
    expected = {row["id"]: (row["city"], float(row["fare"])) for row in initial}
    for attempt in acknowledged:
        expected.update({row["id"]: (row["city"], float(row["fare"])) for row in attempt["rows"]})

    timeline = HudiTable(str(path)).timeline
    # Automatic archival moves older commits to the archived timeline while the writers run.
    archived = timeline.archived_data_instants()
    committed = [i.requested_time for i in [*archived, *timeline.completed_data_instants()]]
    assert len(committed) == len(set(committed))
    assert set(committed) == {a["instant"] for a in acknowledged} | {committed[0]}
    assert not timeline.pending()
    for attempt in rejected:
        assert attempt["rejected"] and timeline.find(attempt["rejected"]) is None
        leftovers = [f for f in path.rglob("*") if attempt["rejected"] in f.name and ".hoodie" not in f.parts]
        assert not leftovers, f"rejected write {attempt['rejected']} left {leftovers}"

    for reader in (HudiTable(str(path)).read(columns=["id", "city", "fare"]), hudi_rs.snapshot(path)):
        got = {r["id"]: (r["city"], r["fare"]) for r in reader.select(["id", "city", "fare"]).to_pylist()}
        assert reader.num_rows == len(expected)
        assert got == expected
    by_writer = {w: sum(1 for a in acknowledged if a["writer"] == w) for w in WRITERS}
    conflicts = {w: sum(1 for a in rejected if a["writer"] == w) for w in WRITERS}
    print(
        f"{table_type}: {len(attempts)} attempted, {len(acknowledged)} committed {by_writer}, "
        f"{len(rejected)} aborted {conflicts}"
    )
    assert all(by_writer.values()), "every writer committed at least once"
    assert_healthy(path)  # metadata table in step, nothing pending or orphaned
