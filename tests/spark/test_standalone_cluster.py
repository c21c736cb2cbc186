"""The Spark engine on a standalone cluster (two single-core workers on 127.0.0.1): file-group work
runs on both executors, and a worker killed with SIGKILL in the middle of an upsert costs at most
that attempt — the table reads as its last commit, and the next run commits every row once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from tests.model import canonical, table_rows
from tests.spark.standalone_cluster import StandaloneCluster, Worker, executors_of, start_worker

COLUMNS = ["id", "ts", "city", "fare"]


def _options(operation: str, table_type: str = "COPY_ON_WRITE") -> dict[str, str]:
    return {
        "hoodie.table.name": "cluster",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
    }


def _rows(first: int, count: int, ts: int) -> pa.Table:
    ids = range(first, first + count)
    return pa.table(
        {
            "id": [f"k{i:06d}" for i in ids],
            "ts": [ts] * count,
            "city": [("sf", "nyc", "la", "sea")[i % 4] for i in ids],
            "fare": [float(i % 97) + ts / 1000 for i in ids],
        }
    )


def _frame(spark: Any, rows: pa.Table, partitions: int = 8) -> Any:
    return spark.createDataFrame(rows.to_pandas()).repartition(partitions)


def _on_cluster(cluster: object | None) -> StandaloneCluster:
    if not isinstance(cluster, StandaloneCluster):
        pytest.skip("the Spark session runs on local[2] (HUDI_TEST_SPARK_MASTER)")
    return cluster


def _snapshot(path: str) -> list[tuple[Any, ...]]:
    return canonical(table_rows(HudiTable(path).read(), COLUMNS))


def _expected(*batches: pa.Table) -> list[tuple[Any, ...]]:
    latest: dict[str, dict[str, Any]] = {}
    for batch in batches:
        for row in batch.to_pylist():
            latest[row["id"]] = row
    return canonical(table_rows(pa.Table.from_pylist(list(latest.values())), COLUMNS))


def _kill_a_worker_during(
    spark: Any, cluster: StandaloneCluster, what: str, action: Callable[[], object]
) -> tuple[bool, Worker]:
    """Runs `action` in a thread and SIGKILLs a worker once its tasks run; returns whether `action`
    failed, and the spare worker started first (it takes over, so later tests keep two)."""
    spare = start_worker(cluster, Path(cluster.workers[0].log).parent)
    cluster.wait_for_workers(len(cluster.workers))
    victim = cluster.workers[0]
    outcome: dict[str, BaseException | None] = {}

    def run() -> None:
        try:
            action()
            outcome["error"] = None
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while not any(e["activeTasks"] > 0 for e in executors_of(spark)) and thread.is_alive():
        assert time.monotonic() < deadline, f"no task of the {what} started"
        time.sleep(0.05)
    victim.kill()
    cluster.workers.remove(victim)
    thread.join(timeout=300)
    assert not thread.is_alive(), f"the {what} hung after a worker died"
    return outcome["error"] is not None, spare


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_writes_and_reads_run_on_both_workers(
    spark: Any, spark_cluster: object | None, tmp_path: Path, table_type: str
) -> None:
    cluster = _on_cluster(spark_cluster)
    path = str(tmp_path / "t")
    before = {e["id"]: e["totalTasks"] for e in executors_of(spark)}
    first, update = _rows(0, 4000, 1), _rows(3000, 2000, 2)
    hudi_spark.write(_frame(spark, first), path, _options("bulk_insert", table_type))
    hudi_spark.write(_frame(spark, update), path, _options("upsert", table_type))
    read = hudi_spark.read(spark, path).toArrow()
    assert canonical(table_rows(read, COLUMNS)) == _snapshot(path) == _expected(first, update)
    ran = {e["id"]: e["totalTasks"] - before.get(e["id"], 0) for e in executors_of(spark) if e["isActive"]}
    assert len(ran) == len(cluster.workers) and all(count > 0 for count in ran.values()), ran


def test_a_worker_killed_during_an_upsert_loses_nothing(
    spark: Any, spark_cluster: object | None, tmp_path: Path
) -> None:
    cluster = _on_cluster(spark_cluster)
    path = str(tmp_path / "t")
    first = _rows(0, 20000, 1)
    hudi_spark.write(_frame(spark, first), path, _options("bulk_insert"))
    committed = _snapshot(path)
    update = pa.concat_tables([_rows(0, 20000, 2), _rows(20000, 5000, 2)])

    def upsert() -> object:
        return hudi_spark.write(_frame(spark, update, partitions=16), path, _options("upsert"))

    failed, spare = _kill_a_worker_during(spark, cluster, "upsert", upsert)
    if failed:
        # The attempt failed: nothing of it is visible, and running it again commits it.
        assert _snapshot(path) == committed
        hudi_spark.write(_frame(spark, update), path, _options("upsert"))
    assert _snapshot(path) == _expected(first, update)
    assert spare in cluster.workers


def test_a_worker_killed_during_a_compaction_loses_nothing(
    spark: Any, spark_cluster: object | None, tmp_path: Path
) -> None:
    cluster = _on_cluster(spark_cluster)
    path = str(tmp_path / "t")
    no_inline = {"hoodie.compact.inline": "false"}
    hudi_spark.write(_frame(spark, _rows(0, 20000, 1)), path, {**_options("bulk_insert", "MERGE_ON_READ"), **no_inline})
    hudi_spark.write(_frame(spark, _rows(0, 20000, 2)), path, {**_options("upsert", "MERGE_ON_READ"), **no_inline})
    expected = _snapshot(path)
    assert any(s.log_files for s in HudiTable(path).file_slices())
    failed, _ = _kill_a_worker_during(spark, cluster, "compaction", lambda: hudi_spark.compact(spark, path))
    assert _snapshot(path) == expected  # whatever happened, readers see the same rows
    if failed or any(s.log_files for s in HudiTable(path).file_slices()):
        hudi_spark.compact(spark, path)  # runs the pending plan again
    assert not any(s.log_files for s in HudiTable(path).file_slices())
    assert _snapshot(path) == expected
    assert not HudiTable(path).orphan_files()
