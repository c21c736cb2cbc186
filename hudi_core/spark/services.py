"""Table services on Spark: planned and committed on the driver, file groups rewritten on executors.

The services are the Arrow engine's (`hudi_core.services`): the same plans, the same commits. Only
where their file-group tasks run differs: `spark_runner` turns each task (a compaction or log
compaction of one slice, a clustering group, a clean's deletions in one partition) into one Spark
task. Tasks carry everything they need (the table's URI, schema, options), so executors share no
state with the driver; results come back as write stats, never as rows.

A task Spark retries writes its base file again under the same name; a log file a failed attempt
left is not in the commit's stats, and completing the instant deletes it (its marker names it).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

import pyarrow as pa
from pyspark.sql import SparkSession

from hudi_core.engine.spark.jobs import collect_ending_tasks_on_failure, missing_package
from hudi_core.hudi_table import HudiTable
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.parallel import TaskRunner

T = TypeVar("T")
R = TypeVar("R")

_TASKS_SCHEMA = "task int, payload binary"
_RESULTS_SCHEMA = "task int, result binary"


def spark_runner(spark: SparkSession, description: str = "hudi table service") -> TaskRunner:
    """A `TaskRunner` executing each task as one Spark task (results in task order)."""

    def run(func: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        if not tasks:
            return []
        payloads = [(number, pickle.dumps(task)) for number, task in enumerate(tasks)]
        frame = spark.createDataFrame(payloads, _TASKS_SCHEMA).repartitionByRange(len(payloads), "task")

        def execute(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                numbers = batch.column("task").to_pylist()
                results = [pickle.dumps(func(pickle.loads(payload))) for payload in batch.column("payload").to_pylist()]
                yield pa.RecordBatch.from_pydict(
                    {"task": pa.array(numbers, pa.int32()), "result": pa.array(results, pa.binary())}
                )

        try:
            rows = collect_ending_tasks_on_failure(frame.mapInArrow(execute, _RESULTS_SCHEMA), description)
        except Exception as e:
            not_installed = missing_package(e)
            if not_installed is not None:
                raise not_installed from e
            raise
        by_task = {int(row["task"]): row["result"] for row in rows}
        missing = [number for number in range(len(tasks)) if number not in by_task]
        if missing:
            raise RuntimeError(f"{description}: Spark returned no result for tasks {missing}")
        return [pickle.loads(by_task[number]) for number in range(len(tasks))]

    return run


def _table(spark: SparkSession, path: str, action: str) -> HudiTable:
    return HudiTable(path, task_runner=spark_runner(spark, f"hudi {action} of {path}"))


def compact(
    spark: SparkSession, path: str, options: Mapping[str, str] | None = None, instant: str | None = None
) -> ServiceResult | None:
    """`HudiTable.compact` with each file slice compacted by a Spark task."""
    return _table(spark, path, "compaction").compact(instant, options)


def log_compact(
    spark: SparkSession, path: str, options: Mapping[str, str] | None = None, instant: str | None = None
) -> ServiceResult | None:
    """`HudiTable.log_compact` with each file slice's logs compacted by a Spark task."""
    return _table(spark, path, "log compaction").log_compact(instant, options)


def cluster(
    spark: SparkSession, path: str, options: Mapping[str, str] | None = None, instant: str | None = None
) -> ServiceResult | None:
    """`HudiTable.cluster` with each clustering group rewritten by a Spark task."""
    return _table(spark, path, "clustering").cluster(instant, options)


def clean(spark: SparkSession, path: str, options: Mapping[str, str] | None = None) -> ServiceResult | None:
    """`HudiTable.clean` with each partition's files deleted by a Spark task."""
    return _table(spark, path, "clean").clean(options)
