"""A failed Spark write job ends its tasks before the failure reaches the rollback: the job runs in
a job group of its own, which is cancelled and waited for."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core.engine.spark.jobs import collect_ending_tasks_on_failure, running_tasks


def _job(spark: Any, done: Path) -> Any:
    """Partition 0 fails at once; partition 1 works for a second (less than the time Spark gives a
    killed Python task before it ends its worker), then leaves a file, as a late file-group write
    would."""
    path = str(done)

    def work(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyspark  # noqa: PLC0415 - runs in the Python worker

        partition = pyspark.TaskContext.get().partitionId()
        list(batches)
        if partition == 0:
            raise RuntimeError("task 0 failed")
        time.sleep(1.0)
        with open(f"{path}/task-{partition}", "w") as f:
            f.write("late")
        yield pa.RecordBatch.from_pylist([{"id": partition}])

    return spark.range(0, 2, 1, 2).mapInArrow(work, "id long")


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_failed_job_has_no_running_task_when_the_error_surfaces(spark: Any, tmp_path: Path) -> None:
    done = tmp_path / "done"
    done.mkdir()
    with pytest.raises(Exception, match="task 0 failed"):
        collect_ending_tasks_on_failure(_job(spark, done), "test job")
    after_failure = _files(done)
    time.sleep(3)  # longer than the slow task takes
    assert _files(done) == after_failure, "a task of the failed job went on writing after the failure"
    context = spark.sparkContext
    assert context.getLocalProperty("spark.jobGroup.id") is None  # the caller's job group is restored


def test_the_callers_job_group_is_kept(spark: Any) -> None:
    context = spark.sparkContext
    context.setJobGroup("callers-group", "the caller's", interruptOnCancel=False)
    try:
        rows = collect_ending_tasks_on_failure(spark.range(3), "test job")
        assert [r.id for r in rows] == [0, 1, 2]
        assert context.getLocalProperty("spark.jobGroup.id") == "callers-group"
        assert running_tasks(context, "callers-group") == 0
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
        context.setLocalProperty("spark.job.description", None)
        context.setLocalProperty("spark.job.interruptOnCancel", None)
