"""Partitioned assets replace exactly the run's partitions by default (as dagster-deltalake does).

A re-run that no longer produces a row removes it; other partitions stay as they were; an empty
output empties the run's partitions; `write_mode: upsert` keeps the old behaviour. Each partition
of a run records its own row count, and every commit names the Dagster run that made it.
"""

import datetime as dt
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest
from dagster import AssetExecutionContext

from hudi_core import HudiTable
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_dagster import HudiPyArrowIOManager
from tests import hudi_rs

DAILY = dg.DailyPartitionsDefinition(start_date="2025-01-01", end_date="2025-01-10")
SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("day", pa.string()), ("region", pa.string())])


def rows(day: str, ids: list[int], ts: int = 1) -> pa.Table:
    return pa.table(
        {
            "id": [f"{day}-{i}" for i in ids],
            "ts": [ts] * len(ids),
            "day": [day] * len(ids),
            "region": ["eu" if i % 2 else "us" for i in ids],
        },
        schema=SCHEMA,
    )


def ids(path: Path) -> list[str]:
    return sorted(HudiTable(str(path)).read(columns=["id"]).column("id").to_pylist())


def daily_asset(produced: dict[str, list[int]], metadata: dict[str, Any]) -> dg.AssetsDefinition:
    @dg.asset(partitions_def=DAILY, metadata=metadata, name="events")
    def events(context: AssetExecutionContext) -> pa.Table:
        days = [str(k) for k in context.partition_keys]
        return pa.concat_tables([rows(day, produced.get(day, [])) for day in days])

    return events


def run(
    asset: dg.AssetsDefinition, manager: HudiPyArrowIOManager, first: str, last: str | None = None
) -> dg.ExecuteInProcessResult:
    if last is None:
        return dg.materialize([asset], partition_key=first, resources={"io_manager": manager})
    tags = {"dagster/asset_partition_range_start": first, "dagster/asset_partition_range_end": last}
    return dg.materialize([asset], tags=tags, resources={"io_manager": manager})


def latest_commit(path: Path) -> CommitMetadata:
    table = HudiTable(str(path))
    timeline = table.timeline
    return timeline.commit_metadata(timeline.completed_data_instants()[-1])


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_rerun_replaces_the_partition_and_leaves_the_others(tmp_path: Path, table_type: str) -> None:
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path), table_type=table_type)
    metadata = {"record_key": "id", "partition_expr": "day", "ordering_field": "ts"}
    produced = {"2025-01-01": [1, 2, 3], "2025-01-02": [1, 2]}
    assert run(daily_asset(produced, metadata), manager, "2025-01-01").success
    assert run(daily_asset(produced, metadata), manager, "2025-01-02").success
    # The backfill re-run of day 1 no longer produces row 2.
    rerun = run(daily_asset({"2025-01-01": [1, 3]}, metadata), manager, "2025-01-01")
    assert rerun.success
    path = tmp_path / "events"
    expected = ["2025-01-01-1", "2025-01-01-3", "2025-01-02-1", "2025-01-02-2"]
    assert ids(path) == expected
    assert sorted(hudi_rs.snapshot(path).column("id").to_pylist()) == expected
    commit = latest_commit(path)
    assert commit.operation_type == "INSERT_OVERWRITE"
    assert commit.extra_metadata["dagster/run_id"] == rerun.run_id
    event = rerun.asset_materializations_for_node("events")[-1]
    assert event.metadata["dagster/partition_row_count"].value == 2


def test_empty_output_empties_the_run_partitions(tmp_path: Path) -> None:
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    metadata = {"record_key": "id", "partition_expr": "day"}
    produced = {"2025-01-01": [1, 2], "2025-01-02": [1], "2025-01-03": [1]}
    assert run(daily_asset(produced, metadata), manager, "2025-01-01", "2025-01-03").success
    # Day 2 produced nothing this time, day 3 fewer rows: one range run replaces both.
    result = run(daily_asset({"2025-01-03": [2]}, metadata), manager, "2025-01-02", "2025-01-03")
    assert result.success
    assert ids(tmp_path / "events") == ["2025-01-01-1", "2025-01-01-2", "2025-01-03-2"]
    counts = {
        event.partition: event.metadata["dagster/partition_row_count"].value
        for event in result.asset_materializations_for_node("events")
    }
    assert counts == {"2025-01-02": 0, "2025-01-03": 1}
    assert run(daily_asset({}, metadata), manager, "2025-01-01").success
    assert ids(tmp_path / "events") == ["2025-01-03-2"]


def test_upsert_stays_available_by_metadata(tmp_path: Path) -> None:
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    metadata = {"record_key": "id", "partition_expr": "day", "write_mode": "upsert"}
    assert run(daily_asset({"2025-01-01": [1, 2]}, metadata), manager, "2025-01-01").success
    assert run(daily_asset({"2025-01-01": [1]}, metadata), manager, "2025-01-01").success
    assert ids(tmp_path / "events") == ["2025-01-01-1", "2025-01-01-2"]
    assert latest_commit(tmp_path / "events").operation_type == "UPSERT"


