"""Table services as tasks: `HudiTableServiceOperator` (compaction, log compaction, clustering,
clean, archive, savepoint) and `HudiRestoreOperator`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hudi_airflow import arguments
from hudi_airflow.operators.base import HudiBaseOperator, default_outlets, record_asset_event
from hudi_core import HudiTable
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.orchestration.services import SERVICES, run_service
from hudi_core.parallel import run_locally

USER = "airflow"  # who savepoints record


def service_summary(table_path: str, service: str, result: ServiceResult | None) -> dict[str, Any]:
    """What a service run did (`ran` is False when it found nothing to do), as the task's XCom."""
    summary: dict[str, Any] = {"table_path": table_path, "service": service, "ran": result is not None}
    if result is not None:
        summary.update(
            instant_time=result.instant_time, completion_time=result.completion_time, counts=dict(result.counts)
        )
    return summary


class HudiTableServiceOperator(HudiBaseOperator):
    """Runs one table service on the table, when it has work: `compaction` and `log_compaction`
    (Merge-on-Read), `clustering`, `clean`, `archive`, or `savepoint` (of the newest commit).

    Each plans and commits in the task, taking the table's lock under optimistic concurrency; with
    engine "spark" the file-group rewrites run as Spark tasks. Services change no rows: the task
    has no outlet unless given one.
    """

    template_fields: Sequence[str] = ("table_path", "hudi_options")
    template_fields_renderers = {"hudi_options": "json"}

    def __init__(self, *, table_path: str, service: str, **kwargs: Any) -> None:
        super().__init__(table_path=table_path, **kwargs)
        arguments.check_choice(self.task_id, "service", service, SERVICES)
        self.service = service

    def execute(self, context: Any) -> dict[str, Any]:
        with self._table() as table:
            result = run_service(table, self.service, self.hudi_options, user=USER)
        summary = service_summary(self.table_path, self.service, result)
        self.log.info("%s on %s: %s", self.service, self.table_path, summary)
        return summary

    @contextmanager
    def _table(self) -> Iterator[HudiTable]:
        storage_options = self.hook().storage_options()
        if self.engine != "spark":
            yield HudiTable(self.table_path, self.hudi_options, task_runner=run_locally)
            return
        from hudi_airflow.spark import spark_session  # noqa: PLC0415 - PySpark is the `spark` extra
        from hudi_core.spark.services import spark_runner  # noqa: PLC0415

        with spark_session(self.spark_conn_id, self.spark_conf, storage_options) as session:
            runner = spark_runner(session, f"hudi {self.service} of {self.table_path}")
            yield HudiTable(self.table_path, self.hudi_options, task_runner=runner)


class HudiRestoreOperator(HudiBaseOperator):
    """Restores the table to a savepoint: `instant` (templated), default the newest savepoint.
    Rows change, so the table's asset is the task's outlet."""

    template_fields: Sequence[str] = ("table_path", "instant", "hudi_options")

    def __init__(self, *, table_path: str, instant: str | None = None, **kwargs: Any) -> None:
        kwargs["outlets"] = default_outlets(table_path, kwargs)
        super().__init__(table_path=table_path, **kwargs)
        arguments.check_choice(self.task_id, "engine", self.engine, ("arrow",))  # a restore rewrites no files
        self.instant = instant

    def execute(self, context: Any) -> dict[str, Any]:
        table = self.hook().table()
        savepoints = table.savepoints()
        instant = self.instant or (max(savepoints) if savepoints else None)
        if instant is None:
            raise ValueError(f"{self.table_path} has no savepoint to restore to")
        if instant not in savepoints:
            raise ValueError(f"{instant} is not a savepoint of {self.table_path}; savepoints: {savepoints}")
        result = table.restore(instant, self.hudi_options)
        summary = {**service_summary(self.table_path, "restore", result), "restored_to": instant}
        record_asset_event(context, self.table_path, summary)
        return summary
