"""Observable source assets for Hudi tables written outside Dagster."""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists


def latest_data_commit(table_path: str) -> str | None:
    """The requested time of the latest completed data commit (table services excluded)."""
    timeline = HudiTable(table_path).timeline
    commits = [i for i in timeline.completed_data_instants() if not timeline.is_table_service(i)]
    if not commits:
        return None
    return max(commits, key=timeline.completion_order_key).requested_time


def hudi_observable_source_asset(
    *, key: dg.AssetKey | str | Sequence[str], table_path: str, group_name: str | None = None
) -> dg.SourceAsset:
    """An external Hudi table as a source asset whose data version is its latest data commit."""

    @dg.observable_source_asset(
        key=dg.AssetKey.from_coercible(key),
        group_name=group_name,
        metadata={"dagster/uri": table_path},
        description=f"Hudi table at {table_path}, written outside Dagster",
    )
    def _observe() -> dg.DataVersion:
        if not table_exists(table_path):
            return dg.DataVersion("absent")
        return dg.DataVersion(latest_data_commit(table_path) or "empty")

    return _observe
