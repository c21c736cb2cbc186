"""Definitions for the crash test: a silver asset counting how often each key is processed.

Its runs execute in process, as Hudi jobs should (see the README), so a crash point kills the run itself.
"""

import os
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc
from dagster import AssetExecutionContext

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_dagster import HudiTableConfig, hudi_incremental_asset

ROOT = Path(os.environ.get("HUDI_FACTORY_ROOT", "."))
TARGET = HudiTableConfig(path=str(ROOT / "silver_counts"), record_key=["id"], partition_fields=["city"])


def count_visits(context: AssetExecutionContext, changes: pa.Table) -> pa.Table:
    seen = {}
    if table_exists(TARGET.path):
        stored = HudiTable(TARGET.path).read(columns=["id", "seen"])
        seen = dict(zip(stored["id"].to_pylist(), stored["seen"].to_pylist(), strict=True))
    counts = pa.array([seen.get(k, 0) + 1 for k in changes["id"].to_pylist()], pa.int64())
    return (
        changes.select(["id", "city"])
        .append_column("seen", counts)
        .append_column("ts", pc.cast(changes["ts"], pa.int64()))
    )


defs = dg.Definitions(
    assets=[
        hudi_incremental_asset(
            name="silver_counts",
            source="bronze",
            source_path=str(ROOT / "bronze"),
            target=TARGET,
            transform=count_visits,
        )
    ],
    executor=dg.in_process_executor,
)
