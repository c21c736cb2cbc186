"""The sync itself: bring each catalog table of a Hudi table up to date with it.

The steps are Apache Hudi's `HiveSyncTool.syncHoodieTable`, and their order is what makes a sync
that stops half-way (a catalog down, a process killed) safe to run again:

1. create the database if asked to, and the table if it is missing (without sync times), or
   update its definition when the schema or the properties the sync owns changed;
2. add, update and drop partitions: only those the commits since the last sync touched, or all
   of them when the table is new or the last sync point is off the active timeline;
3. record the sync point (`last_commit_time_sync`, `last_commit_completion_time_sync`) last.

Until step 3 the catalog still names the old sync point, so the next sync redoes the same window;
adding a partition that exists and dropping one that is gone are no-ops.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from hudi_core.config.sync import HudiMetaSyncConfig, SyncTool
from hudi_core.config.table import TableConfig
from hudi_core.errors import MetaSyncError
from hudi_core.sync.catalog import CatalogPartition, MetaCatalog, PartitionValues, RegisteredTable
from hudi_core.sync.changes import SyncPoint, changed_partitions, latest_sync_point
from hudi_core.sync.partition_values import partition_values
from hudi_core.sync.registration import (
    LAST_COMMIT_COMPLETION_TIME_SYNC,
    LAST_COMMIT_TIME_SYNC,
    SYNC_PROPERTIES,
    CatalogTable,
    registrations,
)
from hudi_core.sync.settings import SyncSettings
from hudi_core.timeline import Timeline

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableSyncResult:
    """What one catalog table's sync did."""

    table: str
    created: bool
    definition_updated: bool
    full_listing: bool
    partitions_added: tuple[str, ...] = ()
    partitions_updated: tuple[str, ...] = ()
    partitions_dropped: tuple[str, ...] = ()
    sync_point: SyncPoint = field(default_factory=lambda: SyncPoint(None, None))


@dataclass(frozen=True)
class SyncResult:
    """One catalog's sync of a table: a result per catalog table, and the remote calls made."""

    tool: SyncTool
    tables: tuple[TableSyncResult, ...]
    calls: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TableView:
    """What the sync reads of the table: its definition, schema, timeline and live partitions."""

    config: TableConfig
    schema: pa.Schema
    base_uri: str
    timeline: Timeline
    live_partitions: Callable[[], set[str]]


def _sync_properties(point: SyncPoint) -> dict[str, str]:
    properties = {}
    if point.commit_time is not None:
        properties[LAST_COMMIT_TIME_SYNC] = point.commit_time
    if point.completion_time is not None:
        properties[LAST_COMMIT_COMPLETION_TIME_SYNC] = point.completion_time
    return properties


def _registered_point(registered: RegisteredTable) -> SyncPoint:
    return SyncPoint(
        registered.table_properties.get(LAST_COMMIT_TIME_SYNC),
        registered.table_properties.get(LAST_COMMIT_COMPLETION_TIME_SYNC),
    )


def _definition_changed(table: CatalogTable, registered: RegisteredTable) -> bool:
    wanted_columns = tuple((c.name.lower(), c.type.lower()) for c in table.columns)
    have_columns = tuple((name.lower(), kind.lower()) for name, kind in registered.columns)
    owned = {k: v for k, v in registered.table_properties.items() if k in table.table_properties}
    serde = {k: v for k, v in registered.serde_properties.items() if k in table.serde_properties}
    return (
        wanted_columns != have_columns
        or owned != dict(table.table_properties)
        or serde != dict(table.serde_properties)
        or not _same_location(registered.location, table.location)
        or registered.input_format != table.input_format
    )


