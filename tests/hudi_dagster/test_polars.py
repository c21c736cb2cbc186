"""The Polars IO manager: DataFrames and LazyFrames round-trip, partitions replace, loads filter."""

from pathlib import Path

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from hudi_core import HudiTable
from hudi_dagster.io_manager.polars import HudiPolarsIOManager

DAILY = dg.DailyPartitionsDefinition(start_date="2025-01-01", end_date="2025-01-05")


def test_polars_round_trip_with_partitions(tmp_path: Path) -> None:
    manager = HudiPolarsIOManager(root_uri=str(tmp_path))

    @dg.asset(partitions_def=DAILY, metadata={"record_key": "id", "partition_expr": "day"})
    def events(context: AssetExecutionContext) -> pl.LazyFrame:
        count = int(context.run.tags.get("count", "2"))
        day = context.partition_key
        return pl.LazyFrame({"id": [f"{day}-{i}" for i in range(count)], "day": [day] * count, "v": list(range(count))})

    @dg.asset(partitions_def=DAILY, metadata={"partition_expr": "day"})
    def totals(events: pl.DataFrame) -> pl.DataFrame:
        return events.group_by("day").agg(pl.col("v").sum())

    for day in ("2025-01-01", "2025-01-02"):
        assert dg.materialize([events, totals], partition_key=day, resources={"io_manager": manager}).success
    rerun = dg.materialize(
        [events, totals], partition_key="2025-01-02", resources={"io_manager": manager}, tags={"count": "1"}
    )
    assert rerun.success
    stored = HudiTable(str(tmp_path / "events")).read(columns=["id"]).column("id").to_pylist()
    assert sorted(stored) == ["2025-01-01-0", "2025-01-01-1", "2025-01-02-0"]
    loaded = pl.from_arrow(HudiTable(str(tmp_path / "totals")).read(columns=["day", "v"])).sort("day")
    assert loaded.to_dicts() == [{"day": "2025-01-01", "v": 1}, {"day": "2025-01-02", "v": 0}]
