"""Spark assets through the SparkResource and HudiSparkIOManager: one SparkContext per run."""

from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa
from dagster import AssetExecutionContext
from pyspark.sql import DataFrame
from pyspark.sql import functions as sf

from hudi_core import HudiTable
from hudi_dagster import SparkResource
from hudi_dagster.io_manager.spark import HudiSparkIOManager
from tests import hudi_rs
from tests.spark.standalone_cluster import jobs_of

DAYS = dg.StaticPartitionsDefinition(["2025-01-01", "2025-01-02"])


def test_three_spark_assets_share_one_spark_context(local_spark: Any, tmp_path: Path) -> None:
    contexts: list[tuple[str, int]] = []

    def record(context: AssetExecutionContext) -> Any:
        session = context.resources.spark.get_session()
        contexts.append((session.sparkContext.applicationId, id(session.sparkContext)))
        return session

    @dg.asset(
        partitions_def=DAYS,
        required_resource_keys={"spark"},
        metadata={"record_key": "id", "partition_expr": "day", "ordering_field": "ts", "table_type": "MERGE_ON_READ"},
    )
    def raw(context: AssetExecutionContext) -> DataFrame:
        session = record(context)
        return session.range(100).select(
            sf.concat(sf.lit("k"), sf.col("id").cast("string")).alias("id"),
            sf.lit(1).cast("long").alias("ts"),
            sf.lit(context.partition_key).alias("day"),
            (sf.col("id") * 1.5).alias("fare"),
        )

    @dg.asset(
        partitions_def=DAYS, required_resource_keys={"spark"}, metadata={"record_key": "id", "partition_expr": "day"}
    )
    def cleaned(context: AssetExecutionContext, raw: DataFrame) -> DataFrame:
        record(context)
        loaded["days"] = sorted(r["day"] for r in raw.select("day").distinct().collect())
        loaded["rows"] = raw.count()
        return raw.where(sf.col("fare") > 30).select("id", "ts", "day", "fare")

    @dg.asset(
        partitions_def=DAYS,
        required_resource_keys={"spark"},
        ins={"cleaned": dg.AssetIn(metadata={"columns": ["day", "fare"]})},
        metadata={"record_key": "day", "partition_expr": "day"},
    )
    def totals(context: AssetExecutionContext, cleaned: DataFrame) -> DataFrame:
        record(context)
        assert cleaned.columns == ["day", "fare"]
        return cleaned.groupBy("day").agg(sf.sum("fare").alias("total"), sf.count(sf.lit(1)).alias("rides"))

    loaded: dict[str, Any] = {}
    resource = SparkResource(master="local[2]")
    resources = {"spark": resource, "io_manager": HudiSparkIOManager(root_uri=str(tmp_path), spark=resource)}
    assert dg.materialize([raw], partition_key="2025-01-01", resources=resources).success
    contexts.clear()
    result = dg.materialize([raw, cleaned, totals], partition_key="2025-01-02", resources=resources)
    assert result.success
    assert len(set(contexts)) == 1 and len(contexts) == 3  # every step of the run: one SparkContext
    # The partition's load (planned with the partition's filter) sees only its own rows.
    assert loaded == {"days": ["2025-01-02"], "rows": 100}
    assert not local_spark.sparkContext._jsc.sc().isStopped()  # the resource did not stop a session it did not create

    totals_rows = {r["day"]: (r["rides"], r["total"]) for r in HudiTable(str(tmp_path / "totals")).read().to_pylist()}
    assert totals_rows == {"2025-01-02": (79, sum(i * 1.5 for i in range(21, 100)))}
    assert hudi_rs.snapshot(str(tmp_path / "raw")).num_rows == 200
    metadata = result.asset_materializations_for_node("raw")[0].metadata
    assert metadata["hudi/rows_inserted"].value == 100 and metadata["dagster/row_count"].value == 200


def test_maintenance_ops_run_file_group_tasks_on_the_spark_resource(local_spark: Any, tmp_path: Path) -> None:
    from hudi_dagster import HudiTableConfig, hudi_maintenance_job  # noqa: PLC0415

    path = str(tmp_path / "trips")
    table = HudiTable.create(
        path,
        pa.schema([("id", pa.string()), ("ts", pa.int64()), ("fare", pa.float64())]),
        "trips",
        ["id"],
        [],
        ["ts"],
        "MERGE_ON_READ",
        {"hoodie.compact.inline": "false"},
    )
    for ts in range(1, 4):
        table.upsert(pa.table({"id": [f"k{i}" for i in range(20)], "ts": [ts] * 20, "fare": [float(ts)] * 20}))
    job = hudi_maintenance_job(HudiTableConfig(path=path, record_key=["id"]), ["compaction"], engine="spark")
    result = job.execute_in_process(resources={"spark": SparkResource()})
    assert result.success
    outputs = {
        event.step_key: {k: v.value for k, v in event.event_specific_data.metadata.items()}  # type: ignore[union-attr]
        for event in result.all_events
        if event.event_type_value == "STEP_OUTPUT"
    }
    assert outputs["trips_compaction"]["hudi/ran"] is True
    assert not any(s.log_files for s in HudiTable(path).file_slices())
    assert HudiTable(path).read().column("fare").to_pylist() == [3.0] * 20
    compactions = [j for j in jobs_of(local_spark) if f"hudi compaction of {path}" in j.get("description", "")]
    assert compactions and all(j["status"] == "SUCCEEDED" and j["numTasks"] >= 1 for j in compactions)


