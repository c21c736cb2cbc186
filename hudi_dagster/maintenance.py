"""Table maintenance as Dagster ops, jobs and schedules: compaction, log compaction, clustering,
cleaning, archival and savepoints, each reporting what it did as output metadata."""

from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
from dagster import OpExecutionContext

from hudi_core import HudiTable
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.orchestration.services import DEFAULT_SERVICES, Service, check_service, run_service
from hudi_core.parallel import TaskRunner, run_locally
from hudi_dagster import metadata as md
from hudi_dagster.config import HudiTableConfig
from hudi_dagster.factories import Engine, pool_for, table_slug
from hudi_dagster.resource import spark_session_of


def service_metadata(table: HudiTableConfig, service: str, result: ServiceResult | None) -> dict[str, Any]:
    """What a service run did (`hudi/ran` is False when there was nothing to do)."""
    metadata: dict[str, Any] = {"hudi/table": table.path, "hudi/service": service, "hudi/ran": result is not None}
    if result is not None:
        metadata["hudi/instant"] = result.instant_time or ""
        metadata["hudi/completion_time"] = result.completion_time or ""
        metadata.update({f"hudi/{name}": int(value) for name, value in result.counts.items()})
    return metadata


def hudi_service_op(
    table: HudiTableConfig,
    service: Service,
    options: Mapping[str, str] | None = None,
    name: str | None = None,
    engine: Engine = "arrow",
    table_asset: dg.AssetKey | str | Sequence[str] | None = None,
) -> dg.OpDefinition:
    """An op running one table service on `table` (in the table's writer pool). With engine
    "spark" (needs the `spark` resource) the service plans and commits in the op and rewrites its
    file groups as Spark tasks. With `table_asset` (the table's asset key), what the service did is
    also an observation of that asset, so the asset page shows it. Its commit records the run."""
    check_service(service)
    merged = {**table.hudi_options, **dict(options or {})}
    asset_key = dg.AssetKey.from_coercible(table_asset) if table_asset is not None else None

    @dg.op(
        name=name or f"{_slug(table)}_{service}",
        ins={"after": dg.In(dg.Nothing)},
        out=dg.Out(dg.Nothing),
        pool=pool_for(table),
        tags={"kind": "hudi"},
        required_resource_keys={"spark"} if engine == "spark" else set(),
    )
    def _service(context: OpExecutionContext) -> None:
        runner = _task_runner(context, engine, f"hudi {service} of {table.path}")
        hudi_table = HudiTable(table.path, task_runner=runner)
        result = run_service(hudi_table, service, md.with_run_id(context, merged), user="dagster")
        metadata = service_metadata(table, service, result)
        context.log.info(f"{service} on {table.path}: {metadata}")
        context.add_output_metadata(metadata)
        if asset_key is not None:
            context.log_event(dg.AssetObservation(asset_key=asset_key, metadata=metadata))

    return _service


def hudi_maintenance_job(
    table: HudiTableConfig,
    services: Sequence[Service] = DEFAULT_SERVICES,
    options: Mapping[str, str] | None = None,
    name: str | None = None,
    engine: Engine = "arrow",
    table_asset: dg.AssetKey | str | Sequence[str] | None = None,
) -> dg.JobDefinition:
    """A job running `services` on `table` one after another, in one process (engine "spark": their
    file-group tasks on the `spark` resource's session); with `table_asset`, each service's result
    is an observation of the table's asset."""
    ops = [hudi_service_op(table, service, options, engine=engine, table_asset=table_asset) for service in services]

    @dg.graph(name=f"{name or _slug(table) + '_maintenance'}_graph")
    def _maintenance() -> None:
        previous = None
        for op in ops:
            previous = op(previous) if previous is not None else op()

    # Service ops output nothing: an IO manager of their own keeps the Definitions' (and its config)
    # out of the job and its launchpad. A Spark job takes its `spark` resource from the Definitions,
    # which a job with resources of its own could not (Dagster wants them all at definition).
    resources = {"io_manager": dg.mem_io_manager} if engine == "arrow" else None
    return _maintenance.to_job(
        name=name or f"{_slug(table)}_maintenance", executor_def=dg.in_process_executor, resource_defs=resources
    )


def hudi_maintenance_schedule(
    job: dg.JobDefinition, cron_schedule: str = "0 3 * * *", execution_timezone: str = "UTC"
) -> dg.ScheduleDefinition:
    """A schedule for a maintenance job (default: daily at 03:00 UTC)."""
    return dg.ScheduleDefinition(
        name=f"{job.name}_schedule", job=job, cron_schedule=cron_schedule, execution_timezone=execution_timezone
    )


def _task_runner(context: OpExecutionContext, engine: Engine, description: str) -> TaskRunner:
    if engine == "arrow":
        return run_locally
    from hudi_core.spark.services import spark_runner  # noqa: PLC0415 - PySpark is the `spark` extra

    return spark_runner(spark_session_of(context.resources.spark), description)


def _slug(table: HudiTableConfig) -> str:
    return table_slug(table).replace("-", "_").replace(".", "_")
