"""The example lakehouse as Airflow DAGs, mirroring the Dagster one (`pipelines/lakehouse.py`):

- `hudi_lakehouse` (daily): the day's ride events land as Parquet, are upserted into bronze
  (Merge-on-Read, change feed on), silver takes bronze's new commits only (completed rides, fare
  per km), and a CDC mirror applies bronze's change feed. Writers emit their tables' assets.
- `hudi_gold` (scheduled on silver's asset): rides, revenue and average fare per city and day.
- `hudi_maintenance` (nightly): compaction, clustering, clean, archive and a savepoint of bronze.

Tables live under `$HUDI_AIRFLOW_LAKEHOUSE_ROOT` (default `.lakehouse-airflow/` in the repository);
`$HUDI_DEMO_ROWS` sizes a day (default 20,000 rides).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from airflow.sdk import DAG, task

from hudi_airflow import assets
from hudi_airflow.hook import HudiHook
from hudi_airflow.operators import (
    HudiCdcOperator,
    HudiIncrementalOperator,
    HudiTableServiceOperator,
    HudiWriteOperator,
)
from pipelines.rides import rides_for_day

ROOT = Path(os.environ.get("HUDI_AIRFLOW_LAKEHOUSE_ROOT", Path(__file__).resolve().parents[2] / ".lakehouse-airflow"))
ROWS_PER_DAY = int(os.environ.get("HUDI_DEMO_ROWS", "20000"))
START = datetime(2025, 1, 1, tzinfo=UTC)

LANDING = str(ROOT / "landing")
BRONZE = str(ROOT / "bronze_rides")
SILVER = str(ROOT / "silver_rides")
GOLD = str(ROOT / "gold_city_daily")
MIRROR = str(ROOT / "bronze_rides_mirror")

RIDE_KEYS = {
    "hoodie.datasource.write.recordkey.field": "ride_id",
    "hoodie.datasource.write.partitionpath.field": "ride_date",
    "hoodie.datasource.write.precombine.field": "ts",
}
BRONZE_OPTIONS = {
    **RIDE_KEYS,
    "hoodie.table.name": "bronze_rides",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.table.cdc.enabled": "true",
}
SILVER_OPTIONS = {**RIDE_KEYS, "hoodie.table.name": "silver_rides"}
MIRROR_OPTIONS = {**RIDE_KEYS, "hoodie.table.name": "bronze_rides_mirror"}
GOLD_OPTIONS = {
    "hoodie.table.name": "gold_city_daily",
    "hoodie.datasource.write.recordkey.field": "ride_date,city",
}


def clean_rides(changes: pa.Table) -> pa.Table:
    """Completed rides with their fare per km (bronze's meta columns dropped)."""
    rows = changes.filter(pc.equal(changes.column("status"), "completed"))
    rows = rows.drop_columns([n for n in rows.column_names if n.startswith("_hoodie_")])
    per_km = pc.round(pc.divide(rows.column("fare"), pc.max_element_wise(rows.column("distance_km"), 0.1)), 2)
    return rows.append_column("fare_per_km", per_km)


with DAG(
    dag_id="hudi_lakehouse",
    schedule="@daily",
    start_date=START,
    catchup=False,
    max_active_runs=1,
    tags=["hudi"],
    doc_md=__doc__,
):

    @task
    def land_rides(ds: str | None = None) -> str:
        """The day's ride events as a Parquet file in the landing folder."""
        assert ds is not None
        Path(LANDING).mkdir(parents=True, exist_ok=True)
        path = f"{LANDING}/rides_{ds}.parquet"
        pq.write_table(rides_for_day(ds, ROWS_PER_DAY), path)
        return path

    bronze = HudiWriteOperator(
        task_id="bronze_rides",
        table_path=BRONZE,
        source="{{ ti.xcom_pull(task_ids='land_rides') }}",
        operation="upsert",
        hudi_options=BRONZE_OPTIONS,
    )
    silver = HudiIncrementalOperator(
        task_id="silver_rides",
        source_path=BRONZE,
        table_path=SILVER,
        transform=clean_rides,
        hudi_options=SILVER_OPTIONS,
    )
    mirror = HudiCdcOperator(
        task_id="bronze_rides_mirror",
        source_path=BRONZE,
        table_path=MIRROR,
        hudi_options=MIRROR_OPTIONS,
    )
    land_rides() >> bronze >> [silver, mirror]


with DAG(
    dag_id="hudi_gold",
    schedule=[assets.hudi_asset(SILVER)],  # runs after each write of silver
    start_date=START,
    catchup=False,
    tags=["hudi"],
):

    @task(outlets=[assets.hudi_asset(GOLD)])
    def gold_city_daily() -> dict[str, object]:
        """Rides, revenue and average fare per city and day, rewritten from silver."""
        rides = HudiHook(SILVER).table().read(columns=["ride_date", "city", "fare"])
        daily = rides.group_by(["ride_date", "city"]).aggregate([("fare", "count"), ("fare", "sum"), ("fare", "mean")])
        gold = pa.table(
            {
                "ride_date": daily.column("ride_date"),
                "city": daily.column("city"),
                "rides": daily.column("fare_count"),
                "revenue": pc.round(daily.column("fare_sum"), 2),
                "avg_fare": pc.round(daily.column("fare_mean"), 2),
            }
        )
        result = HudiHook(GOLD, GOLD_OPTIONS).write(gold, "insert_overwrite_table")
        return {"instant_time": result.instant_time, "rows": gold.num_rows}

    gold_city_daily()


with DAG(
    dag_id="hudi_maintenance",
    schedule="0 3 * * *",
    start_date=START,
    catchup=False,
    max_active_runs=1,
    tags=["hudi", "maintenance"],
):
    previous = None
    for service in ("compaction", "clustering", "clean", "archive", "savepoint"):
        step = HudiTableServiceOperator(
            task_id=f"bronze_{service}",
            table_path=BRONZE,
            service=service,
            # Keep every commit cleanable but the last few, so a nightly run has work to show.
            hudi_options={"hoodie.compact.inline.max.delta.commits": "1", "hoodie.clean.commits.retained": "2"},
        )
        if previous is not None:
            previous >> step
        previous = step
