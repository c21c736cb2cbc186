"""Tasks receive the rows the driver placed in them (`hudi_core.engine.spark.placement`), and a
write planned within partitions balances its partitions over its tasks by their work, where Spark's
hash would leave some tasks with twice the work of others."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark import TaskContext
from pyspark.sql import functions as sf

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from hudi_core.engine.spark.placement import MAX_PLACED_VALUES, placed, spark_int_hash, task_keys

CITIES = [f"city_{i}" for i in range(8)]


@pytest.fixture
def spark(local_spark: Any) -> Any:
    return local_spark


def _tasks_of(frame: Any) -> dict[str, set[int]]:
    """The tasks each value of column `p` reached."""

    def where(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        task = TaskContext.get().partitionId()  # type: ignore[union-attr]
        for batch in batches:
            yield pa.RecordBatch.from_arrays(
                [batch.column(0), pa.array([task] * batch.num_rows, pa.int32())], names=["p", "task"]
            )

    reached: dict[str, set[int]] = {}
    for row in frame.select("p").mapInArrow(where, "p string, task int").distinct().collect():
        reached.setdefault(row.p, set()).add(row.task)
    return reached


def test_the_hash_is_sparks_own(spark: Any) -> None:
    values = [*range(-300, 700), 2**31 - 1, -(2**31)]
    frame = spark.createDataFrame([(v,) for v in values], "v int").select("v", sf.hash("v").alias("h"))
    assert {row.v: row.h for row in frame.collect()} == {v: spark_int_hash(v) for v in values}
    for tasks in (1, 2, 3, 7, 64):
        assert [spark_int_hash(key) % tasks for key in task_keys(tasks)] == list(range(tasks))


def test_rows_reach_the_task_they_were_placed_in(spark: Any) -> None:
    frame = spark.createDataFrame([(f"p{i}", j) for i in range(12) for j in range(5)], "p string, j int")
    assignment = {f"p{i}": i % 3 for i in range(10)}  # p10 and p11 are not placed
    reached = _tasks_of(placed(frame, "p", assignment, 3))
    assert all(len(tasks) == 1 for tasks in reached.values()), reached
    assert {p: tasks.pop() for p, tasks in reached.items() if p in assignment} == assignment
    assert set(reached) == {f"p{i}" for i in range(12)}


def test_past_the_placement_limit_values_still_keep_together(spark: Any) -> None:
    values = MAX_PLACED_VALUES + 1
    frame = spark.createDataFrame([(f"p{i}",) for i in range(values) for _ in range(2)], "p string")
    reached = _tasks_of(placed(frame, "p", {f"p{i}": 0 for i in range(values)}, 4))
    assert len(reached) == values
    assert all(len(tasks) == 1 for tasks in reached.values())
    assert len(set().union(*reached.values())) > 1  # hash chance, not the assignment


def _table_of_cities(path: str) -> list[dict[str, Any]]:
    rows = [{"id": f"{city}-{i}", "city": city, "ts": 1, "value": i} for city in CITIES for i in range(40)]
    table = HudiTable.create(path, pa.Table.from_pylist(rows).schema, "t", ["id"], ["city"], ["ts"])
    table.bulk_insert(pa.Table.from_pylist(rows))
    return rows


def _upsert_options(**extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
        **extra,
    }


def _writing_tasks(path: str, instant: str) -> Counter[str]:
    """How many base files of `instant` each task wrote (the task is the write token's first number)."""
    written = [s for s in HudiTable(path).file_slices() if s.base_instant == instant and s.base_file]
    return Counter(s.base_file.split("_")[1].split("-")[0] for s in written if s.base_file)


def _updated(spark: Any, path: str, rows: list[dict[str, Any]], options: dict[str, str]) -> str:
    changed = [{**row, "ts": 2, "value": -1} for row in rows if row["value"] % 4 == 0]
    result = hudi_spark.write(spark.createDataFrame(pa.Table.from_pylist(changed).to_pandas()), path, options)
    assert HudiTable(path).read().num_rows == len(rows)
    assert sorted(HudiTable(path).read(filters=[("value", "=", -1)]).column("id").to_pylist()) == sorted(
        row["id"] for row in changed
    )
    return result.instant_time


def test_an_upsert_gives_each_task_equal_partitions_where_the_hash_would_not(spark: Any, tmp_path: Path) -> None:
    hashed = Counter(
        row.task
        for row in spark.createDataFrame([(c,) for c in CITIES], "p string")
        .select(sf.pmod(sf.hash("p"), sf.lit(4)).alias("task"))
        .collect()
    )
    assert max(hashed.values()) > 2  # Spark's hash alone would give some task 3 or more cities
    path = str(tmp_path / "t")
    instant = _updated(spark, path, _table_of_cities(path), _upsert_options())
    writing = _writing_tasks(path, instant)
    assert sorted(writing.values()) == [2, 2, 2, 2], writing  # 8 cities planned in 4 tasks


def test_a_global_index_upsert_writes_each_file_group_in_its_own_task(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    instant = _updated(spark, path, _table_of_cities(path), _upsert_options(**{"hoodie.index.type": "GLOBAL_SIMPLE"}))
    writing = _writing_tasks(path, instant)
    assert sum(writing.values()) == len(CITIES)
    assert set(writing.values()) == {1}, writing  # by hash, 8 groups in 8 tasks nearly always collide
