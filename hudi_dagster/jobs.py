"""Asset jobs for Hudi assets: in-process execution, so every step shares the run's SparkSession."""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition


def hudi_asset_job(
    name: str,
    selection: dg.AssetSelection | Sequence[dg.AssetKey] | Sequence[str] | str,
    tags: dict[str, str] | None = None,
) -> UnresolvedAssetJobDefinition:
    """`define_asset_job` with the in-process executor: the multiprocess executor would start a
    JVM per step (10-20 s each); a Spark Connect server (`SparkResource(remote=...)`) is
    the alternative when steps must run in separate processes. Partitions come from the selected
    assets."""
    return dg.define_asset_job(name, selection=selection, tags=tags, executor_def=dg.in_process_executor)
