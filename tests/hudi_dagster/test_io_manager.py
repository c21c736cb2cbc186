"""The Arrow/pandas IO managers: write modes, partitions, loads, metadata, bad output."""

from pathlib import Path
from typing import Any

import dagster as dg
import pandas as pd
import pyarrow as pa
import pytest
from dagster import AssetExecutionContext

from hudi_core import HudiTable
from hudi_dagster import HudiPandasIOManager, HudiPyArrowIOManager
from tests import hudi_rs

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("day", pa.string()), ("v", pa.float64())])


def rows(ids: list[int], day: str = "2025-01-01", ts: int = 1, v: float = 1.0) -> pa.Table:
    return pa.table(
        {"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids), "day": [day] * len(ids), "v": [v] * len(ids)},
        schema=SCHEMA,
    )


def snapshot(path: Path) -> dict[str, tuple[Any, ...]]:
    table = HudiTable(str(path)).read(columns=["id", "ts", "day", "v"])
    return {r["id"]: (r["ts"], r["day"], r["v"]) for r in table.to_pylist()}


def materialization(result: dg.ExecuteInProcessResult, key: str) -> dg.AssetMaterialization:
    events = result.asset_materializations_for_node(key)
    assert events, f"no materialization of {key}"
    return events[-1]


def test_upsert_is_idempotent_and_reports_metadata(tmp_path: Path) -> None:
    batch = {"data": rows([1, 2, 3])}

    @dg.asset(metadata={"record_key": "id", "ordering_field": "ts"})
    def trips() -> pa.Table:
        return batch["data"]

    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    first = dg.materialize([trips], resources={"io_manager": manager})
    second = dg.materialize([trips], resources={"io_manager": manager})
    assert first.success and second.success
    assert len(snapshot(tmp_path / "trips")) == 3  # the second upsert of the same rows changed nothing

    metadata = materialization(second, "trips").metadata
    table = HudiTable(str(tmp_path / "trips"))
    latest = table.timeline.completed()[-1]
    assert metadata["hudi/commit_instant"].value == latest.requested_time
    assert metadata["hudi/completion_time"].value == latest.completion_time
    assert metadata["hudi/rows_updated"].value == 3 and metadata["hudi/rows_inserted"].value == 0
    assert metadata["dagster/row_count"].value == 3
    assert metadata["dagster/table_name"].value == "trips"
    assert metadata["dagster/uri"].value == str(tmp_path / "trips")
    assert metadata["hudi/files_written"].value >= 1
    assert [c.name for c in metadata["dagster/column_schema"].value.columns] == ["id", "ts", "day", "v"]
    assert materialization(second, "trips").tags["dagster/data_version"] == latest.requested_time

    batch["data"] = rows([3, 4], ts=2, v=9.0)
    third = dg.materialize([trips], resources={"io_manager": manager})
    assert (
        materialization(third, "trips").metadata["hudi/rows_inserted"].value,
        materialization(third, "trips").metadata["hudi/rows_updated"].value,
    ) == (1, 1)
    assert snapshot(tmp_path / "trips")["k3"] == (2, "2025-01-01", 9.0)
    assert sorted(r["id"] for r in hudi_rs.snapshot(str(tmp_path / "trips")).to_pylist()) == ["k1", "k2", "k3", "k4"]


@pytest.mark.parametrize("mode", ["insert", "bulk_insert", "insert_overwrite", "insert_overwrite_table", "delete"])
def test_write_modes_from_config_and_metadata(mode: str, tmp_path: Path) -> None:
    data = {"value": rows([1, 2, 3])}

    @dg.asset(metadata={"record_key": "id", "partition_expr": "day"})
    def events() -> pa.Table:
        return data["value"]

    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    assert dg.materialize([events], resources={"io_manager": manager}).success

    data["value"] = pa.concat_tables([rows([3], ts=2, v=5.0), rows([9], day="2025-01-02")])
    configured = HudiPyArrowIOManager(root_uri=str(tmp_path), write_mode=mode)
    assert dg.materialize([events], resources={"io_manager": configured}).success
    stored = snapshot(tmp_path / "events")
    expected = {
        "insert": {"k1", "k2", "k3", "k9"},
        "bulk_insert": {"k1", "k2", "k3", "k9"},
        "insert_overwrite": {"k3", "k9"},
        "insert_overwrite_table": {"k3", "k9"},
        "delete": {"k1", "k2"},
    }[mode]
    assert set(stored) == expected


def test_output_metadata_overrides_definition_metadata(tmp_path: Path) -> None:
    @dg.asset(metadata={"record_key": "id", "write_mode": "upsert"})
    def events() -> dg.Output[pa.Table]:
        return dg.Output(rows([1]), metadata={"write_mode": "delete"})

    @dg.asset(metadata={"record_key": "id"}, key="events")
    def seed() -> pa.Table:
        return rows([1, 2])

    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    assert dg.materialize([seed], resources={"io_manager": manager}).success
    assert dg.materialize([events], resources={"io_manager": manager}).success
    assert set(snapshot(tmp_path / "events")) == {"k2"}


DAILY = dg.DailyPartitionsDefinition(start_date="2025-01-01", end_date="2025-01-05")


def test_daily_partitions_insert_overwrite_one_partition_and_load_filters(tmp_path: Path) -> None:
    version = {"v": 1.0}

    @dg.asset(
        partitions_def=DAILY,
        metadata={"record_key": "id", "partition_expr": "day", "write_mode": "insert_overwrite"},
    )
    def daily(context: AssetExecutionContext) -> pa.Table:
        day = context.partition_key
        n = int(day[-1])
        return rows(list(range(n * 10, n * 10 + n)), day=day, v=version["v"])

    @dg.asset(partitions_def=DAILY, ins={"daily": dg.AssetIn(metadata={"columns": ["id", "v"]})})
    def downstream(daily: pa.Table) -> None:
        seen["columns"] = daily.column_names
        seen["ids"] = sorted(daily.column("id").to_pylist())

    seen: dict[str, Any] = {}
    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    for day in ["2025-01-01", "2025-01-02", "2025-01-03"]:
        assert dg.materialize([daily], partition_key=day, resources={"io_manager": manager}).success
    version["v"] = 2.0
    assert dg.materialize([daily], partition_key="2025-01-02", resources={"io_manager": manager}).success
    stored = snapshot(tmp_path / "daily")
    assert {k: v[2] for k, v in stored.items()} == {
        "k10": 1.0,
        "k20": 2.0,
        "k21": 2.0,
        "k30": 1.0,
        "k31": 1.0,
        "k32": 1.0,
    }

    result = dg.materialize(
        [daily, downstream],
        partition_key="2025-01-03",
        resources={"io_manager": manager},
        selection=[downstream.key],
    )
    assert result.success
    assert seen == {"columns": ["id", "v"], "ids": ["k30", "k31", "k32"]}


def test_rows_outside_the_partition_are_refused_and_the_table_is_unchanged(tmp_path: Path) -> None:
    @dg.asset(partitions_def=DAILY, metadata={"record_key": "id", "partition_expr": "day"})
    def daily(context: AssetExecutionContext) -> pa.Table:
        return pa.concat_tables([rows([1], day=context.partition_key), rows([2], day="2025-01-04")])

    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    with pytest.raises(ValueError, match="fall outside the run's partition"):
        dg.materialize([daily], partition_key="2025-01-01", resources={"io_manager": manager})
    assert not (tmp_path / "daily").exists()


STATIC = dg.StaticPartitionsDefinition(["sf", "nyc"])
MULTI = dg.MultiPartitionsDefinition({"day": DAILY, "city": STATIC})


def test_static_and_multi_partitions(tmp_path: Path) -> None:
    @dg.asset(partitions_def=STATIC, metadata={"record_key": "id", "partition_expr": "city"})
    def by_city(context: AssetExecutionContext) -> pa.Table:
        return (
            rows([1, 2])
            .append_column("city", pa.array([context.partition_key] * 2))
            .set_column(0, "id", pa.array([f"{context.partition_key}-1", f"{context.partition_key}-2"]))
        )

    @dg.asset(
        partitions_def=MULTI,
        metadata={"record_key": "id", "partition_expr": {"day": "day", "city": "city"}},
    )
    def by_day_city(context: AssetExecutionContext) -> pd.DataFrame:
        keys = context.partition_key.keys_by_dimension  # type: ignore[attr-defined]
        return pd.DataFrame({"id": [f"{keys['city']}-{keys['day']}"], "day": [keys["day"]], "city": [keys["city"]]})

    arrow = HudiPyArrowIOManager(root_uri=str(tmp_path))
    for city in ["sf", "nyc"]:
        assert dg.materialize([by_city], partition_key=city, resources={"io_manager": arrow}).success
    assert HudiTable(str(tmp_path / "by_city")).read().num_rows == 4
    assert sorted(p.name for p in (tmp_path / "by_city").iterdir() if not p.name.startswith(".")) == ["nyc", "sf"]

    pandas_manager = HudiPandasIOManager(root_uri=str(tmp_path))
    for key in ["city=sf|day=2025-01-01", "city=nyc|day=2025-01-02"]:
        partition = dg.MultiPartitionKey({"day": key.split("day=")[1], "city": key.split("|")[0][5:]})
        assert dg.materialize([by_day_city], partition_key=partition, resources={"io_manager": pandas_manager}).success

    @dg.asset(partitions_def=MULTI, ins={"by_day_city": dg.AssetIn()})
    def reader(by_day_city: pd.DataFrame) -> None:
        loaded["ids"] = sorted(by_day_city["id"])

    loaded: dict[str, Any] = {}
    partition = dg.MultiPartitionKey({"day": "2025-01-02", "city": "nyc"})
    assert dg.materialize(
        [by_day_city, reader], partition_key=partition, resources={"io_manager": pandas_manager}, selection=[reader.key]
    ).success
    assert loaded == {"ids": ["nyc-2025-01-02"]}


def test_table_resource_writes_and_loads_from_an_op(tmp_path: Path) -> None:
    from hudi_dagster import HudiTableConfig, HudiTableResource, WriteMode  # noqa: PLC0415

    @dg.op
    def load_and_fix(table: HudiTableResource) -> int:
        first = table.write(rows([1, 2, 3]), WriteMode.UPSERT, checkpoint="offset-3", checkpoint_identifier="feed")
        second = table.write(rows([2], ts=2, v=7.0), "upsert", checkpoint="offset-4", checkpoint_identifier="feed")
        assert (first.inserts, second.updates) == (3, 1)
        return int(table.load().read().num_rows)

    @dg.job
    def maintain() -> None:
        load_and_fix()

    config = HudiTableConfig(
        path=str(tmp_path / "orders"),
        record_key=["id"],
        partition_fields=["day"],
        ordering_field="ts",
        table_type="MERGE_ON_READ",
        hudi_options={"hoodie.metadata.enable": "false"},
    )
    result = maintain.execute_in_process(resources={"table": HudiTableResource(table=config)})
    assert result.success and result.output_for_node("load_and_fix") == 3
    table = HudiTable(config.path)
    assert table.table_config.table_type.value == "MERGE_ON_READ" and table.table_config.name == "orders"
    assert table.latest_checkpoint("feed") == "offset-4"
    assert snapshot(tmp_path / "orders")["k2"] == (2, "2025-01-01", 7.0)
