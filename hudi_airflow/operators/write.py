"""`HudiWriteOperator`: writes Parquet or CSV files into a Hudi table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hudi_airflow import arguments, sources
from hudi_airflow.assets import openlineage_dataset
from hudi_airflow.operators.base import HudiBaseOperator, default_outlets, record_asset_event
from hudi_core import WriteResult


def write_summary(table_path: str, result: WriteResult) -> dict[str, Any]:
    """What a write did, as the task's XCom and its asset event's extra."""
    return {
        "table_path": table_path,
        "operation": result.operation.value,
        "instant_time": result.instant_time,
        "completion_time": result.completion_time,
        "inserts": result.inserts,
        "updates": result.updates,
        "deletes": result.deletes,
        "files_written": result.files_written,
    }


class HudiWriteOperator(HudiBaseOperator):
    """Writes the rows of `source` into the table with `operation` (Hudi's
    `hoodie.datasource.write.operation`: upsert, insert, bulk_insert, delete, insert_overwrite,
    insert_overwrite_table), creating the table on its first write from `hudi_options`
    (`hoodie.table.name`, record key, partition and ordering fields, table type).

    `source`: a Parquet or CSV file or directory (path, `file://` or `s3://` URI) or a list of them,
    e.g. `"{{ ti.xcom_pull(task_ids='extract') }}"`; `source_format` when the names do not tell.
    A delete reads the keys of the records to delete from `source`. With engine "spark" the files
    are read and written by Spark (`spark_conn_id`). The task's outlet is the table's asset
    (`hudi_asset`), its event carrying the commit; its XCom is the same summary.
    """

    template_fields: Sequence[str] = ("table_path", "source", "operation", "source_format", "hudi_options")
    template_fields_renderers = {"hudi_options": "json"}

    def __init__(
        self,
        *,
        table_path: str,
        source: str | Sequence[str],
        operation: str = "upsert",
        source_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs["outlets"] = default_outlets(table_path, kwargs)
        super().__init__(table_path=table_path, **kwargs)
        arguments.check_choice(self.task_id, "operation", operation, arguments.WRITE_OPERATIONS)
        if source_format is not None:
            arguments.check_choice(self.task_id, "source_format", source_format, sources.SOURCE_FORMATS)
        if not isinstance(source, str) and not (
            isinstance(source, Sequence) and source and all(isinstance(p, str) for p in source)
        ):
            raise arguments.HudiOperatorArgumentError(
                f"task {self.task_id!r}: source must be a file path or URI, or a list of them; got {source!r}"
            )
        self.source = source
        self.operation = operation
        self.source_format = source_format

    def execute(self, context: Any) -> dict[str, Any]:
        hook = self.hook()
        if self.engine == "spark":
            result = self._write_on_spark(hook.storage_options())
        else:
            data = sources.read_source(self.source, self.source_format, hook.storage_options())
            self.log.info(
                "writing %d rows from %s into %s (%s)", data.num_rows, self.source, self.table_path, self.operation
            )
            result = hook.write(data, self.operation)
        summary = write_summary(self.table_path, result)
        self.log.info("committed %s", summary)
        record_asset_event(context, self.table_path, summary)
        return summary

    def _write_on_spark(self, storage_options: Mapping[str, str]) -> WriteResult:
        from hudi_airflow.spark import spark_session  # noqa: PLC0415 - PySpark is the `spark` extra

        paths = sources.source_paths(self.source)
        fmt = sources.source_format(paths, self.source_format)
        with spark_session(self.spark_conn_id, self.spark_conf, storage_options) as session:
            reader = session.read.format(fmt)
            if fmt == "csv":
                reader = reader.option("header", "true").option("inferSchema", "true")
            frame = reader.load(paths)
            return self.hook().write(frame, self.operation)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Lineage for OpenLineage: the source files in, the table out."""
        from airflow.providers.openlineage.extractors import OperatorLineage  # noqa: PLC0415 - optional

        inputs = [openlineage_dataset(p) for p in sources.source_paths(self.source)]
        return OperatorLineage(inputs=inputs, outputs=[openlineage_dataset(self.table_path)])
