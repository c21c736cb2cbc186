"""Incremental and CDC downstream assets: windows from the target's checkpoint, exactly once."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc
from dagster import AssetExecutionContext

from hudi_core import HudiTable, write_hudi
from hudi_core.lifecycle.markers import Markers
from hudi_dagster import (
    HudiTableConfig,
    cdc_mirror_rows,
    hudi_cdc_asset,
    hudi_incremental_asset,
    hudi_service_op,
    pool_for,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCE_OPTIONS = {
    "hoodie.table.name": "source",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.table.cdc.enabled": "true",
}


def batch(ids: range, ts: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i}" for i in ids],
            "ts": [ts] * len(ids),
            "city": ["sf" if i % 2 else "nyc" for i in ids],
            "fare": [float(i * ts) for i in ids],
        }
    )


def target(tmp_path: Path, name: str = "silver") -> HudiTableConfig:
    return HudiTableConfig(path=str(tmp_path / name), record_key=["id"], partition_fields=["city"], ordering_field="ts")


def test_incremental_asset_reads_only_new_commits(tmp_path: Path) -> None:
    source = str(tmp_path / "bronze")
    write_hudi(source, batch(range(10), 1), SOURCE_OPTIONS)
    seen: list[int] = []

    def double(context: AssetExecutionContext, changes: pa.Table) -> pa.Table:
        seen.append(changes.num_rows)
        return changes.set_column(changes.schema.get_field_index("fare"), "fare", pc.multiply(changes["fare"], 2))

    silver = hudi_incremental_asset(
        name="silver", source="bronze", source_path=source, target=target(tmp_path), transform=double
    )
    [reference] = next(iter(silver.specs)).metadata["dagster/code_references"].code_references
    assert (reference.file_path, reference.line_number) == (__file__, double.__code__.co_firstlineno)
    first = dg.materialize([silver])
    write_hudi(source, batch(range(8, 12), 2), {**SOURCE_OPTIONS, "hoodie.datasource.write.operation": "upsert"})
    second = dg.materialize([silver])
    third = dg.materialize([silver])  # nothing new
    assert seen == [10, 4]
    stored = {r["id"]: r["fare"] for r in HudiTable(target(tmp_path).path).read().to_pylist()}
    assert len(stored) == 12 and stored["k9"] == 36.0 and stored["k0"] == 0.0 and stored["k11"] == 44.0
    metadata = second.asset_materializations_for_node("silver")[0].metadata
    bronze = HudiTable(source).timeline.completed()
    assert metadata["hudi/window_start"].value == bronze[0].completion_time
    assert metadata["hudi/window_end"].value == bronze[1].completion_time
    assert metadata["hudi/new_commits"].value == 1
    # Nothing new: no materialization (the asset page keeps the last write's fields), an observation.
    assert third.success and third.asset_materializations_for_node("silver") == []
    observed = [e.event_specific_data.asset_observation for e in third.get_asset_observation_events()]
    assert [o.metadata["hudi/new_commits"].value for o in observed] == [0]
    extra = HudiTable(target(tmp_path).path).timeline
    assert extra.commit_metadata(extra.completed_data_instants()[-1]).extra_metadata["dagster/run_id"] == second.run_id
    assert HudiTable(target(tmp_path).path).latest_checkpoint("silver") == bronze[1].completion_time
    assert first.success


def test_killed_after_commit_before_materialization_neither_skips_nor_repeats(tmp_path: Path) -> None:
    """The run dies right after the silver commit (SIGKILL, before Dagster records the
    materialization); the rerun starts from the checkpoint the commit stored."""
    source = str(tmp_path / "bronze")
    write_hudi(source, batch(range(10), 1), SOURCE_OPTIONS)
    env = {**os.environ, "HUDI_FACTORY_ROOT": str(tmp_path), "DAGSTER_HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    command = [
        sys.executable,
        "-m",
        "dagster",
        "asset",
        "materialize",
        "-m",
        "tests.hudi_dagster.factory_defs",
        "--select",
        "silver_counts",
    ]
    crashed = subprocess.run(
        command,
        env={**env, "HUDI_CRASH_AT": "write.after_complete"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr[-3000:]
    # Killed at `write.after_complete`: the commit landed with its checkpoint, its markers not yet removed.
    silver = HudiTable(str(tmp_path / "silver_counts"))
    assert silver.read().num_rows == 10
    [landed] = silver.timeline.completed()
    assert Markers(silver.storage, landed.requested_time).data_files()
    bronze = HudiTable(source).timeline.completed()
    assert silver.latest_checkpoint("silver_counts") == bronze[0].completion_time
    with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:
        [run] = instance.get_runs()
        assert run.status is dg.DagsterRunStatus.STARTED  # the run died with its process
        assert instance.get_latest_materialization_event(dg.AssetKey("silver_counts")) is None
    write_hudi(source, batch(range(10, 15), 2), {**SOURCE_OPTIONS, "hoodie.datasource.write.operation": "upsert"})
    rerun = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    rows = HudiTable(str(tmp_path / "silver_counts")).read().to_pylist()
    # `seen` counts how often each key was processed: once each, none missing.
    assert sorted(r["id"] for r in rows) == sorted(f"k{i}" for i in range(15))
    assert {r["seen"] for r in rows} == {1}
    with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:
        assert [r.status for r in instance.get_runs()] == [dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.STARTED]
        assert instance.get_latest_materialization_event(dg.AssetKey("silver_counts")) is not None


def test_cdc_asset_mirrors_inserts_updates_and_deletes(tmp_path: Path) -> None:
    source = str(tmp_path / "bronze")
    write_hudi(source, batch(range(6), 1), SOURCE_OPTIONS)
    mirror = hudi_cdc_asset(name="mirror", source="bronze", source_path=source, target=target(tmp_path, "mirror"))
    assert dg.materialize([mirror]).success
    write_hudi(source, batch(range(4, 8), 2), {**SOURCE_OPTIONS, "hoodie.datasource.write.operation": "upsert"})
    write_hudi(source, batch(range(0, 2), 3), {**SOURCE_OPTIONS, "hoodie.datasource.write.operation": "delete"})
    result = dg.materialize([mirror])
    assert result.asset_materializations_for_node("mirror")[0].metadata["hudi/new_commits"].value == 2
    expected = {r["id"]: r["fare"] for r in HudiTable(source).read().to_pylist()}
    actual = {r["id"]: r["fare"] for r in HudiTable(str(tmp_path / "mirror")).read().to_pylist()}
    assert actual == expected and "k0" not in actual and actual["k7"] == 14.0
    lineage = result.asset_materializations_for_node("mirror")[0].metadata["dagster/column_lineage"].value
    assert lineage.deps_by_column["fare"] == [dg.TableColumnDep(asset_key=dg.AssetKey("bronze"), column_name="fare")]
    # The mirror's columns are its source's: deletes leave no `_hoodie_is_deleted` column behind.
    assert HudiTable(str(tmp_path / "mirror")).schema.names == HudiTable(source).schema.names


def test_optimistic_tables_need_no_writer_pool(tmp_path: Path) -> None:
    single = HudiTableConfig(path=str(tmp_path / "silver"), record_key=["id"])
    occ = HudiTableConfig(
        path=str(tmp_path / "silver"),
        record_key=["id"],
        hudi_options={
            "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
            "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
        },
    )
    assert pool_for(single) == "hudi:silver"
    assert pool_for(occ) is None
    assert hudi_service_op(occ, "clean").pool is None


def test_the_cdc_mirror_keeps_the_last_change_of_each_key_in_feed_order() -> None:
    """A replacing write deletes a key and writes it again (Apache Hudi's CDC); the mirror must end
    with the insert even when its ordering value is the lower one. A key moved to another
    partition is deleted there and inserted here: both changes stay."""
    image = pa.struct([("id", pa.string()), ("city", pa.string()), ("ts", pa.int64())])
    rows = [
        ("d", {"id": "a", "city": "sf", "ts": 10}, None),
        ("i", None, {"id": "a", "city": "sf", "ts": 5}),
        ("d", {"id": "b", "city": "sf", "ts": 1}, None),
        ("i", None, {"id": "b", "city": "nyc", "ts": 2}),
    ]
    changes = pa.table(
        {
            "op": [op for op, _, _ in rows],
            "ts_ms": ["1"] * len(rows),
            "before": pa.array([before for _, before, _ in rows], image),
            "after": pa.array([after for _, _, after in rows], image),
        }
    )
    mirrored = cdc_mirror_rows(changes, ["id", "city"]).to_pylist()
    assert mirrored == [
        {"id": "a", "city": "sf", "ts": 5, "_hoodie_is_deleted": False},
        {"id": "b", "city": "sf", "ts": 1, "_hoodie_is_deleted": True},
        {"id": "b", "city": "nyc", "ts": 2, "_hoodie_is_deleted": False},
    ]
    assert len(cdc_mirror_rows(changes).to_pylist()) == 4, "without keys every change stays"


def test_factory_assets_take_declarative_automation_and_ownership(tmp_path: Path) -> None:
    """`AssetSettings` reaches the asset: an eager silver is requested when bronze materializes."""
    from hudi_dagster import AssetSettings  # noqa: PLC0415

    source = str(tmp_path / "bronze")

    @dg.asset(name="bronze")
    def bronze() -> None:
        write_hudi(source, batch(range(3), 1), SOURCE_OPTIONS)

    settings = AssetSettings(
        automation_condition=dg.AutomationCondition.eager(),
        code_version="2",
        owners=["team:data"],
        tags={"tier": "silver"},
        check_specs=[dg.AssetCheckSpec("fresh", asset="silver")],
    )
    silver = hudi_incremental_asset(
        name="silver", source="bronze", source_path=source, target=target(tmp_path), settings=settings
    )
    spec = next(iter(silver.specs))
    assert (spec.code_version, list(spec.owners), spec.tags["tier"]) == ("2", ["team:data"], "silver")
    assert [c.name for c in silver.check_specs] == ["fresh"]
    with dg.instance_for_test() as instance:
        first = dg.evaluate_automation_conditions(defs=[bronze, silver], instance=instance)
        assert first.total_requested == 0  # bronze has never materialized
        assert dg.materialize([bronze], instance=instance).success
        second = dg.evaluate_automation_conditions(defs=[bronze, silver], instance=instance, cursor=first.cursor)
        assert second.total_requested == 1 and second.get_num_requested(dg.AssetKey("silver")) == 1
