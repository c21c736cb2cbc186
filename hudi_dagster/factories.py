"""Asset factories for downstream Hudi tables built from an upstream Hudi table's new commits.

`hudi_incremental_asset` reads the upstream records changed since its last run (an incremental
query), transforms them and writes the target table; `hudi_cdc_asset` does the same with the change
feed (op, before, after). The window's end is stored as the checkpoint of the target commit, keyed
by the asset key: it commits atomically with the data, so it — not Dagster's event log — says what
was processed. A run that dies after the commit but before Dagster records the materialization is
neither skipped nor repeated by the next run.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc
from dagster import AssetExecutionContext

from hudi_core import HudiTable, WriteResult
from hudi_core.concurrency import is_optimistic
from hudi_core.config import HudiConfigs
from hudi_core.config.read import HudiReadConfig
from hudi_core.orchestration import windows
from hudi_core.orchestration.windows import cdc_mirror_rows, drop_meta_columns, mirror_changes
from hudi_core.orchestration.writes import write_data
from hudi_core.table.checkpoint import ChangeWindow
from hudi_dagster import metadata as md
from hudi_dagster.config import HudiTableConfig, WriteMode
from hudi_dagster.resource import spark_session_of

__all__ = ["AssetSettings", "cdc_mirror_rows", "hudi_cdc_asset", "hudi_incremental_asset", "pending_window", "pool_for"]

Engine = Literal["arrow", "spark"]
Transform = Callable[[dg.AssetExecutionContext, Any], Any]


def table_slug(table: HudiTableConfig) -> str:
    """The table's name (else its folder name): names its pool and its maintenance ops."""
    return table.table_name or table.path.rstrip("/").rsplit("/", 1)[-1]


def pool_for(table: HudiTableConfig) -> str | None:
    """The Dagster concurrency pool of a table's writers (limit it to 1: `hudi:<table>`).

    None for tables written under optimistic concurrency (`hoodie.write.concurrency.mode`): their
    writers and services coordinate through the configured lock provider and may run at once.
    """
    if is_optimistic(HudiConfigs(table.hudi_options)):
        return None
    return f"hudi:{table_slug(table)}"


def pending_window(source_path: str, target: HudiTableConfig, identifier: str) -> ChangeWindow | None:
    """Upstream commits not yet processed into `target` by the consumer `identifier`."""
    return windows.pending_window(source_path, target.path, identifier)


def _read_increment(engine: Engine, spark: Any, path: str, window: ChangeWindow) -> Any:
    if engine == "arrow":
        return HudiTable(path).read_incremental(window.start, window.end)
    assert spark is not None
    return (
        spark_session_of(spark)
        .read.format("hudi")
        .option(HudiReadConfig.QUERY_TYPE.key, "incremental")
        .option(HudiReadConfig.BEGIN_INSTANT_TIME.key, window.start)
        .option(HudiReadConfig.END_INSTANT_TIME.key, window.end)
        .load(path)
    )


@dataclass(frozen=True)
class AssetSettings:
    """Dagster settings of a factory asset, passed to `dg.asset` as they are (declarative automation,
    e.g. `AutomationCondition.eager()`, partitions, checks, ownership)."""

    automation_condition: dg.AutomationCondition[Any] | None = None
    partitions_def: dg.PartitionsDefinition | None = None
    backfill_policy: dg.BackfillPolicy | None = None
    check_specs: Sequence[dg.AssetCheckSpec] | None = None
    code_version: str | None = None
    owners: Sequence[str] | None = None
    tags: Mapping[str, str] | None = None

    def window_asset(
        self,
        *,
        key: dg.AssetKey,
        deps: Sequence[dg.AssetKey],
        pool: str | None,
        group_name: str | None,
        description: str,
        metadata: Mapping[str, Any],
        kinds: set[str],
        spark: bool,
    ) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
        """The `dg.asset` decorator of a factory asset that consumes commit windows: its output is
        optional (a window without commits materializes nothing), with these settings."""
        return dg.asset(
            key=key,
            deps=deps,
            pool=pool,
            group_name=group_name,
            description=description,
            metadata=metadata,
            required_resource_keys={"spark"} if spark else set(),
            kinds=kinds,
            output_required=False,
            automation_condition=self.automation_condition,
            partitions_def=self.partitions_def,
            backfill_policy=self.backfill_policy,
            check_specs=self.check_specs,
            code_version=self.code_version,
            owners=self.owners,
            tags=self.tags,
        )


