"""Operators in real DAG runs: CSV upserts, deletes by key, the change feed into Parquet files one
window per file, Spark as the engine through an Airflow `spark` connection, and an S3 table through
an Airflow `aws` connection (moto's S3 server on loopback)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from airflow.dag_processing.dagbag import DagBag

from hudi_core import HudiTable
from tests_airflow.conftest import TEST_DAGS

ROWS = pa.table(
    {
        "id": [f"t{i}" for i in range(12)],
        "ts": list(range(12)),
        "city": ["berlin", "tokyo", "lima"] * 4,
        "fare": [float(i) * 1.5 for i in range(12)],
    }
)


def _dag(dag_id: str) -> Any:
    return DagBag(dag_folder=str(TEST_DAGS / "operators_dag.py")).get_dag(dag_id)


def _table_rows(path: str) -> list[dict[str, Any]]:
    return sorted(HudiTable(path).read(columns=ROWS.column_names).to_pylist(), key=lambda r: r["id"])


def test_csv_upsert_delete_and_change_files(tmp_path: Path) -> None:
    csv, deletes, out, table = tmp_path / "trips.csv", tmp_path / "gone.parquet", tmp_path / "changes", tmp_path / "t"
    pacsv.write_csv(ROWS, csv)
    pq.write_table(ROWS.filter(pa.array([i % 4 == 0 for i in range(12)])).select(["id", "city"]), deletes)
    conf = {"table": str(table), "csv": str(csv), "deletes": str(deletes), "out": str(out)}

    assert _dag("hudi_operators").test(run_conf=conf).state == "success"
    expected = sorted((r for i, r in enumerate(ROWS.to_pylist()) if i % 4), key=lambda r: r["id"])
    assert _table_rows(str(table)) == expected
    (first,) = sorted(out.glob("*.parquet"))
    changes = pq.read_table(first)
    assert sorted(changes.column("op").to_pylist()) == ["d"] * 3 + ["i"] * 12

    # A second run: the deleted rows come back and are deleted again, the rest are updates; its
    # window, which starts where the first ended, is the next file.
    assert _dag("hudi_operators").test(run_conf=conf).state == "success"
    files = sorted(out.glob("*.parquet"), key=lambda f: f.stem.rsplit("_", 1)[1])  # by window end
    assert len(files) == 2 and files[0] == first
    first_end = first.name.rsplit("_", 1)[1].removesuffix(".parquet")
    assert files[1].name.split("__", 1)[1].startswith(f"{first_end}_")  # windows follow each other
    assert sorted(pq.read_table(files[1]).column("op").to_pylist()) == ["d"] * 3 + ["i"] * 3 + ["u"] * 9


def test_spark_engine_through_a_spark_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_LOCAL", json.dumps({"conn_type": "spark", "host": "local[1]"}))
    source, table = tmp_path / "in.parquet", tmp_path / "t"
    pq.write_table(ROWS, source)
    run = _dag("hudi_spark_operators").test(run_conf={"table": str(table), "parquet": str(source)})
    assert run.state == "success"
    assert _table_rows(str(table)) == sorted(ROWS.to_pylist(), key=lambda r: r["id"])
    timeline = HudiTable(str(table)).timeline
    assert [timeline.is_table_service(i) for i in timeline.completed_data_instants()] == [False, True]


def test_s3_table_through_an_aws_connection(tmp_path: Path, s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3  # noqa: PLC0415

    from hudi_airflow.hook import HudiHook  # noqa: PLC0415
    from hudi_airflow.operators import HudiIncrementalOperator, HudiWriteOperator  # noqa: PLC0415

    bucket = "airflow-lake"
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=bucket)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)  # only the connection knows where S3 is
    connection = {
        "conn_type": "aws",
        "login": "testing",
        "password": "testing",
        "extra": {"region_name": "us-east-1", "endpoint_url": s3_endpoint},
    }
    monkeypatch.setenv("AIRFLOW_CONN_LAKE_S3", json.dumps(connection))
    source = tmp_path / "in.parquet"
    pq.write_table(ROWS, source)
    bronze, silver = f"s3://{bucket}/lake/bronze", f"s3://{bucket}/lake/silver"
    options = {"hoodie.table.name": "bronze", "hoodie.datasource.write.recordkey.field": "id"}

    write = HudiWriteOperator(
        task_id="w", table_path=bronze, source=str(source), hudi_options=options, aws_conn_id="lake_s3"
    )
    copy = HudiIncrementalOperator(
        task_id="c",
        source_path=bronze,
        table_path=silver,
        hudi_options={**options, "hoodie.table.name": "silver"},
        aws_conn_id="lake_s3",
        checkpoint_identifier="copy",
    )
    summary = write.execute({"task": write})
    assert summary["inserts"] == ROWS.num_rows
    copied = copy.execute({"task": copy})
    assert copied["inserts"] == ROWS.num_rows and copied["window_end"] == summary["completion_time"]
    assert HudiHook(silver, aws_conn_id="lake_s3").table().read().num_rows == ROWS.num_rows
    keys = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    ).list_objects_v2(Bucket=bucket, Prefix="lake/silver/.hoodie/")
    assert keys["KeyCount"] > 0
    assert os.environ.get("AWS_ENDPOINT_URL") is None


def test_savepoint_and_restore(tmp_path: Path) -> None:
    from hudi_airflow.operators import HudiRestoreOperator, HudiTableServiceOperator, HudiWriteOperator  # noqa: PLC0415

    table, first, second = str(tmp_path / "t"), tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(ROWS.slice(0, 6), first)
    pq.write_table(ROWS.slice(6), second)
    options = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id"}
    write = HudiWriteOperator(task_id="w", table_path=table, source=str(first), hudi_options=options)
    write.execute({"task": write})
    savepoint = HudiTableServiceOperator(task_id="s", table_path=table, service="savepoint")
    saved = savepoint.execute({"task": savepoint})
    assert saved["ran"] and saved["instant_time"]
    more = HudiWriteOperator(task_id="w2", table_path=table, source=str(second), hudi_options=options)
    more.execute({"task": more})
    assert len(_table_rows(table)) == ROWS.num_rows

    restore = HudiRestoreOperator(task_id="r", table_path=table)
    restored = restore.execute({"task": restore})
    assert restored["restored_to"] == saved["instant_time"]
    assert _table_rows(table) == sorted(ROWS.slice(0, 6).to_pylist(), key=lambda r: r["id"])
    again = HudiTableServiceOperator(task_id="s2", table_path=table, service="savepoint")
    assert not again.execute({"task": again})["ran"]  # the newest commit has its savepoint already


def test_spark_sessions_give_executors_the_connections_storage_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from hudi_airflow.spark import spark_master, spark_session  # noqa: PLC0415

    monkeypatch.setenv("AIRFLOW_CONN_SPARK_LOCAL", json.dumps({"conn_type": "spark", "host": "local[1]"}))
    monkeypatch.setenv(
        "AIRFLOW_CONN_SPARK_CLUSTER", json.dumps({"conn_type": "spark", "host": "spark://h", "port": 7077})
    )
    assert spark_master("spark_cluster") == "spark://h:7077"
    settings = {"AWS_REGION": "eu-west-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:9"}
    with spark_session("spark_local", {"spark.ui.enabled": "false"}, settings) as session:
        assert session.conf.get("spark.executorEnv.AWS_REGION") == "eu-west-1"
        assert session.conf.get("spark.executorEnv.AWS_ENDPOINT_URL") == "http://127.0.0.1:9"
