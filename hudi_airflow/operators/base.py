"""What every Hudi operator has: a table, its Hudi options, its storage connection, its engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from airflow.sdk import BaseOperator

from hudi_airflow import arguments
from hudi_airflow.assets import hudi_asset
from hudi_airflow.hook import HudiHook


class HudiBaseOperator(BaseOperator):
    """A task on the Hudi table at `table_path`.

    `hudi_options`: Hudi datasource options (`hoodie.*`); `aws_conn_id`: an `aws` connection for
    S3 tables (default: the AWS environment variables); `engine`: "arrow" (in the task's process) or
    "spark" (a session on the master of `spark_conn_id`, a connection of
    apache-airflow-providers-apache-spark's `spark` type, with `spark_conf`).
    """

    ui_color = "#e7f0fd"

    def __init__(
        self,
        *,
        table_path: str,
        hudi_options: Mapping[str, str] | None = None,
        aws_conn_id: str | None = None,
        engine: str = "arrow",
        spark_conn_id: str = "spark_default",
        spark_conf: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        arguments.check_path(self.task_id, "table_path", table_path)
        arguments.check_options(self.task_id, hudi_options)
        arguments.check_choice(self.task_id, "engine", engine, arguments.ENGINES)
        self.table_path = table_path
        self.hudi_options = dict(hudi_options or {})
        self.aws_conn_id = aws_conn_id
        self.engine = engine
        self.spark_conn_id = spark_conn_id
        self.spark_conf = dict(spark_conf or {})

    def hook(self, table_path: str | None = None) -> HudiHook:
        """The hook of this task's table (or of `table_path`, e.g. a source table)."""
        return HudiHook(table_path or self.table_path, self.hudi_options, self.aws_conn_id)


def default_outlets(table_path: str, kwargs: Mapping[str, Any]) -> list[Any]:
    """The outlets of a task writing `table_path`: the caller's, else the table's asset (none when
    the path is a template: its asset is known only when the task runs)."""
    given: Sequence[Any] | None = kwargs.get("outlets")
    if given is not None:
        return list(given)
    if arguments.is_templated(table_path):
        return []
    return [hudi_asset(table_path)]


def record_asset_event(context: Any, table_path: str, extra: Mapping[str, Any]) -> None:
    """Attaches what a write did (instant, completion time, counts) to its table's asset event."""
    asset = hudi_asset(table_path)
    events = context.get("outlet_events")
    if events is None:
        return
    for outlet in context["task"].outlets:
        if getattr(outlet, "uri", None) == asset.uri:
            events[outlet].extra = dict(extra)
