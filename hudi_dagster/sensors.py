"""Sensors on Hudi timelines: runs requested when data commits land, by any writer, and the table's
asset kept true to the table when commits are made outside Dagster."""

from collections.abc import Callable, Sequence

import dagster as dg
from dagster import SensorEvaluationContext
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition

from hudi_core import HudiTable
from hudi_core.config import HudiConfigs
from hudi_core.config.write import HudiWriteConfig
from hudi_core.hudi_table import table_exists
from hudi_core.lifecycle.heartbeat import heartbeat_expired
from hudi_core.lifecycle.pending import pending_table_services
from hudi_core.table.checkpoint import change_window
from hudi_core.timeline.instant import DATA_ACTIONS
from hudi_dagster import metadata as md
from hudi_dagster.observe import external_commit_events

# The cursor of a sensor that saw the table absent: every commit of the table is new to it.
EARLIEST = "earliest"


def partition_value(partition_path: str) -> str | None:
    """A Hudi partition path's value for a single-field partitioning: its last segment, without a
    Hive-style `field=` prefix (None for the non-partitioned path)."""
    if not partition_path:
        return None
    return partition_path.rsplit("/", 1)[-1].split("=", 1)[-1]


def touched_partition_keys(
    context: SensorEvaluationContext,
    table: HudiTable,
    commits: Sequence[str],
    partitions_def: dg.PartitionsDefinition,
    partition_key_of: Callable[[str], str | None],
) -> list[str]:
    """The Dagster partition keys whose Hudi partitions `commits` (requested times) wrote."""
    timeline = table.timeline
    by_time = {i.requested_time: i for i in timeline.completed_data_instants()}
    paths = {
        path
        for commit in commits
        if commit in by_time
        for path in timeline.commit_metadata(by_time[commit]).partition_to_write_stats
    }
    valid = set(partitions_def.get_partition_keys(dynamic_partitions_store=context.instance))
    return sorted({key for path in paths if (key := partition_key_of(path)) is not None and key in valid})


def consumer_checkpoints(context: SensorEvaluationContext, table_path: str) -> list[str | None] | None:
    """The checkpoints of the table's consumers in this code location (incremental and CDC assets
    reading `table_path`): what each processed last (None: nothing yet). None when it has none."""
    repository = context.repository_def
    if repository is None:
        return None
    found: list[str | None] = []
    for assets_def in repository.assets_defs_by_key.values():
        for spec in assets_def.specs:
            metadata = spec.metadata or {}
            if metadata.get(md.SOURCE_KEY) != table_path or md.CHECKPOINT_IDENTIFIER_KEY not in metadata:
                continue
            target = str(metadata["dagster/uri"])
            identifier = str(metadata[md.CHECKPOINT_IDENTIFIER_KEY])
            found.append(HudiTable(target).latest_checkpoint(identifier) if table_exists(target) else None)
    return found or None


def starting_cursor(context: SensorEvaluationContext, table_path: str) -> str:
    """Where a sensor without a cursor starts: after what every consumer already processed, else
    after the table's latest data commit (turning a sensor on does not replay history)."""
    checkpoints = consumer_checkpoints(context, table_path)
    if checkpoints is not None:
        return EARLIEST if any(c is None for c in checkpoints) else min(c for c in checkpoints if c is not None)
    window = change_window(HudiTable(table_path).timeline, None)
    return window.end if window is not None else EARLIEST


