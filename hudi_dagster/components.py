"""Dagster Components: Hudi tables declared in YAML (`defs.yaml`), loadable by `dg`.

`HudiTableComponent` declares one table; `HudiLakehouseComponent` a set of tables under one root.
A table is either written elsewhere (`external: true`: an observable source asset), written by the
project's own Python assets (declared here for checks, maintenance and sensors only), or derived
from another table of the component by its new commits (`incremental_from`) or its change feed
(`cdc_from`). Maintenance runs on a cron schedule; the asset checks are on by default.

    type: hudi_dagster.components.HudiLakehouseComponent
    attributes:
      root: "{{ env.LAKE_ROOT }}"
      tables:
        - name: bronze
          record_key: [id]
          partition_fields: [day]
          table_type: MERGE_ON_READ
          external: true
          maintenance: {services: [compaction, clean], cron: "0 3 * * *"}
        - name: silver
          record_key: [id]
          incremental_from: bronze
          transform: my_project.transforms:clean   # optional, module:function
"""

# No postponed annotations here: Dagster resolves the component models' annotations at runtime.
import importlib
from collections.abc import Callable
from typing import Any, Literal

import dagster as dg
from pydantic import Field

from hudi_core.orchestration.services import DEFAULT_SERVICES, Service
from hudi_dagster.checks import hudi_table_checks
from hudi_dagster.config import HudiTableConfig
from hudi_dagster.factories import AssetSettings, hudi_cdc_asset, hudi_incremental_asset
from hudi_dagster.maintenance import hudi_maintenance_job, hudi_maintenance_schedule
from hudi_dagster.observe import hudi_observable_source_asset
from hudi_dagster.sensors import hudi_commit_sensor


class MaintenanceModel(dg.Model):
    """Table services on a schedule."""

    services: list[Service] = Field(default_factory=lambda: list(DEFAULT_SERVICES))
    cron: str = "0 3 * * *"
    hudi_options: dict[str, str] = Field(default_factory=dict)


class HudiTableModel(dg.Model):
    """One Hudi table (its path: `path`, else `<root>/<name>`)."""

    name: str
    path: str | None = None
    record_key: list[str] = Field(default_factory=list)
    partition_fields: list[str] = Field(default_factory=list)
    ordering_field: str | None = None
    table_type: Literal["COPY_ON_WRITE", "MERGE_ON_READ"] = "COPY_ON_WRITE"
    hudi_options: dict[str, str] = Field(default_factory=dict)
    group_name: str | None = None
    external: bool = False
    incremental_from: str | None = None
    cdc_from: str | None = None
    transform: str | None = None
    automation: Literal["eager", "none"] = "none"
    checks: bool = True
    commit_sensor: bool = False
    maintenance: MaintenanceModel | None = None

    def config(self, root: str | None) -> HudiTableConfig:
        if self.path is None and root is None:
            raise ValueError(f"table {self.name!r} needs a path, or the component a root")
        return HudiTableConfig(
            path=self.path or f"{str(root).rstrip('/')}/{self.name}",
            table_name=self.name,
            record_key=self.record_key,
            partition_fields=self.partition_fields,
            ordering_field=self.ordering_field,
            table_type=self.table_type,
            hudi_options=self.hudi_options,
        )


def _imported(reference: str) -> Callable[..., Any]:
    module, _, name = reference.partition(":")
    if not name:
        raise ValueError(f"transform {reference!r} must be module:function")
    function = getattr(importlib.import_module(module), name)
    if not callable(function):
        raise ValueError(f"transform {reference!r} is not callable")
    return function  # type: ignore[no-any-return]


def table_definitions(tables: list[HudiTableModel], root: str | None) -> dg.Definitions:
    """The assets, checks, jobs, schedules and sensors of `tables` (sources among them by name)."""
    configs = {table.name: table.config(root) for table in tables}
    assets: list[Any] = []
    checks: list[dg.AssetChecksDefinition] = []
    jobs: list[dg.JobDefinition] = []
    schedules: list[dg.ScheduleDefinition] = []
    sensors: list[dg.SensorDefinition] = []
    for table in tables:
        config = configs[table.name]
        source = table.incremental_from or table.cdc_from
        if table.incremental_from and table.cdc_from:
            raise ValueError(f"table {table.name!r}: incremental_from or cdc_from, not both")
        if source is not None and source not in configs:
            raise ValueError(f"table {table.name!r} reads {source!r}, which is not a table of the component")
        settings = AssetSettings(
            automation_condition=dg.AutomationCondition.eager() if table.automation == "eager" else None
        )
        transform = _imported(table.transform) if table.transform else None
        if table.external:
            assets.append(
                hudi_observable_source_asset(key=table.name, table_path=config.path, group_name=table.group_name)
            )
        elif source is not None:
            factory = hudi_incremental_asset if table.incremental_from is not None else hudi_cdc_asset
            assets.append(
                factory(
                    name=table.name,
                    source=source,
                    source_path=configs[source].path,
                    target=config,
                    transform=transform,
                    group_name=table.group_name,
                    settings=settings,
                )
            )
        if table.checks:
            checks.extend(hudi_table_checks(asset_key=table.name, table_path=config.path))
        if table.maintenance is not None:
            job = hudi_maintenance_job(
                config,
                table.maintenance.services,
                table.maintenance.hudi_options,
                table_asset=table.name,
            )
            jobs.append(job)
            schedules.append(hudi_maintenance_schedule(job, table.maintenance.cron))
        if table.commit_sensor:
            consumers = [t.name for t in tables if table.name in (t.incremental_from, t.cdc_from)]
            if consumers:
                sensors.append(
                    hudi_commit_sensor(
                        name=f"{table.name}_commits",
                        table_path=config.path,
                        asset_selection=[dg.AssetKey(c) for c in consumers],
                        table_asset=table.name,
                    )
                )
    return dg.Definitions(assets=assets, asset_checks=checks, jobs=jobs, schedules=schedules, sensors=sensors)


class HudiTableComponent(dg.Component, dg.Model, dg.Resolvable):
    """One Hudi table: an observed external table or a table written by the project's assets, with
    its checks, maintenance schedule and commit sensor."""

    table: HudiTableModel

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        if self.table.incremental_from or self.table.cdc_from:
            raise ValueError("a table derived from another belongs in a HudiLakehouseComponent with its source")
        return table_definitions([self.table], None)


class HudiLakehouseComponent(dg.Component, dg.Model, dg.Resolvable):
    """Hudi tables under one root: sources, incremental and CDC tables derived from them, checks,
    maintenance schedules and commit sensors."""

    root: str | None = None
    tables: list[HudiTableModel]

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        return table_definitions(self.tables, self.root)