def test_partitions_sharing_hudi_partitions_are_replaced_in_one_upsert(tmp_path: Path) -> None:
    """The table is partitioned by region, the asset by day: the re-run deletes the keys of its day
    it no longer produces, in the same commit as its upserts."""
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    metadata = {
        "record_key": "id",
        "partition_expr": "day",
        "hudi_options": {"hoodie.datasource.write.partitionpath.field": "region"},
    }
    assert run(daily_asset({"2025-01-01": [1, 2, 3]}, metadata), manager, "2025-01-01").success
    assert run(daily_asset({"2025-01-02": [1, 2]}, metadata), manager, "2025-01-02").success
    commits = len(HudiTable(str(tmp_path / "events")).timeline.completed_data_instants())
    assert run(daily_asset({"2025-01-01": [3]}, metadata), manager, "2025-01-01").success
    path = tmp_path / "events"
    assert ids(path) == ["2025-01-01-3", "2025-01-02-1", "2025-01-02-2"]
    assert len(HudiTable(str(path)).timeline.completed_data_instants()) == commits + 1
    assert latest_commit(path).operation_type == "UPSERT"
    assert sorted(hudi_rs.snapshot(path).column("id").to_pylist()) == ids(path)


def test_time_window_on_a_date_column(tmp_path: Path) -> None:
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))

    @dg.asset(partitions_def=DAILY, metadata={"record_key": "id", "partition_expr": "day"}, name="dated")
    def dated(context: AssetExecutionContext) -> pa.Table:
        day = dt.date.fromisoformat(context.partition_key)
        count = 1 if context.run.tags.get("again") else 2
        return pa.table({"id": [f"{day}-{i}" for i in range(count)], "day": pa.array([day] * count, pa.date32())})

    for key in ("2025-01-01", "2025-01-02"):
        assert dg.materialize([dated], partition_key=key, resources={"io_manager": manager}).success
    again = dg.materialize([dated], partition_key="2025-01-02", resources={"io_manager": manager}, tags={"again": "1"})
    assert again.success
    assert ids(tmp_path / "dated") == ["2025-01-01-0", "2025-01-01-1", "2025-01-02-0"]


def test_dynamic_partitions_and_dynamic_dimensions(tmp_path: Path) -> None:
    customers = dg.DynamicPartitionsDefinition(name="customers")
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))

    @dg.asset(partitions_def=customers, metadata={"record_key": "id", "partition_expr": "customer"})
    def orders(context: AssetExecutionContext) -> pa.Table:
        count = int(context.run.tags.get("count", "2"))
        return pa.table(
            {"id": [f"{context.partition_key}-{i}" for i in range(count)], "customer": [context.partition_key] * count}
        )

    by_day = dg.MultiPartitionsDefinition({"day": DAILY, "customer": customers})

    @dg.asset(
        partitions_def=by_day, metadata={"record_key": "id", "partition_expr": {"day": "day", "customer": "customer"}}
    )
    def visits(context: AssetExecutionContext) -> pa.Table:
        keys = context.partition_key.keys_by_dimension  # type: ignore[attr-defined]
        return pa.table(
            {"id": [f"{keys['customer']}-{keys['day']}"], "day": [keys["day"]], "customer": [keys["customer"]]}
        )

    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("customers", ["acme", "globex"])
        for customer in ("acme", "globex"):
            assert dg.materialize(
                [orders], partition_key=customer, instance=instance, resources={"io_manager": manager}
            ).success
        again = dg.materialize(
            [orders], partition_key="acme", instance=instance, resources={"io_manager": manager}, tags={"count": "1"}
        )
        assert again.success
        assert ids(tmp_path / "orders") == ["acme-0", "globex-0", "globex-1"]
        key = dg.MultiPartitionKey({"day": "2025-01-02", "customer": "globex"})
        assert dg.materialize([visits], partition_key=key, instance=instance, resources={"io_manager": manager}).success
        assert ids(tmp_path / "visits") == ["globex-2025-01-02"]


def test_keyless_assets_replace_instead_of_appending(tmp_path: Path) -> None:
    """No record key: the table's keys are generated; a re-run of an unpartitioned asset replaces the
    table, a partitioned one its partitions."""
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))

    @dg.asset
    def lookup() -> pa.Table:
        return pa.table({"code": ["a", "b"], "label": ["A", "B"]})

    for _ in range(2):
        assert dg.materialize([lookup], resources={"io_manager": manager}).success
    table = HudiTable(str(tmp_path / "lookup"))
    assert sorted(table.read(columns=["code"]).column("code").to_pylist()) == ["a", "b"]
    assert "hoodie.table.recordkey.fields" not in table.table_config.raw
    assert sorted(hudi_rs.snapshot(tmp_path / "lookup").column("code").to_pylist()) == ["a", "b"]

    produced = {"2025-01-01": [1, 2], "2025-01-02": [1]}
    assert run(daily_asset(produced, {"partition_expr": "day"}), manager, "2025-01-01", "2025-01-02").success
    assert run(daily_asset({"2025-01-01": [2]}, {"partition_expr": "day"}), manager, "2025-01-01").success
    assert ids(tmp_path / "events") == ["2025-01-01-2", "2025-01-02-1"]
