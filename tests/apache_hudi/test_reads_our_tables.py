"""Apache Hudi 1.2 reads what we write: seeded histories, each read compared with the model.

Our writer (metadata table on) applies a seeded random history to a Copy-on-Write or Merge-on-Read
table, partitioned or not: a bulk insert, then upserts (with late records and a duplicate key in
the batch), deletes (some carrying older ordering values), inserts, insert overwrites and partition
deletes. After every commit Apache Hudi's snapshot read must equal the independent model
(tests/model.py); then on a seeded sample of instants its time-travel and incremental reads, its
read-optimized read (after our compaction on Merge-on-Read), and its metadata table check.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable, WriteResult
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

CASES = [
    pytest.param(table_type, partitioned, id=f"{table_type[:3].lower()}-{'part' if partitioned else 'flat'}")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for partitioned in (True, False)
]
SAMPLED_INSTANTS = 2
SAMPLED_WINDOWS = 2


def assert_rows(got: pa.Table, expected: list[dict[str, Any]], what: str) -> None:
    assert canonical(table_rows(got, COLUMNS)) == canonical(expected), f"Apache Hudi vs model: {what}"


def incremental_options(start: str, end: str) -> dict[str, str]:
    return {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.read.begin.instanttime": start,
        "hoodie.datasource.read.end.instanttime": end,
    }


READ_OPTIMIZED = {"hoodie.datasource.query.type": "read_optimized"}


@pytest.mark.parametrize(("table_type", "partitioned"), CASES)
def test_apache_hudi_reads_our_history(
    apache_hudi: ApacheHudi, table_type: str, partitioned: bool, tmp_path: Path
) -> None:
    rng = random.Random(f"apache-hudi-reads-{table_type}-{partitioned}")
    history = History(rng, partitioned)
    path = tmp_path / "table"
    name = f"ours_{table_type[:3].lower()}_{'part' if partitioned else 'flat'}"
    table = HudiTable.create(
        str(path), SCHEMA, name, ["id"], ["city"] if partitioned else None, ["ts"], table_type,
        {"hoodie.metadata.enable": "true"},
    )  # fmt: skip
    model = TableModel("id", (lambda r: r["city"]) if partitioned else (lambda r: ""), "ts")

    def committed(result: WriteResult, what: str) -> None:
        for service in result.table_services:  # inline services keep the content, add instants
            if service.instant_time is not None:
                model.service(service.instant_time, service.completion_time)
        assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), f"snapshot after {what}")

    rows = history.fresh(16, 100)
    result = table.bulk_insert(pa.Table.from_pylist(rows, schema=SCHEMA))
    model.insert_new(rows, result.instant_time, result.completion_time)
    committed(result, "bulk_insert")

    kinds = ["upsert", "upsert", "delete", "insert_overwrite"]
    kinds.append("delete_partitions" if partitioned else "insert")
    rng.shuffle(kinds)
    for ts, kind in zip(range(110, 200, 10), kinds, strict=False):
        stored = sorted({key for _, key in model.current})
        if kind == "upsert":
            chosen = rng.sample(stored, min(len(stored), 5))
            # Late records: an ordering value below the stored one must not win.
            rows = [history.row(k, ts if rng.random() < 0.6 else 5) for k in chosen] + history.fresh(2, ts)
            rows.append(history.row(chosen[0], ts + 1))  # a duplicate in the batch: the larger ts wins
            result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA))
            model.upsert(rows, result.instant_time, result.completion_time)
        elif kind == "delete":
            rows = [history.row(k, ts if rng.random() < 0.6 else 5) for k in rng.sample(stored, 3)]
            result = table.delete(pa.Table.from_pylist(rows, schema=SCHEMA))
            model.delete(rows, result.instant_time, result.completion_time)
        elif kind == "insert":
            rows = history.fresh(4, ts)
            result = table.insert(pa.Table.from_pylist(rows, schema=SCHEMA))
            model.insert_new(rows, result.instant_time, result.completion_time)
        elif kind == "insert_overwrite":
            rows = history.fresh(5, ts)
            result = table.insert_overwrite(pa.Table.from_pylist(rows, schema=SCHEMA))
            model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=False)
        else:
            partition = rng.choice(sorted({where for where, _ in model.current}))
            result = table.delete_partitions([partition])
            model.delete_partitions([partition], result.instant_time, result.completion_time)
        committed(result, kind)

    writes = [commit for commit in model.commits if not commit.is_service]
    for commit in rng.sample(writes, SAMPLED_INSTANTS):
        assert_rows(
            apache_hudi.read(path, {"as.of.instant": commit.instant}),
            model.as_of(commit.instant, COLUMNS),
            f"time travel to {commit.instant}",
        )
    for _ in range(SAMPLED_WINDOWS):
        first, last = sorted(rng.sample(range(len(writes)), 2))
        start, end = writes[first].completion, writes[last].completion
        assert start is not None and end is not None
        assert_rows(
            apache_hudi.read(path, incremental_options(start, end)),
            model.incremental(start, end, COLUMNS),
            f"incremental ({start}, {end}]",
        )

    if table_type == "MERGE_ON_READ":
        # Base files only: the same rows we read that way, and after our compaction the model's.
        ours = table.read(options=READ_OPTIMIZED)
        assert canonical(table_rows(apache_hudi.read(path, READ_OPTIMIZED), COLUMNS)) == canonical(
            table_rows(ours, COLUMNS)
        ), "read-optimized: Apache Hudi vs ours"
        compacted = table.compact()
        if compacted is not None and compacted.instant_time is not None:
            model.service(compacted.instant_time, compacted.completion_time)
        assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), "snapshot after our compaction")
    assert_rows(apache_hudi.read(path, READ_OPTIMIZED), model.snapshot(COLUMNS), "read-optimized")

    assert apache_hudi.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'") is None
    mismatches = apache_hudi.sql(f"CALL validate_metadata_table_files(table => '{name}')")
    assert mismatches is not None
    assert mismatches.to_pylist() == [], "files listed by our metadata table differ from the file system"


def test_apache_hudi_reads_and_continues_a_bucket_index_table_after_our_insert_overwrite(
    apache_hudi: ApacheHudi, tmp_path: Path
) -> None:
    history = History(random.Random("bucket-overwrite"), partitioned=False)
    path = tmp_path / "table"
    options = {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}
    table = HudiTable.create(str(path), SCHEMA, "ours_bucket", ["id"], None, ["ts"], "COPY_ON_WRITE")
    model = TableModel("id", lambda r: "", "ts")
    rows = history.fresh(6, 100)
    result = table.bulk_insert(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.insert_new(rows, result.instant_time, result.completion_time)
    rows = history.fresh(3, 110)
    result = table.insert_overwrite(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=False)
    rows = history.fresh(3, 120)
    result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.upsert(rows, result.instant_time, result.completion_time)
    assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), "snapshot after an upsert of new keys")

    rows = history.fresh(2, 130)
    apache_options = {
        **options,
        "hoodie.table.name": "ours_bucket",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.write.table.version": "8",
    }
    apache_hudi.write(path, pa.Table.from_pylist(rows, schema=SCHEMA), apache_options)
    model.upsert(rows, "apache", None)
    assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), "snapshot after Apache Hudi's upsert")


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_apache_hudi_continues_a_bucket_index_table_after_our_replacing_writes(
    apache_hudi: ApacheHudi, table_type: str, tmp_path: Path
) -> None:
    """After each of our insert_overwrite, delete_partition and insert_overwrite_table Apache Hudi
    reads the table and upserts into it (new keys in the replaced buckets, updates elsewhere); our
    next write goes on from Apache Hudi's file groups, and our reader and hudi-rs equal the model."""
    history = History(random.Random(f"bucket-replacing-{table_type}"), partitioned=True)
    path = tmp_path / "table"
    options = {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}
    table = HudiTable.create(str(path), SCHEMA, "ours_buckets", ["id"], ["city"], ["ts"], table_type)
    model = TableModel("id", lambda r: r["city"], "ts")
    apache_options = {
        **options,
        "hoodie.table.name": "ours_buckets",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.write.table.version": "8",
    }

    def apache_upsert(rows: list[dict[str, Any]], what: str) -> None:
        assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), f"snapshot after our {what}")
        apache_hudi.write(path, pa.Table.from_pylist(rows, schema=SCHEMA), apache_options)
        model.upsert(rows, "apache", None)
        assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), f"snapshot after Apache Hudi's upsert ({what})")

    rows = history.fresh(12, 100)
    result = table.bulk_insert(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.insert_new(rows, result.instant_time, result.completion_time)

    rows = history.fresh_in("sf", 1, 110)  # one bucket of sf is replaced without a new file group
    result = table.insert_overwrite(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=False)
    stored = sorted(key for _, key in model.current)
    apache_upsert(history.fresh_in("sf", 4, 120) + [history.row(k, 120) for k in stored[:2]], "insert_overwrite")

    result = table.delete_partitions(["nyc"], options)
    model.delete_partitions(["nyc"], result.instant_time, result.completion_time)
    apache_upsert(history.fresh_in("nyc", 3, 130), "delete_partition")

    rows = history.fresh_in("chennai", 2, 140)
    result = table.insert_overwrite_table(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=True)
    apache_upsert(history.fresh_in("sf", 3, 150) + history.fresh_in("chennai", 2, 150), "insert_overwrite_table")

    stored = sorted(key for _, key in model.current)
    rows = [history.row(k, 160) for k in stored] + history.fresh_in("nyc", 2, 160)
    result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA), options)
    model.upsert(rows, result.instant_time, result.completion_time)
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(table.read(), COLUMNS)) == expected, "ours vs model"
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, "hudi-rs vs model"
    assert_rows(apache_hudi.read(path), model.snapshot(COLUMNS), "snapshot after our upsert of every key")