def test_dagster_pyspark_resource_works_with_the_spark_io_manager(local_spark: Any, tmp_path: Path) -> None:
    """dagster-pyspark's PySparkResource in place of ours: assets write and load through it, and
    the `hudi` data source is registered on its session."""
    from dagster_pyspark import PySparkResource  # noqa: PLC0415

    @dg.asset(required_resource_keys={"pyspark"}, metadata={"record_key": "id"})
    def people(context: AssetExecutionContext) -> DataFrame:
        session = context.resources.pyspark.spark_session
        return session.createDataFrame([("a", 1), ("b", 2)], "id string, age long")

    @dg.asset(required_resource_keys={"pyspark"})
    def adults(context: AssetExecutionContext, people: DataFrame) -> DataFrame:
        through_source = context.resources.pyspark.spark_session.read.format("hudi").load(str(tmp_path / "people"))
        assert through_source.count() == 2
        return people.where(sf.col("age") > 1).select("id", "age")

    pyspark = PySparkResource(spark_config={"spark.sql.session.timeZone": "UTC"})
    resources = {"pyspark": pyspark, "io_manager": HudiSparkIOManager(root_uri=str(tmp_path), spark=pyspark)}
    assert dg.materialize([people, adults], resources=resources).success
    assert HudiTable(str(tmp_path / "adults")).read(columns=["id"]).column("id").to_pylist() == ["b"]


def test_streaming_asset_catches_up_and_resumes_from_its_checkpoint(local_spark: Any, tmp_path: Path) -> None:
    """An available-now Structured Streaming run per materialization: each run writes what the
    source committed since the last one, exactly once; a run with nothing new only observes."""
    from hudi_core import write_hudi  # noqa: PLC0415
    from hudi_dagster import HudiTableConfig  # noqa: PLC0415
    from hudi_dagster.streaming import hudi_streaming_asset  # noqa: PLC0415

    source = str(tmp_path / "bronze")
    options = {"hoodie.table.name": "bronze", "hoodie.datasource.write.recordkey.field": "id"}
    write_hudi(source, pa.table({"id": ["a", "b", "c"], "v": [1, 2, 3]}), options)
    target = HudiTableConfig(path=str(tmp_path / "silver"), record_key=["id"])

    def without_meta(context: AssetExecutionContext, frame: DataFrame) -> DataFrame:
        return frame.select("id", "v")

    silver = hudi_streaming_asset(
        name="silver",
        source="bronze",
        source_path=source,
        target=target,
        checkpoint_location=str(tmp_path / "silver_checkpoint"),
        transform=without_meta,
    )
    resources = {"spark": SparkResource()}
    first = dg.materialize([silver], resources=resources)
    assert first.success and first.asset_materializations_for_node("silver")[0].metadata["dagster/row_count"].value == 3
    write_hudi(source, pa.table({"id": ["c", "d"], "v": [30, 4]}), options)
    assert dg.materialize([silver], resources=resources).success
    stored = HudiTable(target.path).read(columns=["id", "v"]).to_pylist()
    assert sorted((r["id"], r["v"]) for r in stored) == [("a", 1), ("b", 2), ("c", 30), ("d", 4)]
    idle = dg.materialize([silver], resources=resources)
    assert idle.success and idle.asset_materializations_for_node("silver") == []


def test_spark_assets_report_column_lineage_from_their_plan(local_spark: Any, tmp_path: Path) -> None:
    """An asset computed from another's table through `spark.read.format("hudi")`: the analyzed
    plan says which upstream columns each output column comes from."""

    @dg.asset(required_resource_keys={"spark"}, metadata={"record_key": "id"})
    def fares(context: AssetExecutionContext) -> DataFrame:
        session = context.resources.spark.get_session()
        return session.createDataFrame([("a", "sf", 1.5), ("b", "la", 2.0)], "id string, city string, fare double")

    @dg.asset(deps=[fares], required_resource_keys={"spark"}, metadata={"record_key": "city"})
    def by_city(context: AssetExecutionContext) -> DataFrame:
        session = context.resources.spark.get_session()
        stored = session.read.format("hudi").load(str(tmp_path / "fares"))
        return stored.groupBy("city").agg(sf.round(sf.sum("fare"), 2).alias("total"), sf.count(sf.lit(1)).alias("n"))

    resource = SparkResource(master="local[2]")
    resources = {"spark": resource, "io_manager": HudiSparkIOManager(root_uri=str(tmp_path), spark=resource)}
    result = dg.materialize([fares, by_city], resources=resources)
    assert result.success
    lineage = result.asset_materializations_for_node("by_city")[0].metadata["dagster/column_lineage"].value
    fares_key = dg.AssetKey("fares")
    assert lineage.deps_by_column == {
        "city": [dg.TableColumnDep(asset_key=fares_key, column_name="city")],
        "total": [dg.TableColumnDep(asset_key=fares_key, column_name="fare")],
    }  # `n` counts rows: it comes from no column
