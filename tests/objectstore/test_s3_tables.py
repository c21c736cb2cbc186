"""Tables on S3 (an S3-compatible server on loopback): writes, reads and services round trip, hudi-rs
reads what we wrote, completed instants are published create-if-absent, two writers never both
complete conflicting instants, and a writer killed mid-commit is rolled back by the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_core import HudiStorageError, HudiTable, TableNotFoundError
from hudi_core.concurrency.retry import retry_on_conflict
from hudi_core.concurrency.storage_lock import LOCK_FILE, TableLock
from hudi_core.lifecycle.crash import ENV_VAR
from hudi_core.storage import Storage
from tests import hudi_rs
from tests.invariants import assert_healthy
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
FAST = {
    "hoodie.client.heartbeat.interval_in_ms": "1000",
    "hoodie.client.heartbeat.tolerable.misses": "2",
    "hoodie.parquet.small.file.limit": "0",
}
OCC = {
    **FAST,
    "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
    "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
    "hoodie.write.lock.wait_time_ms_between_retry": "50",
}


def _rows(ids: list[int], ts: int, fare: float) -> list[dict[str, Any]]:
    return [{"id": f"k{i}", "ts": ts, "city": ("sf", "nyc")[i % 2], "fare": fare + i} for i in ids]


def _arrow(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _model() -> TableModel:
    return TableModel("id", lambda row: row["city"], "ts")


def _assert_content(uri: str, model: TableModel) -> None:
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(HudiTable(uri).read(), COLUMNS)) == expected, "hudi_core"
    assert canonical(table_rows(hudi_rs.snapshot(uri), COLUMNS)) == expected, "hudi-rs"


def _objects(bucket: str, prefix: str) -> list[str]:
    pages = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_writes_reads_and_services_round_trip_on_s3(bucket: str, table_type: str) -> None:
    uri = f"s3://{bucket}/trips"
    model = _model()
    table = HudiTable.create(uri, SCHEMA, "trips", ["id"], ["city"], ["ts"], table_type, FAST)
    first = table.insert(_arrow(_rows(list(range(10)), 1, 0.0)), FAST)
    model.upsert(_rows(list(range(10)), 1, 0.0), first.instant_time, first.completion_time)
    for step in range(2, 5):
        rows = _rows([1, 2, 3, 10 + step], step, 100.0 * step)
        result = table.upsert(_arrow(rows), FAST)
        model.upsert(rows, result.instant_time, result.completion_time)
    deleted = _rows([4], 9, 0.0)
    result = table.delete(_arrow(deleted), FAST)
    model.delete(deleted, result.instant_time, result.completion_time)
    _assert_content(uri, model)

    since = model.commits[-2].completion
    assert {r["id"] for r in HudiTable(uri).read_incremental(since).to_pylist()} == set(), "a delete adds no rows"
    if table_type == "MERGE_ON_READ":
        assert table.compact(None, FAST) is not None
    assert table.cluster(None, {**FAST, "hoodie.clustering.plan.strategy.sort.columns": "fare"}) is not None
    versions = {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"}
    assert table.clean({**FAST, **versions}) is not None
    _assert_content(uri, model)
    assert_healthy(uri)
    # Completed instants are objects published once; nothing was renamed into place.
    keys = _objects(bucket, "trips/.hoodie/timeline/")
    assert any(k.endswith(".commit") or k.endswith(".deltacommit") for k in keys)
    assert not [k for k in keys if k.endswith(".tmp")]


def test_completed_instants_and_locks_are_create_if_absent(bucket: str) -> None:
    storage = Storage(f"s3://{bucket}/t")
    assert storage.create_exclusive(".hoodie/timeline/1_2.commit", b"first")
    assert not storage.create_exclusive(".hoodie/timeline/1_2.commit", b"second")
    assert storage.read_bytes(".hoodie/timeline/1_2.commit") == b"first"

    # An expired lock: of two writers taking it over at once, exactly one succeeds.
    storage.write_bytes(LOCK_FILE, b'{"owner": "dead", "expiration": 0}')
    winners: list[str] = []
    errors: list[Exception] = []
    barrier = threading.Barrier(2)

    def take(name: str) -> None:
        lock = TableLock(Storage(f"s3://{bucket}/t"), 60_000, name)
        barrier.wait()
        try:
            lock.acquire()
        except Exception as e:
            errors.append(e)
            return
        winners.append(name)

    threads = [threading.Thread(target=take, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) == 1 and len(errors) == 1, (winners, errors)
    assert "locked by" in str(errors[0])


def test_two_writers_never_both_commit_conflicting_instants(bucket: str) -> None:
    uri = f"s3://{bucket}/shared"
    table = HudiTable.create(uri, SCHEMA, "shared", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OCC)
    table.insert(_arrow(_rows(list(range(6)), 0, 0.0)), OCC)
    acknowledged: list[tuple[str, str, list[dict[str, Any]]]] = []
    conflicts: list[int] = []
    lock = threading.Lock()

    def writer(number: int) -> None:
        for step in range(4):
            rows = _rows([0, 1, 2, 3, 4, 5], 10 * step + number + 1, 1000.0 * number + step)
            attempts = [0]

            def write(rows: list[dict[str, Any]] = rows, attempts: list[int] = attempts) -> Any:
                attempts[0] += 1
                return HudiTable(uri, OCC).upsert(_arrow(rows))

            result = retry_on_conflict(write, retries=20, backoff_s=0.05)
            with lock:
                acknowledged.append((result.instant_time, result.completion_time, rows))
                conflicts.append(attempts[0] - 1)

    threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    model = _model()
    model.upsert(_rows(list(range(6)), 0, 0.0), "0", "0")
    for instant, completion, rows in sorted(acknowledged, key=lambda a: a[1]):
        model.upsert(rows, instant, completion)
    assert len(acknowledged) == 8
    assert sum(conflicts) > 0, "writers of the same file groups should have met at least once"
    _assert_content(uri, model)
    assert_healthy(uri)
    print(f"s3 writers: 8 committed, {sum(conflicts)} attempts aborted on conflict and retried")


CHILD = """
import sys
import pyarrow as pa
from hudi_core import HudiTable
rows = [{"id": "k1", "ts": 5, "city": "nyc", "fare": 555.0}, {"id": "k8", "ts": 5, "city": "sf", "fare": 8.0}]
HudiTable(sys.argv[1]).upsert(pa.Table.from_pylist(rows), {"hoodie.client.heartbeat.interval_in_ms": "1000",
    "hoodie.client.heartbeat.tolerable.misses": "2", "hoodie.parquet.small.file.limit": "0"})
