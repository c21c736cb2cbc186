"""`HudiSyncOperator`: a table registered in AWS Glue (moto's server on loopback) through an Airflow
`aws` connection that alone knows Glue's endpoint and keys."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pyarrow as pa
import pytest

from hudi_airflow.arguments import HudiOperatorArgumentError
from hudi_core import HudiTable

GLUE_TOOL = "org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool"


def test_sync_operator_registers_the_table_in_glue(
    tmp_path: Path, s3_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_airflow.operators import HudiSyncOperator  # noqa: PLC0415

    path = str(tmp_path / "rides")
    table = HudiTable.create(
        path,
        pa.schema([("id", pa.int64()), ("ts", pa.int64()), ("dt", pa.string())]),
        "rides",
        ["id"],
        ["dt"],
        ["ts"],
        options={"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    result = table.upsert(pa.table({"id": [1, 2], "ts": [1, 1], "dt": ["2026-03-01", "2026-03-02"]}))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)  # only the connection knows where Glue is
    connection = {
        "conn_type": "aws",
        "login": "testing",
        "password": "testing",
        "extra": {"region_name": "us-east-1", "service_config": {"glue": {"endpoint_url": s3_endpoint}}},
    }
    monkeypatch.setenv("AIRFLOW_CONN_LAKE_AWS", json.dumps(connection))
    options = {
        "hoodie.meta.sync.client.tool.class": GLUE_TOOL,
        "hoodie.datasource.hive_sync.database": "airflow_lake",
    }
    sync = HudiSyncOperator(task_id="sync", table_path=path, hudi_options=options, aws_conn_id="lake_aws")
    summary = sync.execute({"task": sync})
    (catalog,) = summary["catalogs"]
    (synced,) = catalog["tables"]
    assert (catalog["tool"], synced["table"], synced["created"]) == (
        "AwsGlueCatalogSyncTool",
        "airflow_lake.rides",
        True,
    )
    assert synced["partitions_added"] == ["2026-03-01", "2026-03-02"]
    assert synced["last_commit_time_sync"] == result.instant_time
    glue = boto3.client(
        "glue",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    parameters = glue.get_table(DatabaseName="airflow_lake", Name="rides")["Table"]["Parameters"]
    assert parameters["last_commit_time_sync"] == result.instant_time
    assert len(glue.get_partitions(DatabaseName="airflow_lake", TableName="rides")["Partitions"]) == 2


def test_sync_operator_arguments_are_checked_at_parse_time() -> None:
    from hudi_airflow.operators import HudiSyncOperator  # noqa: PLC0415

    with pytest.raises(HudiOperatorArgumentError, match="engine"):
        HudiSyncOperator(task_id="sync", table_path="/lake/t", engine="spark")
    with pytest.raises(HudiOperatorArgumentError, match=r"hoodie\.datasource\.hive_sync\.mode"):
        HudiSyncOperator(
            task_id="sync", table_path="/lake/t", hudi_options={"hoodie.datasource.hive_sync.mode": "jdbc"}
        )
