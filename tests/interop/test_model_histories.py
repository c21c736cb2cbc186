"""Seeded random write histories: our reader and hudi-rs both equal an independent model.

Each history creates a table (Copy-on-Write or Merge-on-Read, partitioned or not, one index type,
event-time or commit-time ordering), then applies a bulk insert and random inserts, upserts (with late
records whose ordering value is smaller than the stored one), deletes (some with ordering values),
insert overwrites and partition deletes. After every write the snapshot is compared; at the end, time
travel to every commit and the incremental read of every commit's window.
"""

from __future__ import annotations

import datetime
import decimal
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.schema.meta_fields import COMMIT_TIME, META_FIELDS, PARTITION_PATH, RECORD_KEY
from tests import hudi_rs
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.conformance

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("ts", pa.int64()),
        ("city", pa.string()),
        ("fare", pa.float64()),
        ("note", pa.string()),
        ("day", pa.date32()),
        ("amount", pa.decimal128(10, 2)),
    ]
)
COLUMNS = SCHEMA.names
WITH_COMMIT = [*COLUMNS, "_commit"]  # the model's commit of each record: its `_hoodie_commit_time`
CITIES = ["sf", "nyc", "chennai"]

CASES = [
    pytest.param(
        table_type,
        index,
        partitioned,
        event_time,
        id=f"{table_type[:3]}-{index}-{'part' if partitioned else 'flat'}-{'event' if event_time else 'commit'}",
    )
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for index in ("SIMPLE", "BLOOM", "BUCKET", "GLOBAL_SIMPLE", "GLOBAL_BLOOM")
    for partitioned, event_time in ((True, True), (False, False))
]


class History:
    def __init__(self, rng: random.Random, partitioned: bool, cities: Sequence[str] = CITIES) -> None:
        self.rng = rng
        self.partitioned = partitioned
        self.next_key = 0
        self.cities: dict[str, str] = {}
        self.city_names = list(cities)

    def row(self, key: str, ts: int) -> dict[str, Any]:
        # A key keeps its city, so global indexes never see partition moves here.
        city = self.cities.setdefault(key, self.rng.choice(self.city_names))
        return {
            "id": key,
            "ts": ts,
            "city": city,
            "fare": round(self.rng.uniform(1, 100), 2),
            "note": self.rng.choice([None, "x", "late", "ü-ñ"]),
            "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=self.rng.randint(0, 60)),
            "amount": decimal.Decimal(self.rng.randint(-99999, 99999)).scaleb(-2),
        }

    def fresh(self, count: int, ts: int) -> list[dict[str, Any]]:
        rows = []
        for _ in range(count):
            rows.append(self.row(f"k{self.next_key:04d}", ts))
            self.next_key += 1
        return rows

    def fresh_in(self, city: str, count: int, ts: int) -> list[dict[str, Any]]:
        """`count` new rows of one city (keys of other cities are skipped)."""
        rows: list[dict[str, Any]] = []
        while len(rows) < count:
            rows += [r for r in self.fresh(1, ts) if r["city"] == city]
        return rows


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _check(ours: pa.Table, theirs: pa.Table | None, expected: list[dict[str, Any]], what: str) -> None:
    assert canonical(table_rows(ours, COLUMNS)) == canonical(expected), f"ours vs model: {what}"
    if theirs is not None:
        assert canonical(table_rows(theirs, COLUMNS)) == canonical(expected), f"hudi-rs vs model: {what}"
        assert canonical(table_rows(theirs, META_FIELDS)) == canonical(table_rows(ours, META_FIELDS)), (
            f"hudi-rs vs ours, meta columns: {what}"
        )


def _check_meta(ours: pa.Table, expected: list[dict[str, Any]], partitioned: bool, what: str) -> None:
    """Each record's key, partition path and commit time are the ones the model gives it."""
    meta = [COMMIT_TIME, RECORD_KEY, PARTITION_PATH]
    model = [
        {COMMIT_TIME: r["_commit"], RECORD_KEY: r["id"], PARTITION_PATH: r["city"] if partitioned else ""}
        for r in expected
    ]
    assert canonical(table_rows(ours, meta)) == canonical(model), f"meta columns vs model: {what}"


