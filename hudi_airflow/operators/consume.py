"""Exactly-once consumers of another Hudi table's commits: `HudiIncrementalOperator` (the records
changed) and `HudiCdcOperator` (the change feed), into a Hudi table or into Parquet files.

Each run takes the source's data commits (not table services) completed after its checkpoint, and
writes them with the window's end as the new checkpoint, in the same commit (a table target,
`hudi_core.table.checkpoint`) or in the file's name (a files target, `hudi_airflow.window_files`).
A task killed after committing and retried finds its window done; one killed before writes it again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from airflow.sdk.exceptions import AirflowSkipException

from hudi_airflow import arguments
from hudi_airflow.assets import openlineage_dataset
from hudi_airflow.hook import HudiHook
from hudi_airflow.operators.base import HudiBaseOperator, default_outlets, record_asset_event
from hudi_airflow.operators.write import write_summary
from hudi_airflow.window_files import files_checkpoint, write_window_file
from hudi_core import HudiTable
from hudi_core.orchestration.windows import drop_meta_columns, mirror_changes, pending_window
from hudi_core.table.checkpoint import ChangeWindow, change_window

Transform = Callable[[pa.Table], pa.Table]


class _WindowOperator(HudiBaseOperator):
    """A consumer of `source_path`'s commits writing `table_path` (a Hudi table) or `output_dir`
    (Parquet files): one of them. `checkpoint_identifier` names the consumer (default
    `<dag_id>.<task_id>`); `transform(rows) -> rows` runs on the window before it is written.
    A run with no new commits is skipped (no asset event, downstream tasks skipped)."""

    template_fields: Sequence[str] = (
        "source_path",
        "table_path",
        "output_dir",
        "checkpoint_identifier",
        "hudi_options",
    )
    template_fields_renderers = {"hudi_options": "json"}
    read_kind = ""

    def __init__(
        self,
        *,
        source_path: str,
        table_path: str | None = None,
        output_dir: str | None = None,
        transform: Transform | None = None,
        checkpoint_identifier: str | None = None,
        operation: str = "upsert",
        **kwargs: Any,
    ) -> None:
        task_id = kwargs.get("task_id", "?")
        if (table_path is None) == (output_dir is None):
            raise arguments.HudiOperatorArgumentError(
                f"task {task_id!r}: give one target, table_path (a Hudi table) or output_dir (Parquet files)"
            )
        if transform is not None and not callable(transform):
            raise arguments.HudiOperatorArgumentError(
                f"task {task_id!r}: transform must be callable, got {transform!r}"
            )
        if table_path is not None:
            kwargs["outlets"] = default_outlets(table_path, kwargs)
        # The base's table_path is the target's location either way (its storage connection, its
        # lineage); `output_dir` says the target is files.
        super().__init__(table_path=table_path or output_dir or "", **kwargs)
        arguments.check_path(self.task_id, "source_path", source_path)
        arguments.check_choice(self.task_id, "engine", self.engine, ("arrow",))  # windows are read in Arrow
        arguments.check_choice(self.task_id, "operation", operation, ("upsert", "insert", "bulk_insert"))
        self.source_path = source_path
        self.output_dir = output_dir
        self.writes_table = table_path is not None
        self.transform = transform
        self.checkpoint_identifier = checkpoint_identifier
        self.operation = operation

    def identifier(self) -> str:
        return self.checkpoint_identifier or f"{self.dag_id}.{self.task_id}"

    def execute(self, context: Any) -> dict[str, Any]:
        source = self.hook(self.source_path)
        source.storage_options()
        identifier = self.identifier()
        if self.writes_table:
            target = self.hook()
            target.storage_options()
            window = pending_window(self.source_path, self.table_path, identifier)
        else:
            storage = source.storage_options()
            checkpoint = files_checkpoint(self.output_dir or "", identifier, storage)
            window = change_window(HudiTable(self.source_path).timeline, checkpoint)
        if window is None:
            raise AirflowSkipException(f"no new commits in {self.source_path} for {identifier}")
        self.log.info(
            "window (%s, %s]: %d commit(s) of %s", window.start, window.end, len(window.commits), self.source_path
        )
        report = {"window_start": window.start, "window_end": window.end, "source_commits": list(window.commits)}
        if self.writes_table:
            summary = self._write_table(target, window, identifier)
            record_asset_event(context, self.table_path, {**summary, **report})
        else:
            rows = self.read_window(window)
            rows = self.transform(rows) if self.transform is not None else rows
            written = write_window_file(
                self.output_dir or "", identifier, window.start, window.end, rows, source.storage_options()
            )
            summary = {"file": written, "rows": rows.num_rows}
        self.log.info("committed %s", summary)
        return {**summary, **report}

    def read_window(self, window: ChangeWindow) -> pa.Table:
        """The window's rows as the consumer reads them."""
        raise NotImplementedError

    def _write_table(self, target: HudiHook, window: ChangeWindow, identifier: str) -> dict[str, Any]:
        rows = self.read_window(window)
        rows = self.transform(rows) if self.transform is not None else drop_meta_columns(rows)
        result = target.write(rows, self.operation, window.end, identifier)
        return write_summary(self.table_path, result)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Lineage for OpenLineage: the source table in, the target table or directory out."""
        from airflow.providers.openlineage.extractors import OperatorLineage  # noqa: PLC0415 - optional

        return OperatorLineage(
            inputs=[openlineage_dataset(self.source_path)], outputs=[openlineage_dataset(self.table_path)]
        )


class HudiIncrementalOperator(_WindowOperator):
    """Writes the records `source_path`'s new commits changed (an incremental query, latest image of
    each record) — transformed by `transform` — into `table_path` or `output_dir`, exactly once."""

    def read_window(self, window: ChangeWindow) -> pa.Table:
        return HudiTable(self.source_path).read_incremental(window.start, window.end)


class HudiCdcOperator(_WindowOperator):
    """Applies `source_path`'s change feed (`op`, `ts_ms`, `before`, `after`) window by window.

    Into a table without `transform`, the target mirrors the source: inserts and updates upserted,
    deletes deleted, in one commit per window. With `transform(changes) -> rows` the rows are
    upserted. Into `output_dir`, the changes themselves are written. The source needs
    `hoodie.table.cdc.enabled=true`.
    """

    def read_window(self, window: ChangeWindow) -> pa.Table:
        return HudiTable(self.source_path).read_cdc(window.start, window.end, images="struct")

    def _write_table(self, target: HudiHook, window: ChangeWindow, identifier: str) -> dict[str, Any]:
        if self.transform is not None:
            return super()._write_table(target, window, identifier)
        changes = self.read_window(window)
        config = HudiTable(self.source_path).table_config
        keys = [*config.record_key_fields, *config.partition_fields]
        rows, deletes = mirror_changes(changes, keys)
        counts = pc.value_counts(changes.column("op")).to_pylist() if changes.num_rows else []
        self.log.info("changes %s", counts)
        result = target.write(rows, self.operation, window.end, identifier, deletes)
        return write_summary(self.table_path, result)
