"""Catalog sync as a Dagster op: register a table in the Hive metastore or AWS Glue on demand
(writes with `hoodie.datasource.hive_sync.enable` or `hoodie.datasource.meta.sync.enable` in their
options already sync after every commit)."""

from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg

from hudi_core.sync import SyncResult, sync_table
from hudi_dagster.config import HudiTableConfig
from hudi_dagster.factories import table_slug


def sync_metadata(results: Sequence[SyncResult]) -> dict[str, Any]:
    """What a sync did, per catalog table: whether it was created, partitions added and dropped,
    the commit it is synced to; and the catalog calls made."""
    metadata: dict[str, Any] = {}
    for result in results:
        for table in result.tables:
            prefix = f"hudi/sync/{result.tool.value}/{table.table}"
            metadata[f"{prefix}/created"] = table.created
            metadata[f"{prefix}/partitions_added"] = len(table.partitions_added)
            metadata[f"{prefix}/partitions_dropped"] = len(table.partitions_dropped)
            metadata[f"{prefix}/last_commit_time_sync"] = table.sync_point.commit_time or ""
        metadata[f"hudi/sync/{result.tool.value}/calls"] = int(sum(result.calls.values()))
    return metadata


def hudi_sync_op(
    table: HudiTableConfig,
    options: Mapping[str, str] | None = None,
    name: str | None = None,
    table_asset: dg.AssetKey | str | Sequence[str] | None = None,
) -> dg.OpDefinition:
    """An op syncing `table` to the catalogs its options name (`hoodie.meta.sync.client.tool.class`,
    the Hive metastore by default; `hoodie.datasource.hive_sync.*` for names and the metastore's
    address). With `table_asset`, what it did is also an observation of the table's asset."""
    merged = {**table.hudi_options, **dict(options or {})}
    asset_key = dg.AssetKey.from_coercible(table_asset) if table_asset is not None else None
    slug = table_slug(table).replace("-", "_").replace(".", "_")

    @dg.op(
        name=name or f"{slug}_sync",
        ins={"after": dg.In(dg.Nothing)},
        out=dg.Out(dg.Nothing),
        tags={"kind": "hudi"},
    )
    def _sync(context: dg.OpExecutionContext) -> None:
        metadata = sync_metadata(sync_table(table.path, merged, aws=table.storage_options))
        context.log.info(f"catalog sync of {table.path}: {metadata}")
        context.add_output_metadata(metadata)
        if asset_key is not None:
            context.log_event(dg.AssetObservation(asset_key=asset_key, metadata=metadata))

    return _sync
