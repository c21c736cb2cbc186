"""The example DAGs (`pipelines/airflow/lakehouse.py`) run by `dag.test()` on the session's SQLite
metadata database: the tables match a model of the rides and hudi-rs reads the same rows; writers
emit their tables' asset events, gold is scheduled on silver's asset, OpenLineage names the tables,
and the maintenance DAG compacts, cleans, archives and savepoints bronze."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_core import HudiTable
from tests import hudi_rs
from tests_airflow.conftest import openlineage_events

DAYS = ("2025-01-01", "2025-01-02")


def _sorted(table: pa.Table, columns: list[str]) -> list[dict[str, Any]]:
    return sorted(table.select(columns).to_pylist(), key=lambda row: row["ride_id"] if "ride_id" in row else str(row))


@pytest.fixture(scope="module")
def lakehouse() -> Any:
    from airflow.dag_processing.dagbag import DagBag  # noqa: PLC0415

    from pipelines.airflow import lakehouse  # noqa: PLC0415

    bag = DagBag(dag_folder=lakehouse.__file__)
    assert not bag.import_errors, bag.import_errors
    # Two days, then the first day again: its rides arrive twice, as updates into bronze's logs.
    for day in (*DAYS, DAYS[0]):
        run = bag.get_dag("hudi_lakehouse").test(logical_date=datetime.fromisoformat(day).replace(tzinfo=UTC))
        assert run.state == "success", f"hudi_lakehouse {day}: {run.state}"
    return bag, lakehouse


def test_tables_match_the_model_and_hudi_rs(lakehouse: Any) -> None:
    _, module = lakehouse
    from pipelines.rides import SCHEMA, rides_for_day  # noqa: PLC0415

    model = pa.concat_tables([rides_for_day(day, module.ROWS_PER_DAY) for day in DAYS])
    columns = SCHEMA.names
    assert _sorted(HudiTable(module.BRONZE).read(), columns) == _sorted(model, columns)
    assert _sorted(HudiTable(module.MIRROR).read(), columns) == _sorted(model, columns)
    silver_model = module.clean_rides(model)
    silver = HudiTable(module.SILVER).read()
    assert _sorted(silver, silver_model.column_names) == _sorted(silver_model, silver_model.column_names)
    for path in (module.BRONZE, module.SILVER, module.MIRROR):
        ours, theirs = HudiTable(path).read(), hudi_rs.snapshot(path)
        assert _sorted(theirs, columns) == _sorted(ours, columns), path


def test_consumers_commit_each_window_once_with_its_checkpoint(lakehouse: Any) -> None:
    _, module = lakehouse
    bronze = HudiTable(module.BRONZE)
    bronze_commits = [i for i in bronze.timeline.completed_data_instants() if not bronze.timeline.is_table_service(i)]
    assert len(bronze_commits) == 3
    for path, task in ((module.SILVER, "silver_rides"), (module.MIRROR, "bronze_rides_mirror")):
        table = HudiTable(path)
        commits = table.timeline.completed_data_instants()
        assert len(commits) == 3, path  # one per bronze commit: no window written twice
        newest = bronze.timeline.completion_order_key(bronze_commits[-1])
        assert table.latest_checkpoint(f"hudi_lakehouse.{task}") == newest


def test_writers_emit_asset_events_and_gold_follows_silver(lakehouse: Any) -> None:
    bag, module = lakehouse
    from airflow.models.asset import AssetDagRunQueue, AssetEvent, AssetModel  # noqa: PLC0415
    from airflow.utils.session import create_session  # noqa: PLC0415

    from hudi_airflow.assets import hudi_uri  # noqa: PLC0415

    with create_session() as session:
        events = {
            uri: [
                e.extra
                for e in session.query(AssetEvent)
                .join(AssetModel, AssetEvent.asset_id == AssetModel.id)
                .filter(AssetModel.uri == uri)
                .order_by(AssetEvent.id)
            ]
            for uri in (hudi_uri(module.BRONZE), hudi_uri(module.SILVER), hudi_uri(module.MIRROR))
        }
    for uri, extras in events.items():
        assert len(extras) == 3, uri
        assert all(extra["instant_time"] and extra["completion_time"] for extra in extras), extras
    assert [e["inserts"] for e in events[hudi_uri(module.BRONZE)]] == [module.ROWS_PER_DAY, module.ROWS_PER_DAY, 0]
    assert all(e["window_end"] for e in events[hudi_uri(module.SILVER)])

    with create_session() as session:  # what the scheduler starts: gold, for silver's new data
        queued = [(q.target_dag_id, q.asset.uri) for q in session.query(AssetDagRunQueue)]
    assert queued == [("hudi_gold", hudi_uri(module.SILVER))]
    assert bag.get_dag("hudi_gold").test().state == "success"
    silver = HudiTable(module.SILVER).read()
    gold = HudiTable(module.GOLD).read()
    assert pc.sum(gold.column("rides")).as_py() == silver.num_rows
    days_and_cities = zip(silver.column("ride_date").to_pylist(), silver.column("city").to_pylist(), strict=True)
    assert gold.num_rows == len(set(days_and_cities))


def test_openlineage_names_the_tables(lakehouse: Any) -> None:
    _, module = lakehouse
    complete = [e for e in openlineage_events() if e.get("eventType") == "COMPLETE"]
    by_task = {e["job"]["name"]: e for e in complete}
    silver = by_task["hudi_lakehouse.silver_rides"]
    assert [d["name"] for d in silver["inputs"]] == [module.BRONZE]
    assert [(d["namespace"], d["name"]) for d in silver["outputs"]] == [("file", module.SILVER)]
    bronze = by_task["hudi_lakehouse.bronze_rides"]
    assert [d["name"] for d in bronze["outputs"]] == [module.BRONZE]
    assert bronze["inputs"][0]["name"].startswith(module.LANDING)


def test_maintenance_dag_compacts_cleans_archives_and_savepoints(lakehouse: Any) -> None:
    bag, module = lakehouse
    before = HudiTable(module.BRONZE).read()
    run = bag.get_dag("hudi_maintenance").test()
    assert run.state == "success"
    from airflow.models.xcom import XComModel  # noqa: PLC0415
    from airflow.utils.session import create_session  # noqa: PLC0415

    with create_session() as session:
        results = {
            x.task_id: XComModel.deserialize_value(x)
            for x in session.query(XComModel).filter(
                XComModel.dag_id == "hudi_maintenance", XComModel.key == "return_value"
            )
        }
    assert results["bronze_compaction"]["ran"] and results["bronze_compaction"]["counts"]
    assert results["bronze_savepoint"]["ran"]
    table = HudiTable(module.BRONZE)
    assert table.savepoints()
    columns = [n for n in before.column_names if n != "_hoodie_file_name"]  # compaction rewrote the files
    assert _sorted(table.read(), columns) == _sorted(before, columns)
    assert all(not s.log_files for s in table.file_slices())  # compacted: base files only