class _DownstreamSpec:
    """What the incremental and CDC factories share: keys, the checkpoint identifier, the pool."""

    def __init__(
        self,
        name: str,
        source: dg.AssetKey | str,
        source_path: str,
        target: HudiTableConfig,
        key_prefix: Sequence[str] | None,
    ) -> None:
        self.upstream = dg.AssetKey.from_coercible(source)
        self.upstream_name = self.upstream.to_user_string()
        self.key = dg.AssetKey([*(key_prefix or []), name])
        self.identifier = self.key.to_user_string()  # the checkpoint identifier of the target commits
        self.source_path = source_path
        self.target = target

        self.pool = pool_for(target)
        self.metadata: dict[str, Any] = {
            "dagster/uri": target.path,
            md.SOURCE_KEY: source_path,
            md.CHECKPOINT_IDENTIFIER_KEY: self.identifier,
        }

    def with_code_of(self, transform: Callable[..., Any] | None) -> dict[str, Any]:
        """The asset's metadata, pointing the asset page at the transform's source (the user's code)."""
        reference = md.code_reference(transform) if transform is not None else None
        return {**self.metadata, "dagster/code_references": reference} if reference is not None else self.metadata


def _no_new_commits(context: dg.AssetExecutionContext, source_path: str) -> dg.AssetObservation:
    """What a run without new upstream commits reports: an observation, not a materialization, so
    the asset page keeps the last write's columns, row count and commit."""
    context.log.info(f"no new commits in {source_path} since the last checkpoint: nothing materialized")
    return dg.AssetObservation(
        asset_key=context.asset_key, metadata={"hudi/new_commits": 0, md.SOURCE_KEY: source_path}
    )


def _result(
    context: dg.AssetExecutionContext,
    target: HudiTableConfig,
    window: ChangeWindow,
    result: WriteResult,
    copied_from: dg.AssetKey | None,
) -> dg.MaterializeResult[Any]:
    """The materialization of a window's write; `copied_from`: the upstream asset whose columns the
    target copies one to one (no transform), for column lineage."""
    name = context.asset_key.to_user_string()
    metadata = md.write_metadata(target.path, name, result, md.table_row_count(target.path))
    if copied_from is not None:
        metadata["dagster/column_lineage"] = md.copied_columns(metadata["dagster/column_schema"], copied_from)
    metadata.update(
        {
            "hudi/window_start": window.start,
            "hudi/window_end": window.end,
            "hudi/new_commits": len(window.commits),
            "hudi/source_commits": ", ".join(window.commits[-20:]),
        }
    )
    return dg.MaterializeResult(metadata=metadata, data_version=md.data_version(result))