"""


def test_writer_killed_mid_commit_is_rolled_back_by_the_next(bucket: str) -> None:
    uri = f"s3://{bucket}/crash"
    model = _model()
    table = HudiTable.create(uri, SCHEMA, "crash", ["id"], ["city"], ["ts"], "COPY_ON_WRITE", FAST)
    first = table.insert(_arrow(_rows(list(range(6)), 1, 0.0)), FAST)
    model.upsert(_rows(list(range(6)), 1, 0.0), first.instant_time, first.completion_time)

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ENV_VAR: "write.after_files"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, uri], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert Storage(uri).exists(LOCK_FILE), "the killed writer's table lock stays behind"
    _assert_content(uri, model)  # the half-written commit is invisible

    # Heartbeat and lock expire after 1 s beats x 2 misses: an object store judges by age alone, and a
    # whole-second modification time counts as the latest instant it can stand for (up to 1 s later).
    time.sleep(3.3)
    rows = _rows([2], 7, 77.0)
    result = HudiTable(uri).upsert(_arrow(rows), FAST)  # takes the expired lock over, rolls back
    model.upsert(rows, result.instant_time, result.completion_time)
    _assert_content(uri, model)
    assert_healthy(uri)


@pytest.mark.spark
def test_spark_engine_writes_reads_and_compacts_a_table_on_s3(bucket: str, spark: Any) -> None:
    """File-group tasks, table services and the read data source run in Python workers (on the
    standalone cluster's executors), through pyarrow's S3 client."""
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark only for this test

    uri = f"s3://{bucket}/spark"
    options = {
        "hoodie.table.name": "spark_s3",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    }
    model = _model()
    for step, operation in enumerate(("bulk_insert", "upsert"), start=1):
        rows = _rows(list(range(8)) if step == 1 else [1, 2, 9], step, 10.0 * step)
        frame = spark.createDataFrame(_arrow(rows).to_pandas())
        result = hudi_spark.write(frame, uri, {**options, "hoodie.datasource.write.operation": operation})
        model.upsert(rows, result.instant_time, result.completion_time)
    _assert_content(uri, model)
    read = spark.read.format("hudi").load(uri).select(*COLUMNS).toArrow()
    assert canonical(table_rows(read, COLUMNS)) == canonical(model.snapshot(COLUMNS))
    # Table services on Spark: each file-group task on an executor, through the same S3 client.
    compacted = hudi_spark.compact(spark, uri)
    assert compacted is not None and compacted["file_groups"] > 0
    _assert_content(uri, model)
    assert all(s.base_file is not None and not s.log_files for s in HudiTable(uri).file_slices())
    assert_healthy(uri)


def test_bad_s3_locations_raise_specific_errors_and_create_nothing(bucket: str) -> None:
    with pytest.raises(HudiStorageError, match="names no bucket"):
        HudiTable("s3://")
    with pytest.raises(TableNotFoundError, match="no Hudi table at s3://"):
        HudiTable(f"s3://{bucket}/absent").read()
    assert _objects(bucket, "") == [], "a failed open wrote to the bucket"