def _batches(items: Sequence[CatalogPartition], size: int) -> list[Sequence[CatalogPartition]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class MetaSyncTool:
    """Syncs one Hudi table to one catalog."""

    def __init__(self, tool: SyncTool, catalog: MetaCatalog, settings: SyncSettings) -> None:
        self._tool = tool
        self._catalog = catalog
        self._settings = settings

    def sync(self, view: TableView) -> SyncResult:
        settings = self._settings
        tables = registrations(settings, view.config, view.schema, view.base_uri)
        if not self._catalog.database_exists(settings.database):
            if not settings.auto_create_database:
                raise MetaSyncError(
                    f"database {settings.database} does not exist in {self._catalog.name} and "
                    f"{HudiMetaSyncConfig.AUTO_CREATE_DATABASE.key} is false"
                )
            self._catalog.create_database(settings.database)
        point = latest_sync_point(view.timeline)
        live: set[str] | None = None

        def live_partitions() -> set[str]:
            nonlocal live
            if live is None:
                live = {p for p in view.live_partitions() if p}
            return live

        results = [self._sync_table(table, view.timeline, point, live_partitions) for table in tables]
        return SyncResult(self._tool, tuple(results), dict(self._catalog.calls))

    def _sync_table(
        self, table: CatalogTable, timeline: Timeline, point: SyncPoint, live: Callable[[], set[str]]
    ) -> TableSyncResult:
        catalog = self._catalog
        registered = catalog.get_table(table.database, table.name)
        created = registered is None
        updated = False
        if registered is None:
            catalog.create_table(table, {})
            changed = None
        else:
            if _definition_changed(table, registered):
                kept = {k: v for k, v in registered.table_properties.items() if k in SYNC_PROPERTIES}
                catalog.update_table(table, kept, cascade=True)
                updated = True
            since = _registered_point(registered)
            changed = changed_partitions(timeline, since) if self._settings.incremental else None
        if table.partition_keys:
            added, changed_location, dropped = self._sync_partitions(table, changed, live)
        else:
            added, changed_location, dropped = (), (), ()
        if registered is None or _registered_point(registered) != point or updated:
            catalog.update_table(table, _sync_properties(point), cascade=False)
        return TableSyncResult(
            table=table.qualified_name,
            created=created,
            definition_updated=updated,
            full_listing=changed is None,
            partitions_added=added,
            partitions_updated=changed_location,
            partitions_dropped=dropped,
            sync_point=point,
        )

    def _values(self, path: str) -> PartitionValues:
        settings = self._settings
        return tuple(
            partition_values(path, settings.extractor, len(settings.partition_fields), settings.decode_partition)
        )

    def _sync_partitions(
        self, table: CatalogTable, changed: set[str] | None, live: Callable[[], set[str]]
    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        catalog = self._catalog
        on_storage = live()
        if changed is None:
            wanted = {self._values(path): path for path in on_storage}
            have = catalog.all_partitions(table)
            gone = [values for values in have if values not in wanted]
        else:
            paths = {path for path in changed if path}
            wanted = {self._values(path): path for path in paths & on_storage}
            gone_candidates = [self._values(path) for path in paths - on_storage]
            have = catalog.get_partitions(table, [*wanted, *gone_candidates]) if paths else {}
            gone = [values for values in gone_candidates if values in have]
        add = [CatalogPartition(v, table.partition_location(p)) for v, p in sorted(wanted.items()) if v not in have]
        move = [
            CatalogPartition(v, table.partition_location(p))
            for v, p in sorted(wanted.items())
            if v in have and _same_location(have[v], table.partition_location(p)) is False
        ]
        size = self._settings.batch_size
        for batch in _batches(add, size):
            catalog.add_partitions(table, batch)
        for batch in _batches(move, size):
            catalog.update_partitions(table, batch)
        for start in range(0, len(gone), size):
            catalog.drop_partitions(table, gone[start : start + size])

        def names(items: Sequence[PartitionValues]) -> tuple[str, ...]:
            return tuple("/".join(values) for values in items)

        return names([p.values for p in add]), names([p.values for p in move]), names(sorted(gone))


def _same_location(have: str, wanted: str) -> bool:
    # Catalogs normalise `file:///x` to `file:/x` and may drop a trailing slash; Glue stores `s3://`.
    def normal(location: str) -> str:
        location = location.replace("file:///", "file:/").rstrip("/")
        return "s3://" + location[len("s3a://") :] if location.startswith("s3a://") else location

    return normal(have) == normal(wanted)