def hudi_incremental_asset(
    *,
    name: str,
    source: dg.AssetKey | str,
    source_path: str,
    target: HudiTableConfig,
    transform: Transform | None = None,
    engine: Engine = "arrow",
    mode: WriteMode = WriteMode.UPSERT,
    key_prefix: Sequence[str] | None = None,
    group_name: str | None = None,
    description: str | None = None,
    settings: AssetSettings | None = None,
) -> dg.AssetsDefinition:
    """An asset that upserts `transform(upstream changes)` into `target` after each upstream commit.

    Args:
        name: the asset's name.
        source: the upstream asset's key; source_path: its Hudi table.
        target: the table this asset writes.
        transform: `(context, changes) -> rows to write`; changes are an Arrow table (engine "arrow")
            or a Spark DataFrame (engine "spark", needs the `spark` resource) with meta columns.
        mode: the write operation.
        settings: automation condition, partitions, backfill policy, check specs, code version,
            owners and tags of the asset (`AssetSettings`).
    """
    spec = _DownstreamSpec(name, source, source_path, target, key_prefix)
    chosen = settings or AssetSettings()

    @chosen.window_asset(
        key=spec.key,
        deps=[spec.upstream],
        pool=spec.pool,
        group_name=group_name,
        description=description or f"Incremental from {spec.upstream_name} into {target.path}",
        metadata=spec.with_code_of(transform),
        kinds={"hudi", "spark" if engine == "spark" else "pyarrow"},
        spark=engine == "spark",
    )
    def _incremental(context: AssetExecutionContext) -> Iterator[dg.MaterializeResult[Any] | dg.AssetObservation]:
        window = pending_window(source_path, target, spec.identifier)
        if window is None:
            yield _no_new_commits(context, source_path)
            return
        spark = context.resources.spark if engine == "spark" else None
        changes = _read_increment(engine, spark, source_path, window)
        rows = transform(context, changes) if transform is not None else changes
        context.log.info(f"window ({window.start}, {window.end}]: {len(window.commits)} commit(s)")
        options = md.with_run_id(context, target.write_options(mode))
        result = write_data(target.path, drop_meta_columns(rows), options, window.end, spec.identifier)
        yield _result(context, target, window, result, spec.upstream if transform is None else None)

    return _incremental


def hudi_cdc_asset(
    *,
    name: str,
    source: dg.AssetKey | str,
    source_path: str,
    target: HudiTableConfig,
    transform: Callable[[dg.AssetExecutionContext, pa.Table], pa.Table] | None = None,
    key_prefix: Sequence[str] | None = None,
    group_name: str | None = None,
    description: str | None = None,
    settings: AssetSettings | None = None,
) -> dg.AssetsDefinition:
    """An asset consuming the upstream table's change feed window by window (`read_cdc`).

    `transform(context, changes)` gets the window's changes (`op`, `ts_ms`, `before`, `after` as
    structs) and returns rows to upsert into `target`; by default the target mirrors the source
    (:func:`cdc_mirror_rows`). The upstream table needs `hoodie.table.cdc.enabled=true`.
    """
    spec = _DownstreamSpec(name, source, source_path, target, key_prefix)
    chosen = settings or AssetSettings()

    @chosen.window_asset(
        key=spec.key,
        deps=[spec.upstream],
        pool=spec.pool,
        group_name=group_name,
        description=description or f"Change feed of {spec.upstream_name} applied to {target.path}",
        metadata=spec.with_code_of(transform),
        kinds={"hudi", "pyarrow"},
        spark=False,
    )
    def _cdc(context: AssetExecutionContext) -> Iterator[dg.MaterializeResult[Any] | dg.AssetObservation]:
        window = pending_window(source_path, target, spec.identifier)
        if window is None:
            yield _no_new_commits(context, source_path)
            return
        changes = HudiTable(source_path).read_cdc(window.start, window.end, images="struct")
        mirror_keys = [*target.record_key, *target.partition_fields]
        deletes = None
        if transform is None:
            rows, deletes = mirror_changes(changes, mirror_keys)
        else:
            rows = transform(context, changes)
        counts = pc.value_counts(changes.column("op")).to_pylist() if changes.num_rows else []
        context.log.info(f"window ({window.start}, {window.end}]: changes {counts}")
        options = md.with_run_id(context, target.write_options(WriteMode.UPSERT))
        result = write_data(target.path, rows, options, window.end, spec.identifier, deletes)
        yield _result(context, target, window, result, spec.upstream if transform is None else None)

    return _cdc
