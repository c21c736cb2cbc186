"""`HudiCommitTrigger`: waits, in Airflow's triggerer, for data commits of a table completed after a
point, and reports their window."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from airflow.sdk import BaseHook
from airflow.triggers.base import BaseTrigger, TriggerEvent

from hudi_airflow.hook import storage_options_of
from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_core.storage import register_storage_options
from hudi_core.table.checkpoint import ChangeWindow, change_window


def new_commits(table_path: str, after: str | None) -> ChangeWindow | None:
    """The table's data commits (table services, cleans and rollbacks left out) completed after
    `after` (a completion time; None: any), or None when there are none (or no table yet)."""
    if not table_exists(table_path):
        return None
    return change_window(HudiTable(table_path).timeline, after)


def window_document(table_path: str, window: ChangeWindow) -> dict[str, Any]:
    """A window as XCom and trigger events carry it."""
    return {"table_path": table_path, "start": window.start, "end": window.end, "commits": list(window.commits)}


class HudiCommitTrigger(BaseTrigger):
    """Fires once `table_path` has a data commit completed after `after`, checking every
    `poll_interval` seconds; the event carries the window (`window_document`). The `aws` connection
    `aws_conn_id` is read in the triggerer, so no credentials are stored with the trigger."""

    def __init__(
        self,
        table_path: str,
        after: str | None,
        poll_interval: float = 30.0,
        aws_conn_id: str | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's trigger base is untyped
        self.table_path = table_path
        self.after = after
        self.poll_interval = poll_interval
        self.aws_conn_id = aws_conn_id

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "table_path": self.table_path,
                "after": self.after,
                "poll_interval": self.poll_interval,
                "aws_conn_id": self.aws_conn_id,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        while True:
            try:
                if self.aws_conn_id:  # each poll: a rotated key is picked up
                    connection = await BaseHook.aget_connection(self.aws_conn_id)
                    register_storage_options(self.table_path, storage_options_of(connection))
                window = await asyncio.to_thread(new_commits, self.table_path, self.after)
            except Exception as exc:  # the sensor task fails with the reason, not the triggerer
                yield TriggerEvent({"status": "error", "message": f"{type(exc).__name__}: {exc}"})  # type: ignore[no-untyped-call]
                return
            if window is not None:
                event = {"status": "success", "window": window_document(self.table_path, window)}
                yield TriggerEvent(event)  # type: ignore[no-untyped-call]
                return
            await asyncio.sleep(self.poll_interval)
