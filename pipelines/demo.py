"""The README demo: the example lakehouse end to end on local Spark, through Dagster.

    python3 scripts/dev.py demo [--root DIR] [--days N]     (HUDI_DEMO_ROWS sizes it; default 200000)

1. Materializes bronze for the first days (one partitioned run), then silver, gold and the CDC
   mirror (one run sharing one SparkSession).
2. A late "fare corrections" feed upserts 1% of bronze from outside Dagster (plain Spark).
3. The bronze commit sensor sees that commit and its run request updates silver (incrementally:
   only the corrected rides are read), gold and the mirror — timed.
4. Runs the bronze maintenance job (compaction, clean, archive) and the asset checks.
5. Prints a summary: every table's commits and row count.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from hudi_core.hudi_table import table_exists
from pipelines.lakehouse import DAYS, DEFAULT_DAYS, SPARK_CONF, build_definitions, table_path
from pipelines.rides import corrections

TABLES = ("bronze_rides", "silver_rides", "gold_city_daily", "bronze_rides_mirror")
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def step(message: str) -> None:
    print(f"\n== {message}", flush=True)


# Dagster's console logger at warnings: its per-step event lines would bury the demo's own output.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def run_job(defs: dg.Definitions, instance: dg.DagsterInstance, name: str, tags: dict[str, str]) -> float:
    start = time.perf_counter()
    result = defs.resolve_job_def(name).execute_in_process(run_config=QUIET, instance=instance, tags=tags)
    if not result.success:
        raise SystemExit(f"job {name} failed")
    return time.perf_counter() - start


def summary(root: Path) -> None:
    print(f"{'table':<22} {'type':<14} {'commits':>7} {'rows':>9}  latest instant")
    for name in TABLES:
        path = table_path(root, name)
        if not table_exists(path):
            print(f"{name:<22} (not written)")
            continue
        table = HudiTable(path)
        completed = table.timeline.completed()
        rows = table.read(columns=["_hoodie_record_key"]).num_rows
        print(
            f"{name:<22} {table.table_config.table_type.value:<14} {len(completed):>7} {rows:>9}  "
            f"{completed[-1].requested_time} ({completed[-1].action.value})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="where the tables go (default: a temporary directory)")
    parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help="daily partitions to load")
    parser.add_argument("--keep", action="store_true", help="keep the tables of a temporary root")
    args = parser.parse_args(argv)
    root = args.root or Path(tempfile.mkdtemp(prefix="hudi-lakehouse-"))
    began = time.perf_counter()
    try:
        print(f"lakehouse at {root}; {os.environ.get('HUDI_DEMO_ROWS', '200000')} rows over {args.days} days")
        spark = hudi_spark.session("local[2]", **SPARK_CONF)  # shared by every run below
        spark.sparkContext.setLogLevel("ERROR")
        defs = build_definitions(root)
        days = DAYS.get_partition_keys()[: args.days]
        with dg.DagsterInstance.ephemeral() as instance:
            step(f"bronze: ingest {days[0]} .. {days[-1]} (one run, upsert into Merge-on-Read)")
            seconds = run_job(defs, instance, "lakehouse_bronze", {RANGE_START: days[0], RANGE_END: days[-1]})
            print(f"   {seconds:.1f} s")
            step("silver (incremental), gold (aggregates), bronze mirror (CDC)")
            print(f"   {run_job(defs, instance, 'lakehouse_downstream', {}):.1f} s")

            sensor = defs.resolve_sensor_def("bronze_commits")
            cursor = sensor.evaluate_tick(dg.build_sensor_context(instance=instance, definitions=defs)).cursor

            step("outside Dagster: a corrections feed upserts 1% of bronze with plain Spark")
            bronze_path = table_path(root, "bronze_rides")
            fixes = corrections(HudiTable(bronze_path).read(), 0.01, seed=1)
            options = {
                "hoodie.datasource.write.operation": "upsert",
                "hoodie.datasource.write.recordkey.field": "ride_id",
            }
            written = hudi_spark.write(spark.createDataFrame(fixes.to_pandas()), bronze_path, options)
            print(f"   commit {written.instant_time}: {written.updates} updates")

            step("sensor bronze_commits sees the commit; its run updates silver incrementally")
            tick = sensor.evaluate_tick(dg.build_sensor_context(instance=instance, definitions=defs, cursor=cursor))
            print(f"   {len(tick.run_requests or [])} run request(s), cursor {cursor} -> {tick.cursor}")
            for request in tick.run_requests or []:
                seconds = run_job(defs, instance, "lakehouse_downstream", dict(request.tags))
                print(f"   incremental downstream run (silver + gold + mirror): {seconds:.1f} s")
            silver = HudiTable(table_path(root, "silver_rides"))
            previous, last = silver.timeline.completed()[-2:]
            changed = silver.read_incremental(previous.completion_time or previous.requested_time)
            print(f"   silver commit {last.requested_time} upserted {changed.num_rows} rows")

            step("maintenance: compaction, clean, archive on bronze")
            print(f"   {run_job(defs, instance, 'bronze_maintenance', {}):.1f} s")
        step("summary")
        summary(root)
        print(f"\ndemo wall time {time.perf_counter() - began:.1f} s")
        return 0
    finally:
        if args.root is None and not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
