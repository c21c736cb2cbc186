"""Observable source assets for Hudi tables written outside Dagster."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import dagster as dg
from dagster import BetaWarning

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_core.table.checkpoint import ChangeWindow
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import DATA_ACTIONS, Instant
from hudi_dagster import metadata as md


def latest_data_commit(table_path: str) -> str | None:
    """The requested time of the latest completed data commit (table services excluded)."""
    timeline = HudiTable(table_path).timeline
    commits = [i for i in timeline.completed_data_instants() if not timeline.is_table_service(i)]
    if not commits:
        return None
    return max(commits, key=timeline.completion_order_key).requested_time


def made_by_dagster(timeline: Timeline, instant: Instant) -> bool:
    """The commit records a Dagster run (`dagster/run_id` in its extra metadata)."""
    return md.run_id_of(timeline.commit_metadata(instant).extra_metadata) is not None


def services_after(timeline: Timeline, after: str | None) -> list[Instant]:
    """Table-service commits (compaction, clustering, ...) completed after `after`, in completion
    order; on layout-1 timelines only those before the earliest pending data instant, as for data
    commits (`hudi_core.table.checkpoint.commits_after`)."""
    order = timeline.completion_order_key
    services = [
        i
        for i in timeline.completed_data_instants()
        if timeline.is_table_service(i) and (after is None or order(i) > after)
    ]
    if timeline.layout_version < 2:
        pending = [i.requested_time for i in timeline.pending() if i.action.completed_action in DATA_ACTIONS]
        if pending:
            services = [i for i in services if i.requested_time < min(pending)]
    return sorted(services, key=order)


def commit_event_metadata(table: HudiTable, instant: Instant) -> dict[str, Any]:
    commit = table.timeline.commit_metadata(instant)
    return {
        "dagster/uri": dg.MetadataValue.path(table.base_uri),
        md.COMMIT_INSTANT_KEY: instant.requested_time,
        "hudi/completion_time": instant.completion_time or "",
        "hudi/operation": (commit.operation_type or instant.action.value).lower(),
        "hudi/written_by": "outside Dagster",
    }


def external_commit_events(
    table: HudiTable, asset_key: dg.AssetKey, after: str | None, window: ChangeWindow | None
) -> tuple[list[dg.AssetMaterialization | dg.AssetObservation], str | None]:
    """Events for the table's asset about commits made outside Dagster after `after`: a runless
    materialization per data commit of `window`, an observation per table service; and the newest
    completion-order key they cover (the sensor's cursor may move past it)."""
    timeline = table.timeline
    events: list[dg.AssetMaterialization | dg.AssetObservation] = []
    by_time = {i.requested_time: i for i in timeline.completed_data_instants()}
    data = [by_time[t] for t in (window.commits if window is not None else ()) if t in by_time]
    services = services_after(timeline, after)
    for instant in sorted([*data, *services], key=timeline.completion_order_key):
        if made_by_dagster(timeline, instant):
            continue
        metadata = commit_event_metadata(table, instant)
        if timeline.is_table_service(instant):
            events.append(dg.AssetObservation(asset_key=asset_key, metadata=metadata))
        else:
            events.append(dg.AssetMaterialization(asset_key=asset_key, metadata=metadata))
    newest = timeline.completion_order_key(services[-1]) if services else None
    return events, newest


def hudi_observable_source_asset(
    *, key: dg.AssetKey | str | Sequence[str], table_path: str, group_name: str | None = None
) -> dg.SourceAsset:
    """An external Hudi table as a source asset whose data version is its latest data commit."""

    with warnings.catch_warnings():  # observable source assets are a Dagster beta API we choose to use
        warnings.simplefilter("ignore", BetaWarning)
        return _observable(dg.AssetKey.from_coercible(key), table_path, group_name)


def _observable(key: dg.AssetKey, table_path: str, group_name: str | None) -> dg.SourceAsset:
    @dg.observable_source_asset(
        key=key,
        group_name=group_name,
        metadata={"dagster/uri": table_path},
        description=f"Hudi table at {table_path}, written outside Dagster",
    )
    def _observe() -> dg.ObserveResult:
        if not table_exists(table_path):
            # A failed observation, not a data version: nothing downstream should take it for data.
            raise dg.Failure(description=f"no Hudi table at {table_path} (no .hoodie/hoodie.properties)")
        commit = latest_data_commit(table_path)
        return dg.ObserveResult(
            data_version=dg.DataVersion(commit or "empty"),
            metadata={"dagster/uri": dg.MetadataValue.path(table_path), md.COMMIT_INSTANT_KEY: commit or ""},
        )

    return _observe