@pytest.mark.xfail(
    strict=True,
    reason=(
        "Merge-on-Read incremental read, event-time ordering: Apache Hudi 1.2 returns a log record of the "
        "window that lost the merge with the older base file (a late record, with the window's commit time); "
        "we return only records whose merged value the window changed (as the model does)"
    ),
)
def test_mor_incremental_read_of_a_late_record_equals_apache_hudis(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    history = History(random.Random("late-incremental"), partitioned=False)
    path = tmp_path / "table"
    table = HudiTable.create(str(path), SCHEMA, "ours_late", ["id"], None, ["ts"], "MERGE_ON_READ")
    stored = history.fresh(4, 100)
    first = table.bulk_insert(pa.Table.from_pylist(stored, schema=SCHEMA))
    newer, late = history.row(stored[0]["id"], 110), history.row(stored[1]["id"], 5)
    second = table.upsert(pa.Table.from_pylist([newer, late], schema=SCHEMA))
    assert first.completion_time is not None and second.completion_time is not None

    options = incremental_options(first.completion_time, second.completion_time)
    theirs = canonical(table_rows(apache_hudi.read(path, options), COLUMNS))
    ours = canonical(table_rows(table.read(options=options), COLUMNS))
    assert ours == theirs, "incremental read of the upsert: ours vs Apache Hudi"
