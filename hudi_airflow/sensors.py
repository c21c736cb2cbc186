"""`HudiCommitSensor`: waits for new data commits of a Hudi table."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from airflow.sdk import BaseSensorOperator, PokeReturnValue

from hudi_airflow import arguments
from hudi_airflow.hook import HudiHook
from hudi_airflow.triggers import HudiCommitTrigger, new_commits, window_document
from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists


class HudiCommitSensorError(RuntimeError):
    """The trigger could not read the table."""


class HudiCommitSensor(BaseSensorOperator):
    """Succeeds once `table_path` has data commits (not compactions, clusterings, cleans or other
    services) completed after the last processed one, and pushes their window to XCom
    (`{"table_path", "start", "end", "commits"}`; `end` is the newest completion time).

    The last processed point is, in order: the checkpoint a consumer stored in its own table
    (`consumer_table_path` with its `checkpoint_identifier`, as `HudiIncrementalOperator` and
    `HudiCdcOperator` store it); else `after` (templated, e.g. a previous window's end); else none
    (any commit). With `deferrable=True` the wait runs in Airflow's triggerer (`HudiCommitTrigger`).
    """

    template_fields: Sequence[str] = ("table_path", "after", "consumer_table_path", "checkpoint_identifier")

    def __init__(
        self,
        *,
        table_path: str,
        after: str | None = None,
        consumer_table_path: str | None = None,
        checkpoint_identifier: str | None = None,
        aws_conn_id: str | None = None,
        deferrable: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        arguments.check_path(self.task_id, "table_path", table_path)
        if (consumer_table_path is None) != (checkpoint_identifier is None):
            raise arguments.HudiOperatorArgumentError(
                f"task {self.task_id!r}: consumer_table_path and checkpoint_identifier go together"
            )
        if consumer_table_path is not None and after is not None:
            raise arguments.HudiOperatorArgumentError(
                f"task {self.task_id!r}: give after or a consumer's checkpoint (consumer_table_path), not both"
            )
        self.table_path = table_path
        self.after = after
        self.consumer_table_path = consumer_table_path
        self.checkpoint_identifier = checkpoint_identifier
        self.aws_conn_id = aws_conn_id
        self.deferrable = deferrable

    def _hook(self) -> HudiHook:
        return HudiHook(self.table_path, aws_conn_id=self.aws_conn_id)

    def last_processed(self) -> str | None:
        """The completion time after which commits are new."""
        if self.consumer_table_path is None:
            return self.after
        HudiHook(self.consumer_table_path, aws_conn_id=self.aws_conn_id).storage_options()
        if not table_exists(self.consumer_table_path):
            return None
        return HudiTable(self.consumer_table_path).latest_checkpoint(self.checkpoint_identifier)

    def poke(self, context: Any) -> PokeReturnValue:
        self._hook().storage_options()
        after = self.last_processed()
        window = new_commits(self.table_path, after)
        if window is None:
            self.log.info("no data commits in %s after %s", self.table_path, after)
            return PokeReturnValue(is_done=False)
        document = window_document(self.table_path, window)
        self.log.info("new data commits: %s", document)
        return PokeReturnValue(is_done=True, xcom_value=document)

    def execute(self, context: Any) -> Any:
        if not self.deferrable:
            return super().execute(context)
        found = self.poke(context)
        if found.is_done:
            return found.xcom_value
        trigger = HudiCommitTrigger(self.table_path, self.last_processed(), float(self.poke_interval), self.aws_conn_id)
        self.defer(trigger=trigger, method_name="execute_complete", timeout=timedelta(seconds=float(self.timeout)))

    def execute_complete(self, context: Any, event: dict[str, Any]) -> dict[str, Any]:
        """Resumes the task with the trigger's event: the window, pushed to XCom."""
        if event.get("status") != "success":
            raise HudiCommitSensorError(f"waiting for commits of {self.table_path} failed: {event.get('message')}")
        window: dict[str, Any] = event["window"]
        self.log.info("new data commits: %s", window)
        return window
