"""Sensors on Hudi timelines: runs requested when data commits land, by any writer."""

from collections.abc import Sequence

import dagster as dg
from dagster import SensorEvaluationContext
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_core.table.checkpoint import change_window


def hudi_commit_sensor(
    *,
    name: str,
    table_path: str,
    job: dg.JobDefinition | UnresolvedAssetJobDefinition | None = None,
    asset_selection: dg.AssetSelection | Sequence[dg.AssetKey] | None = None,
    minimum_interval_seconds: int = 30,
    default_status: dg.DefaultSensorStatus = dg.DefaultSensorStatus.STOPPED,
) -> dg.SensorDefinition:
    """Requests a run (of `job` or `asset_selection`) when new data commits complete on the table.

    The cursor is the completion time of the last commit seen (the instant time on layout-1, v6,
    tables, where it never passes the earliest pending instant). Compaction, log compaction and
    clustering commits do not trigger: they change files, not data. Commits written outside Dagster
    trigger like any other.
    """

    @dg.sensor(
        name=name,
        job=job,
        asset_selection=asset_selection,
        minimum_interval_seconds=minimum_interval_seconds,
        default_status=default_status,
        description=f"New data commits on the Hudi table at {table_path}",
    )
    def _sensor(context: SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
        if not table_exists(table_path):
            return dg.SkipReason(f"no Hudi table at {table_path} yet")
        window = change_window(HudiTable(table_path).timeline, context.cursor or None)
        if window is None:
            return dg.SkipReason(f"no data commits after {context.cursor or 'the start'}")
        request = dg.RunRequest(
            run_key=f"{table_path}@{window.end}",
            tags={"hudi/table": table_path, "hudi/commits": ",".join(window.commits[-10:])},
        )
        return dg.SensorResult(run_requests=[request], cursor=window.end)

    return _sensor
