"""Catalog (meta) sync: registering a Hudi table in the Hive metastore or AWS Glue, as Apache
Hudi's `HiveSyncTool` and `AwsGlueCatalogSyncTool` register it, so SQL engines can query it.

- `settings`: the options (`hoodie.datasource.hive_sync.*`, `hoodie.meta.sync.*`) resolved against the table.
- `registration`, `schema`, `partition_values`: the catalog-neutral registration of a table.
- `changes`: the partitions commits touched since the last sync.
- `catalog`: what a catalog must offer; `hive_metastore` (Thrift) and `glue` (boto3) offer it.
- `tool`: the sync's steps, in the order that makes a half-done sync safe to run again.

A write syncs after it commits when `hoodie.datasource.hive_sync.enable` or
`hoodie.datasource.meta.sync.enable` is set (`with_meta_sync`); `sync_table` syncs on demand.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from hudi_core.config.sync import SyncTool
from hudi_core.errors import MetaSyncError
from hudi_core.storage import Storage
from hudi_core.sync.catalog import MetaCatalog
from hudi_core.sync.settings import SyncSettings, resolve_sync_settings, sync_requested
from hudi_core.sync.tool import MetaSyncTool, SyncResult, TableSyncResult, TableView
from hudi_core.table.read_planner import ReadPlanner
from hudi_core.table.state import load_table_config
from hudi_core.write.client import WriteResult

__all__ = [
    "MetaSyncError",
    "SyncResult",
    "SyncTool",
    "TableSyncResult",
    "open_catalog",
    "sync_after_commit",
    "sync_table",
    "with_meta_sync",
]

logger = logging.getLogger(__name__)


def open_catalog(tool: SyncTool, settings: SyncSettings, aws: Mapping[str, str] | None = None) -> MetaCatalog:
    """A connection to the catalog `tool` syncs to (`aws`: Glue's credentials and region under the
    AWS variable names, default boto3's own chain)."""
    if tool is SyncTool.HIVE:
        from hudi_core.sync.hive_metastore import HiveMetastoreCatalog  # noqa: PLC0415 - the hive extra

        return HiveMetastoreCatalog(settings.metastore_uris)
    from hudi_core.sync.glue import GlueCatalog  # noqa: PLC0415 - boto3

    return GlueCatalog(settings.glue_endpoint, settings.glue_region, aws)


def _view(storage: Storage, options: Mapping[str, str]) -> TableView:
    planner = ReadPlanner(storage, options, {})
    state = planner.state()
    snapshot = planner.scanner(state).snapshot(None, None)

    def live_partitions() -> set[str]:
        return {file_slice.partition_path for file_slice in snapshot.slices}

    return TableView(
        config=load_table_config(storage),
        schema=snapshot.table_schema,
        base_uri=storage.base_uri,
        timeline=state.timeline,
        live_partitions=live_partitions,
    )


def sync_storage(
    storage: Storage, options: Mapping[str, str], standalone: bool, aws: Mapping[str, str] | None = None
) -> list[SyncResult]:
    """Syncs the table at `storage` to every catalog the options name; raises MetaSyncError."""
    settings = resolve_sync_settings(options, load_table_config(storage), standalone)
    view = _view(storage, options)
    results = []
    for tool in settings.tools:
        catalog = open_catalog(tool, settings, aws)
        try:
            results.append(MetaSyncTool(tool, catalog, settings).sync(view))
        finally:
            catalog.close()
    return results


def sync_table(
    path: str, options: Mapping[str, str] | None = None, aws: Mapping[str, str] | None = None
) -> list[SyncResult]:
    """Registers the Hudi table at `path` in the catalogs `options` name (the Hive metastore by
    default: `hoodie.meta.sync.client.tool.class`), creating or updating the table and its
    partitions; returns what each catalog's sync did. `aws`: AWS Glue's credentials and region
    under the AWS variable names (`AWS_ACCESS_KEY_ID`, ..., `AWS_REGION`; default boto3's chain).

    Raises:
        HudiConfigError: an option is malformed, or names what the table cannot be synced as.
        MetaSyncError: a catalog refused a call or could not be reached. Run the sync again: it
            redoes whatever the failed one left undone.
    """
    return sync_storage(Storage(path), dict(options or {}), standalone=True, aws=aws)


def sync_after_commit(storage: Storage, options: Mapping[str, str], instant_time: str) -> str | None:
    """Runs the catalog sync `options` ask for after the commit at `instant_time`.

    The write has committed whatever the sync does. A failed sync raises MetaSyncError naming the
    committed instant (as Apache Hudi's writer raises `HoodieMetaSyncException`), or, with
    `hoodie.datasource.hive_sync.ignore_exceptions`, is logged and returned as a warning.
    """
    if not sync_requested(options):
        return None
    try:
        synced = sync_storage(storage, options, standalone=False)
    except MetaSyncError as e:
        message = (
            f"the write committed at instant {instant_time}, but the catalog sync failed "
            f"(the next write's sync or `hudi-core sync` catches up): {e}"
        )
        if not resolve_sync_settings(options, load_table_config(storage)).ignore_exceptions:
            raise MetaSyncError(message) from e
        logger.warning("%s", message)
        return message
    for catalog in synced:
        logger.info("synced %s to %s", ", ".join(t.table for t in catalog.tables), catalog.tool.value)
    return None


def with_meta_sync(result: WriteResult, storage: Storage, options: Mapping[str, str]) -> WriteResult:
    """`result` of a committed write, after the catalog sync its options ask for (a failed sync
    that is ignored becomes one of its warnings)."""
    warning = sync_after_commit(storage, options, result.instant_time)
    return result if warning is None else replace(result, service_warnings=(*result.service_warnings, warning))
