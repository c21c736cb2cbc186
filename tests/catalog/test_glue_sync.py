"""AWS Glue sync (`AwsGlueCatalogSyncTool`) of tables on S3, against moto's server: the Glue API
over HTTP on loopback, the same server the S3 tests use (not in-process patching)."""

from __future__ import annotations

import os
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import MetaSyncError
from hudi_core.sync import sync_table
from tests.objectstore.conftest import bucket, s3_endpoint  # noqa: F401 - moto's server and a bucket

GLUE = {
    "hoodie.datasource.meta.sync.enable": "true",
    "hoodie.meta.sync.client.tool.class": "org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool",
}
SCHEMA = pa.schema([("id", pa.int64()), ("fare", pa.float64()), ("ts", pa.int64()), ("dt", pa.string())])


def _rows(ids: list[int], dt: str) -> pa.Table:
    return pa.table({"id": ids, "fare": [float(i) for i in ids], "ts": [1] * len(ids), "dt": [dt] * len(ids)})


def _glue() -> Any:
    return boto3.client("glue", region_name=os.environ["AWS_REGION"])


def _partitions(database: str, table: str) -> dict[str, str]:
    found = _glue().get_partitions(DatabaseName=database, TableName=table)["Partitions"]
    return {p["Values"][0]: p["StorageDescriptor"]["Location"] for p in found}


@pytest.fixture
def table_on_s3(bucket: str) -> tuple[HudiTable, str, dict[str, str]]:  # noqa: F811 - the fixture above
    database = f"lake_{bucket.replace('-', '_')}"
    options = {**GLUE, "hoodie.datasource.hive_sync.database": database, "hoodie.datasource.hive_sync.table": "rides"}
    table = HudiTable.create(
        f"s3://{bucket}/rides",
        SCHEMA,
        "rides",
        ["id"],
        ["dt"],
        ["ts"],
        options={"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    return table, database, options


def test_a_write_registers_the_table_and_its_partitions_in_glue(
    table_on_s3: tuple[HudiTable, str, dict[str, str]],
) -> None:
    table, database, options = table_on_s3
    result = table.upsert(pa.concat_tables([_rows([1, 2], "2026-01-01"), _rows([3], "2026-01-02")]), options)
    glue_table = _glue().get_table(DatabaseName=database, Name="rides")["Table"]
    sd = glue_table["StorageDescriptor"]
    assert glue_table["TableType"] == "EXTERNAL_TABLE"
    assert sd["Location"] == table.base_uri.replace("s3a://", "s3://")
    assert sd["InputFormat"] == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
    assert sd["SerdeInfo"]["SerializationLibrary"] == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert [(c["Name"], c["Type"]) for c in sd["Columns"]][-3:] == [
        ("id", "bigint"),
        ("fare", "double"),
        ("ts", "bigint"),
    ]
    assert [k["Name"] for k in glue_table["PartitionKeys"]] == ["dt"]
    parameters = glue_table["Parameters"]
    assert parameters["last_commit_time_sync"] == result.instant_time
    assert parameters["last_commit_completion_time_sync"] == result.completion_time
    assert parameters["spark.sql.sources.provider"] == "hudi"
    assert _partitions(database, "rides") == {
        "2026-01-01": f"{sd['Location']}/dt=2026-01-01",
        "2026-01-02": f"{sd['Location']}/dt=2026-01-02",
    }


def test_incremental_glue_sync_touches_only_changed_partitions(
    table_on_s3: tuple[HudiTable, str, dict[str, str]],
) -> None:
    table, database, options = table_on_s3
    table.upsert(pa.concat_tables([_rows([1], f"2026-01-0{day}") for day in range(1, 6)]), options)
    table.upsert(_rows([10], "2026-01-06"))  # no sync: the catalog is one commit behind
    table.upsert(_rows([1], "2026-01-01"))
    (result,) = sync_table(table.base_uri, options)
    (synced,) = result.tables
    assert synced.partitions_added == ("2026-01-06",)
    assert not synced.full_listing
    # One lookup of the two changed partitions, one batch create, one update of the sync point.
    assert result.calls == {
        "get_database": 1,
        "get_table": 2,
        "batch_get_partition": 1,
        "batch_create_partition": 1,
        "update_table": 1,
    }
    assert sorted(_partitions(database, "rides")) == [f"2026-01-0{day}" for day in range(1, 7)]


def test_glue_drops_deleted_partitions_and_follows_schema_evolution(
    table_on_s3: tuple[HudiTable, str, dict[str, str]],
) -> None:
    table, database, options = table_on_s3
    table.upsert(pa.concat_tables([_rows([1], "2026-01-01"), _rows([2], "2026-01-02")]), options)
    table.delete_partitions(["dt=2026-01-01"], options)
    assert sorted(_partitions(database, "rides")) == ["2026-01-02"]
    wider = _rows([3], "2026-01-03").append_column("city", pa.array(["lisbon"]))
    table.upsert(wider, options)
    columns = _glue().get_table(DatabaseName=database, Name="rides")["Table"]["StorageDescriptor"]["Columns"]
    assert (columns[-1]["Name"], columns[-1]["Type"]) == ("city", "string")
    assert sorted(_partitions(database, "rides")) == ["2026-01-02", "2026-01-03"]


def test_an_unreachable_glue_fails_the_sync_but_not_the_commit(
    table_on_s3: tuple[HudiTable, str, dict[str, str]],
) -> None:
    table, database, options = table_on_s3
    unreachable = {**options, "hoodie.aws.glue.endpoint": "http://127.0.0.1:9"}
    with pytest.raises(MetaSyncError, match="the write committed at instant"):
        table.upsert(_rows([1], "2026-01-01"), unreachable)
    assert table.read().num_rows == 1
    (result,) = sync_table(table.base_uri, options)
    assert result.tables[0].created
    assert sorted(_partitions(database, "rides")) == ["2026-01-01"]
