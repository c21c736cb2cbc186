"""The example lakehouse: ride events -> bronze (MoR, daily partitions) -> silver (incremental) ->
gold (aggregates), a CDC mirror of bronze, maintenance, sensors and checks, all on local Spark.

`build_definitions(root)` puts every table under `root`; `pipelines.definitions` loads it for
`dagster dev` (root `$HUDI_LAKEHOUSE_ROOT`, default `.lakehouse/` in the repository).
"""

import os
import warnings
from pathlib import Path

import dagster as dg
from dagster import AssetExecutionContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf

from hudi_dagster import (
    HudiTableConfig,
    SparkResource,
    hudi_asset_job,
    hudi_cdc_asset,
    hudi_commit_sensor,
    hudi_incremental_asset,
    hudi_maintenance_job,
    hudi_maintenance_schedule,
    hudi_observable_source_asset,
    hudi_table_checks,
)
from hudi_dagster.io_manager.spark import HudiSparkIOManager
from pipelines.rides import rides_for_day

DAYS = dg.DailyPartitionsDefinition(start_date="2025-01-01", end_date="2025-01-15")
SINGLE_RUN = dg.BackfillPolicy.single_run()  # a backfill of many days is one run and one commit
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.shuffle.partitions": "4", "spark.default.parallelism": "2"}
DEFAULT_ROWS = 200_000
DEFAULT_DAYS = 4


def demo_rows_per_day() -> int:
    """`HUDI_DEMO_ROWS` spread over the demo's days."""
    return max(1, int(os.environ.get("HUDI_DEMO_ROWS", DEFAULT_ROWS)) // DEFAULT_DAYS)


def default_root() -> Path:
    return Path(os.environ.get("HUDI_LAKEHOUSE_ROOT", Path(__file__).resolve().parent.parent / ".lakehouse"))


def table_path(root: Path, name: str) -> str:
    return str(root / name)


def build_definitions(root: Path | None = None) -> dg.Definitions:
    root = root or default_root()
    bronze_path = table_path(root, "bronze_rides")
    silver = HudiTableConfig(
        path=table_path(root, "silver_rides"),
        record_key=["ride_id"],
        partition_fields=["ride_date"],
        ordering_field="ts",
        table_type="COPY_ON_WRITE",
    )
    mirror = HudiTableConfig(
        path=table_path(root, "bronze_rides_mirror"),
        record_key=["ride_id"],
        partition_fields=["ride_date"],
        ordering_field="ts",
    )
    bronze_table = HudiTableConfig(path=bronze_path, record_key=["ride_id"], table_type="MERGE_ON_READ")

    with warnings.catch_warnings():  # backfill policies are a Dagster beta API the demo chooses to use
        warnings.simplefilter("ignore", dg.BetaWarning)

        @dg.asset(
            partitions_def=DAYS,
            backfill_policy=SINGLE_RUN,
            pool="hudi:bronze_rides",
            required_resource_keys={"spark"},
            group_name="bronze",
            kinds={"hudi", "spark"},
            metadata={
                "record_key": "ride_id",
                "partition_expr": "ride_date",
                "ordering_field": "ts",
                "table_type": "MERGE_ON_READ",
                "hudi_options": {"hoodie.table.cdc.enabled": "true"},
                "dagster/uri": bronze_path,
            },
        )
        def bronze_rides(context: AssetExecutionContext) -> DataFrame:
            """Raw ride events by day (Merge-on-Read, change data capture on); a re-run replaces its days."""
            spark: SparkSession = context.resources.spark.get_session()
            rows = demo_rows_per_day()
            days = [rides_for_day(day, rows) for day in context.partition_keys]
            import pyarrow as pa  # noqa: PLC0415

            return spark.createDataFrame(pa.concat_tables(days).to_pandas())

    def clean_rides(context: dg.AssetExecutionContext, changes: DataFrame) -> DataFrame:
        return changes.where(sf.col("status") == "completed").withColumn(
            "fare_per_km", sf.round(sf.col("fare") / sf.greatest(sf.col("distance_km"), sf.lit(0.1)), 2)
        )

    silver_rides = hudi_incremental_asset(
        name="silver_rides",
        source="bronze_rides",
        source_path=bronze_path,
        target=silver,
        transform=clean_rides,
        engine="spark",
        group_name="silver",
        description="Completed rides with fare per km, built from bronze's new commits only.",
    )

    @dg.asset(
        deps=[silver_rides],
        pool="hudi:gold_city_daily",
        required_resource_keys={"spark"},
        group_name="gold",
        kinds={"hudi", "spark"},
        # Declarative automation: with the daemon's automation sensor on, gold follows silver.
        automation_condition=dg.AutomationCondition.eager(),
        metadata={
            "record_key": ["ride_date", "city"],
            "write_mode": "insert_overwrite_table",
            "dagster/uri": table_path(root, "gold_city_daily"),
        },
    )
    def gold_city_daily(context: AssetExecutionContext) -> DataFrame:
        """Rides, revenue and average fare per city and day."""
        spark: SparkSession = context.resources.spark.get_session()
        return (
            spark.read.format("hudi")
            .load(silver.path)
            .groupBy("ride_date", "city")
            .agg(
                sf.count(sf.lit(1)).alias("rides"),
                sf.round(sf.sum("fare"), 2).alias("revenue"),
                sf.round(sf.avg("fare"), 2).alias("avg_fare"),
            )
        )

    bronze_mirror = hudi_cdc_asset(
        name="bronze_rides_mirror",
        source="bronze_rides",
        source_path=bronze_path,
        target=mirror,
        group_name="silver",
        description="A replica of bronze kept by its change feed (CDC).",
    )
    fx_rates = hudi_observable_source_asset(
        key="external_fx_rates", table_path=table_path(root, "external_fx_rates"), group_name="external"
    )

    bronze_job = hudi_asset_job("lakehouse_bronze", [bronze_rides.key])
    downstream_job = hudi_asset_job("lakehouse_downstream", [silver_rides.key, bronze_mirror.key, gold_city_daily.key])
    maintenance = hudi_maintenance_job(
        bronze_table, ["compaction", "clean", "archive"], name="bronze_maintenance", table_asset=bronze_rides.key
    )
    # `HUDI_SPARK_REMOTE=sc://host:port`: every run connects to one shared Spark Connect server.
    spark = SparkResource(master="local[2]", remote=os.environ.get("HUDI_SPARK_REMOTE") or None, conf=SPARK_CONF)
    with warnings.catch_warnings():  # code references are a Dagster beta API the demo chooses to use
        warnings.simplefilter("ignore", dg.BetaWarning)
        # The asset page links each asset to the function defining it.
        assets = dg.with_source_code_references([bronze_rides, silver_rides, gold_city_daily, bronze_mirror, fx_rates])
    return dg.Definitions(
        assets=assets,
        asset_checks=[
            *hudi_table_checks(asset_key="bronze_rides", table_path=bronze_path),
            *hudi_table_checks(asset_key="silver_rides", table_path=silver.path),
        ],
        jobs=[
            hudi_asset_job("lakehouse", dg.AssetSelection.all() - dg.AssetSelection.assets("external_fx_rates")),
            bronze_job,
            downstream_job,
            maintenance,
        ],
        schedules=[hudi_maintenance_schedule(maintenance)],
        sensors=[
            hudi_commit_sensor(
                name="bronze_commits", table_path=bronze_path, job=downstream_job, table_asset=bronze_rides.key
            )
        ],
        resources={"spark": spark, "io_manager": HudiSparkIOManager(root_uri=str(root), spark=spark)},
        executor=dg.in_process_executor,
    )