def hudi_commit_sensor(
    *,
    name: str,
    table_path: str,
    job: dg.JobDefinition | UnresolvedAssetJobDefinition | None = None,
    asset_selection: dg.AssetSelection | Sequence[dg.AssetKey] | None = None,
    table_asset: dg.AssetKey | str | Sequence[str] | None = None,
    partitions_def: dg.PartitionsDefinition | None = None,
    partition_key_of: Callable[[str], str | None] = partition_value,
    minimum_interval_seconds: int = 30,
    default_status: dg.DefaultSensorStatus = dg.DefaultSensorStatus.STOPPED,
) -> dg.SensorDefinition:
    """Requests a run (of `job` or `asset_selection`) when new data commits complete on the table.

    With `partitions_def`, one run per Dagster partition the new commits touched: each Hudi
    partition path a commit wrote maps to a partition key by `partition_key_of` (default: the value
    of the path's last segment, `day=2025-01-02` or `2025-01-02`); paths mapping to no key of
    `partitions_def` are left out.

    The cursor is the completion time of the last commit seen (the instant time on layout-1, v6,
    tables, where it never passes the earliest pending instant). Compaction, log compaction and
    clustering commits do not trigger: they change files, not data. Commits written outside Dagster
    trigger like any other.

    Turned on without a cursor, the sensor starts after what the table's consumers (the incremental
    and CDC assets of this code location reading it) have processed, from their checkpoints; with
    no consumers, after the latest commit. With `table_asset` (the table's own asset key), commits
    made outside Dagster (without `dagster/run_id` in their metadata) are reported on that asset:
    data commits as runless materializations, table services as observations.
    """
    asset_key = dg.AssetKey.from_coercible(table_asset) if table_asset is not None else None

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
            return dg.SensorResult(skip_reason=f"no Hudi table at {table_path} yet", cursor=EARLIEST)
        cursor = context.cursor or starting_cursor(context, table_path)
        after = None if cursor == EARLIEST else cursor
        table = HudiTable(table_path)
        window = change_window(table.timeline, after)
        events, services_end = (
            external_commit_events(table, asset_key, after, window) if asset_key is not None else ([], None)
        )
        if window is None:
            if services_end is not None:  # reported table services are behind the cursor from now on
                cursor = services_end if after is None else max(after, services_end)
            return dg.SensorResult(
                skip_reason=f"no data commits after {after or 'the start'}", cursor=cursor, asset_events=events
            )
        tags = {"hudi/table": table_path, "hudi/commits": ",".join(window.commits[-10:])}
        end = max(window.end, services_end) if services_end else window.end
        if partitions_def is None:
            requests = [dg.RunRequest(run_key=f"{table_path}@{window.end}", tags=tags)]
        else:
            keys = touched_partition_keys(context, table, window.commits, partitions_def, partition_key_of)
            requests = [
                dg.RunRequest(run_key=f"{table_path}@{window.end}|{k}", partition_key=k, tags=tags) for k in keys
            ]
            if not requests:
                return dg.SensorResult(skip_reason="the new commits touched no partition of the assets", cursor=end)
        return dg.SensorResult(run_requests=requests, cursor=end, asset_events=events)

    return _sensor


def failed_writes(table: HudiTable) -> list[str]:
    """Pending data writes whose writer stopped (its heartbeat expired): the next writer rolls them
    back; until then they hold files and, on layout-1 tables, incremental consumers."""
    timeline = table.timeline
    services = {service.instant for service in pending_table_services(table.storage, timeline)}
    configs = HudiConfigs({})
    interval = configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
    misses = configs.value(HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES)
    return [
        i.requested_time
        for i in timeline.pending()
        if i not in services
        and i.action.completed_action in DATA_ACTIONS
        and heartbeat_expired(table.storage, i.requested_time, interval, misses)
    ]


def hudi_table_state_sensor(
    *,
    name: str,
    table_path: str,
    job: dg.JobDefinition | UnresolvedAssetJobDefinition | None = None,
    asset_selection: dg.AssetSelection | Sequence[dg.AssetKey] | None = None,
    minimum_interval_seconds: int = 60,
    default_status: dg.DefaultSensorStatus = dg.DefaultSensorStatus.STOPPED,
) -> dg.SensorDefinition:
    """Requests a run (e.g. the table's maintenance job, or an alerting job) when the table has
    pending compaction or clustering plans, or failed writes (pending with an expired heartbeat).

    One run per distinct state: the run key names the pending plans and failed writes, so a state
    that persists is not requested again; the run's tags list them (`hudi/pending_services`,
    `hudi/failed_writes`).
    """

    @dg.sensor(
        name=name,
        job=job,
        asset_selection=asset_selection,
        minimum_interval_seconds=minimum_interval_seconds,
        default_status=default_status,
        description=f"Pending table-service plans or failed writes on the Hudi table at {table_path}",
    )
    def _sensor(context: SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
        if not table_exists(table_path):
            return dg.SkipReason(f"no Hudi table at {table_path} yet")
        table = HudiTable(table_path)
        services = [
            f"{service.action.value}@{service.instant.requested_time}"
            for service in pending_table_services(table.storage, table.timeline)
        ]
        failed = failed_writes(table)
        if not services and not failed:
            return dg.SkipReason("no pending table services and no failed writes")
        tags = {
            "hudi/table": table_path,
            "hudi/pending_services": ",".join(services),
            "hudi/failed_writes": ",".join(failed),
        }
        run_key = f"{table_path}|{','.join(services)}|{','.join(failed)}"
        return dg.SensorResult(run_requests=[dg.RunRequest(run_key=run_key, tags=tags)])

    return _sensor
