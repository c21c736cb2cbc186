"""Identity of the Spark task running file-group writes."""

from __future__ import annotations

from pyspark import TaskContext


def task_identity() -> tuple[int, str]:
    """(task number, write token): Hudi's write token is `partitionId-stageId-attemptNumber`."""
    task = TaskContext.get()
    if task is None:
        return 0, "0-0-0"
    return task.partitionId(), f"{task.partitionId()}-{task.stageId()}-{task.attemptNumber()}"
