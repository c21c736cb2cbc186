"""Table services change layout, never content: every read equals the model around them.

A seeded history interleaves upserts, inserts and deletes with compaction (Merge-on-Read),
clustering, cleaning and archival (small retention settings so all of them act). After every step
the snapshot equals the model (ours and hudi-rs); at the end, time travel to every commit the
cleaner retained, incremental reads from every commit (archived ones too) to the latest, and CDC of
the retained windows equal the model, and windows that contain only services are empty.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.services.base import ServiceContext
from hudi_core.services.clean import earliest_commit_to_retain
from tests import hudi_rs
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
OPTIONS = {
    "hoodie.clean.commits.retained": "4",
    "hoodie.keep.min.commits": "6",
    "hoodie.keep.max.commits": "8",
    "hoodie.parquet.small.file.limit": "0",
    "hoodie.compact.inline.max.delta.commits": "2",
}
CLUSTER = {
    "hoodie.clustering.plan.strategy.sort.columns": "fare",
    "hoodie.layout.optimize.strategy": "z-order",
    "hoodie.clustering.plan.strategy.target.file.max.bytes": str(2 * 1024 * 1024),
}


def _rows(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


class History:
    def __init__(self, table: HudiTable, model: TableModel, seed: str) -> None:
        self.table, self.model = table, model
        self.rng = random.Random(seed)
        self.next_key = 0
        self.ts = 100

    def row(self, key: str) -> dict[str, Any]:
        return {
            "id": key,
            "ts": self.ts,
            "city": ["sf", "nyc", "la"][int(key[1:]) % 3],
            "fare": self.rng.uniform(1, 99),
        }

    def write(self) -> None:
        self.ts += 10
        stored = sorted(k for _, k in self.model.current)
        kind = self.rng.choice(["upsert", "upsert", "insert", "delete"]) if stored else "insert"
        if kind == "insert":
            rows = [self.row(f"k{self.next_key + i:04d}") for i in range(6)]
            self.next_key += 6
            result = self.table.insert(_rows(rows), OPTIONS)
            self.model.insert_new(rows, result.instant_time, result.completion_time)
        elif kind == "upsert":
            rows = [self.row(k) for k in self.rng.sample(stored, min(4, len(stored)))]
            rows.append(self.row(f"k{self.next_key:04d}"))
            self.next_key += 1
            result = self.table.upsert(_rows(rows), OPTIONS)
            self.model.upsert(rows, result.instant_time, result.completion_time)
        else:
            rows = [self.row(k) for k in self.rng.sample(stored, min(2, len(stored)))]
            result = self.table.delete(_rows(rows), OPTIONS)
            self.model.delete(rows, result.instant_time, result.completion_time)
        for service in result.table_services:  # cleaning and archival run inline
            assert service.action in ("clean", "archive"), service

    def service(self, name: str) -> None:
        if name == "compact":
            result = self.table.compact(options=OPTIONS)
        elif name == "cluster":
            result = self.table.cluster(options={**OPTIONS, **CLUSTER})
        else:
            raise AssertionError(name)
        if result is not None and result.instant_time is not None:
            self.model.service(result.instant_time, result.completion_time)


def _check_snapshot(table: HudiTable, model: TableModel, what: str) -> None:
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(table.read(), COLUMNS)) == expected, f"ours after {what}"
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == expected, f"hudi-rs after {what}"


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_services_keep_every_read(table_type: str, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    table = HudiTable.create(path, SCHEMA, "services", ["id"], ["city"], ["ts"], table_type)
    model = TableModel("id", lambda r: r["city"], "ts")
    history = History(table, model, seed=table_type)
    steps = ["write"] * 3 + ["compact", "write", "write", "cluster", "write", "compact", "write"] * 3
    steps += ["write", "cluster", "write", "write", "compact", "write"]
    for step in steps:
        if step == "write":
            history.write()
        elif table_type == "MERGE_ON_READ" or step == "cluster":
            history.service(step)
        _check_snapshot(table, model, step)

    timeline = table.timeline
    assert timeline.has_archive() and timeline.archived(), "archival never ran"
    cleans = [i for i in timeline.completed() if i.action.value == "clean"]
    assert cleans, "cleaning never ran"
    actions = {i.action.value for i in timeline.instants()} | {a.action for a in timeline.archived()}
    assert "replacecommit" in actions
    if table_type == "MERGE_ON_READ":
        assert any(timeline.pending_action(i).value == "compaction" for i in timeline.completed()) or any(
            a.action == "commit" for a in timeline.archived()
        )

    # Time travel to every commit the cleaner keeps readable.
    retained = earliest_commit_to_retain(ServiceContext(table.storage, OPTIONS), timeline)
    assert retained is not None
    active = {i.requested_time for i in timeline.instants()}
    for commit in model.commits:
        if commit.instant < retained.requested_time:
            continue
        expected = canonical(model.as_of(commit.instant, COLUMNS))
        assert canonical(table_rows(table.read(as_of=commit.instant), COLUMNS)) == expected, commit.instant
        if commit.instant in active:
            theirs = hudi_rs.as_of(path, commit.instant)
            assert canonical(table_rows(theirs, COLUMNS)) == expected, f"hudi-rs as of {commit.instant}"

    # Incremental reads from every commit, archived ones included, to the latest.
    latest = model.commits[-1].completion
    for commit in [None, *model.commits[:-1]]:
        start = commit.completion if commit else None
        ours = table.read_incremental(start or "earliest", latest)
        assert canonical(table_rows(ours, COLUMNS)) == canonical(model.incremental(start, latest, COLUMNS)), start

    # Windows holding only table services return nothing.
    for index, commit in enumerate(model.commits[1:], start=1):
        if commit.is_service:
            previous = model.commits[index - 1].completion
            assert table.read_incremental(previous, commit.completion).num_rows == 0
            assert table.read_cdc(previous, commit.completion).num_rows == 0

    # CDC within the retained window equals the model's changes.
    window = [c for c in model.commits if c.instant >= retained.requested_time]
    start, end = window[0].completion, window[-1].completion
    expected_changes = model.changes(start, end, COLUMNS)
    assert table.read_cdc(start, end, images="struct").to_pylist() == expected_changes
    as_json = table.read_cdc(start, end).to_pylist()
    assert [{**r, "before": _parsed(r["before"]), "after": _parsed(r["after"])} for r in as_json] == expected_changes


def _parsed(image: str | None) -> Any:
    return None if image is None else json.loads(image)
