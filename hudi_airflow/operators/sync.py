"""Catalog sync as a task: `HudiSyncOperator` registers the table in the Hive metastore or AWS Glue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hudi_airflow import arguments
from hudi_airflow.operators.base import HudiBaseOperator
from hudi_core.sync import SyncResult, sync_table


def sync_summary(table_path: str, results: Sequence[SyncResult]) -> dict[str, Any]:
    """What the sync did, as the task's XCom: per catalog table, whether it was created, the
    partitions added, moved and dropped and the commit it is synced to; the catalog calls made."""
    return {
        "table_path": table_path,
        "catalogs": [
            {
                "tool": result.tool.value,
                "calls": int(sum(result.calls.values())),
                "tables": [
                    {
                        "table": t.table,
                        "created": t.created,
                        "partitions_added": list(t.partitions_added),
                        "partitions_updated": list(t.partitions_updated),
                        "partitions_dropped": list(t.partitions_dropped),
                        "last_commit_time_sync": t.sync_point.commit_time,
                    }
                    for t in result.tables
                ],
            }
            for result in results
        ],
    }


class HudiSyncOperator(HudiBaseOperator):
    """Syncs the table to the catalogs `hudi_options` name: the Hive metastore by default
    (`hoodie.datasource.hive_sync.metastore.uris`), AWS Glue with
    `hoodie.meta.sync.client.tool.class=org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool` (its
    credentials and region from `aws_conn_id`, else boto3's own). Writes with
    `hoodie.datasource.hive_sync.enable` in their options sync after every commit already; this
    task catches a catalog up after a failed sync, or registers a table written elsewhere.
    It changes no rows: the task has no outlet unless given one."""

    template_fields: Sequence[str] = ("table_path", "hudi_options")
    template_fields_renderers = {"hudi_options": "json"}

    def __init__(self, *, table_path: str, **kwargs: Any) -> None:
        super().__init__(table_path=table_path, **kwargs)
        arguments.check_choice(self.task_id, "engine", self.engine, ("arrow",))  # a sync reads the timeline only
        arguments.check_option_values(self.task_id, self.hudi_options)

    def execute(self, context: Any) -> dict[str, Any]:
        hook = self.hook()
        hook.storage_options()  # a table on S3 is read through the connection too
        aws = hook.glue_settings()
        summary = sync_summary(self.table_path, sync_table(self.table_path, self.hudi_options, aws=aws))
        self.log.info("catalog sync of %s: %s", self.table_path, summary)
        return summary
