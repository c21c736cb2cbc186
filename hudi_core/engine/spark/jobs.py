"""Running the Spark job of a write so that a failure ends every one of its tasks first.

When a task fails for good, Spark fails the job and `collect()` raises at once, while the job's
other tasks may still be writing files: Spark only asks them to stop. The write then rolls its
instant back, and must not do so under tasks still writing. So the job runs in a job group of its
own; on failure the group is cancelled (interrupting the tasks) and the driver waits until none of
its tasks runs before the error propagates to the rollback. Tasks that outlive the wait (a lost
executor) are caught by the rollback fence (`hudi_core.lifecycle.markers`). Spark Connect clients have
no status tracker: there the job is interrupted by tag and the fence alone applies.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from pyspark.sql import DataFrame, Row

from hudi_core.errors import HudiNotInstalledError

logger = logging.getLogger(__name__)

TASKS_END_TIMEOUT_S = 120.0
_JOB_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
_POLL_S = 0.2


def collect_ending_tasks_on_failure(frame: DataFrame, description: str) -> list[Row]:
    """`frame.collect()`; if it fails, its job's tasks are stopped and waited for before it raises."""
    session = frame.sparkSession
    context = _spark_context(session)
    group = f"hudi-{uuid.uuid4().hex}"
    if context is None:
        session.addTag(group)
        try:
            return frame.collect()
        except BaseException:
            session.interruptTag(group)
            raise
        finally:
            session.removeTag(group)
    previous = {key: context.getLocalProperty(key) for key in _JOB_GROUP_PROPERTIES}
    context.setJobGroup(group, description, interruptOnCancel=True)
    try:
        return frame.collect()
    except BaseException:
        context.cancelJobGroup(group)
        _wait_for_tasks(context, group)
        raise
    finally:
        for key, value in previous.items():  # the caller's own job group, if it set one
            context.setLocalProperty(key, value)


def missing_package(error: BaseException) -> HudiNotInstalledError | None:
    """The error to raise instead of `error` when executors could not import hudi_core."""
    if "No module named 'hudi_core'" not in str(error):
        return None
    return HudiNotInstalledError(
        "Spark executors cannot import hudi_core: install hudi-dagster in the Python environment the "
        "executors run (spark.pyspark.python / PYSPARK_PYTHON on every worker) or ship it with "
        "spark.submit.pyFiles; nothing was committed"
    )


def _spark_context(session: Any) -> Any:
    try:
        return session.sparkContext  # a classic session; Spark Connect sessions have none
    except Exception:
        return None


def running_tasks(context: Any, group: str) -> int:
    """Tasks of the group's jobs that still run."""
    tracker = context.statusTracker()
    active = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job is not None else ():
            stage = tracker.getStageInfo(stage_id)
            active += stage.numActiveTasks if stage is not None else 0
    return active


def _wait_for_tasks(context: Any, group: str) -> None:
    deadline = time.monotonic() + TASKS_END_TIMEOUT_S
    while running_tasks(context, group):
        if time.monotonic() > deadline:
            logger.warning(
                "tasks of the failed write job %s still run after %.0f s; the rollback fence removes what they write",
                group,
                TASKS_END_TIMEOUT_S,
            )
            return
        time.sleep(_POLL_S)