@pytest.mark.parametrize(("table_type", "index", "partitioned", "event_time"), CASES)
def test_random_history_ours_and_hudi_rs_equal_model(
    table_type: str, index: str, partitioned: bool, event_time: bool, tmp_path: Path
) -> None:
    rng = random.Random(f"{table_type}{index}{partitioned}{event_time}")
    history = History(rng, partitioned)
    options = {"hoodie.index.type": index, "hoodie.bucket.index.num.buckets": "4"}
    if table_type == "MERGE_ON_READ" and index == "SIMPLE":
        options["hoodie.logfile.data.block.format"] = "parquet"
    create_options = {} if event_time else {"hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"}
    path = str(tmp_path / "table")
    table = HudiTable.create(
        path, SCHEMA, "history", ["id"], ["city"] if partitioned else None, ["ts"], table_type, create_options
    )
    model = TableModel("id", (lambda r: r["city"]) if partitioned else (lambda r: ""), "ts" if event_time else None)

    def apply(result_rows: list[dict[str, Any]], kind: str) -> None:
        data = _table(result_rows)
        if kind == "bulk_insert":
            result = table.bulk_insert(data, options)
            model.insert_new(result_rows, result.instant_time, result.completion_time)
        elif kind == "insert":
            result = table.insert(data, options)
            model.insert_new(result_rows, result.instant_time, result.completion_time)
        elif kind == "upsert":
            result = table.upsert(data, options)
            model.upsert(result_rows, result.instant_time, result.completion_time)
        elif kind == "delete":
            result = table.delete(data, options)
            model.delete(result_rows, result.instant_time, result.completion_time)
        elif kind == "insert_overwrite":
            result = table.insert_overwrite(data, options)
            model.insert_overwrite(result_rows, result.instant_time, result.completion_time, whole_table=False)
        else:
            raise AssertionError(kind)
        ours = table.read()
        _check(ours, hudi_rs.snapshot(path), model.snapshot(COLUMNS), f"snapshot after {kind}")
        _check_meta(ours, model.snapshot(WITH_COMMIT), partitioned, f"snapshot after {kind}")

    ts = 100
    apply(history.fresh(30, ts), "bulk_insert")
    for _ in range(7):
        ts += 10
        stored = sorted({key for _, key in model.current})
        kind = rng.choice(["upsert", "upsert", "upsert", "insert", "delete", "insert_overwrite"])
        if kind == "upsert":
            chosen = rng.sample(stored, min(len(stored), 6))
            # Late records: an ordering value below the stored one must not win under event time.
            rows = [history.row(k, ts if rng.random() < 0.7 else 0) for k in chosen] + history.fresh(3, ts)
            rows.append(history.row(chosen[0], ts + 1))  # a duplicate in the batch: the larger ts wins
            apply(rows, "upsert")
        elif kind == "insert":
            apply(history.fresh(5, ts), "insert")
        elif kind == "delete":
            chosen = rng.sample(stored, min(len(stored), 3))
            rows = [history.row(k, ts if rng.random() < 0.7 else 0) for k in chosen]
            apply(rows, "delete")
        elif partitioned and not index.startswith("GLOBAL"):
            city = rng.choice(CITIES)
            rows = [r for r in history.fresh(8, ts) if r["city"] == city] or history.fresh(1, ts)
            apply(rows, "insert_overwrite")

    for commit in model.commits:
        ours = table.read(as_of=commit.instant)
        what = f"time travel to {commit.instant}"
        _check(ours, hudi_rs.as_of(path, commit.instant), model.as_of(commit.instant, COLUMNS), what)
        _check_meta(ours, model.as_of(commit.instant, WITH_COMMIT), partitioned, what)
    # hudi 0.5.0's Merge-on-Read incremental reads return a window's log records without merging
    # them with older versions, so a late record that lost under event-time ordering still shows;
    # Hudi's Spark reader merges first (the model's semantics). Only ours is compared there.
    hudi_rs_incremental_comparable = not (table_type == "MERGE_ON_READ" and event_time)
    previous = "00000000000000000"
    for commit in model.commits:
        assert commit.completion is not None
        ours = table.read_incremental(previous, commit.completion)
        what = f"incremental ({previous}, {commit.completion}]"
        _check(
            ours,
            hudi_rs.incremental(path, previous, commit.completion) if hudi_rs_incremental_comparable else None,
            model.incremental(previous, commit.completion, COLUMNS),
            what,
        )
        _check_meta(ours, model.incremental(previous, commit.completion, WITH_COMMIT), partitioned, what)
        previous = commit.completion
