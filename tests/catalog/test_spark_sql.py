"""Spark SQL over the metastore: a Spark session with a Hive catalog finds the synced tables, and
`hudi_core.spark.table(spark, "db.table")` reads the same rows as `HudiTable.read()`: the snapshot
for `<table>` and `<table>_rt`, the base files only for `<table>_ro`. A write by the Spark engine
syncs after its commit too (its new partition is registered before the reads).

Spark 4 resolves the catalog's provider `hudi` to our Python data source but hands it only the
query's options, never the table's location, so plain `SELECT * FROM db.table` fails; the last
assertion keeps that fact in view (the README says so)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from tests.catalog.hive_metastore import HiveMetastoreServer
from tests.catalog.metastore_client import MetastoreClient

pytestmark = pytest.mark.slow  # a Spark driver with a Hive catalog: about 15 s

SCHEMA = pa.schema([("id", pa.int64()), ("fare", pa.float64()), ("ts", pa.int64()), ("dt", pa.string())])


def _rows(table: HudiTable, options: dict[str, str] | None = None) -> list[dict[str, object]]:
    data = table.read(columns=["id", "fare", "dt"], options=options)
    return sorted(data.to_pylist(), key=lambda row: row["id"])


def test_synced_tables_read_through_the_session_catalog(tmp_path: Path, hive_metastore: HiveMetastoreServer) -> None:
    database = f"spark_{uuid.uuid4().hex[:8]}"
    options = {
        "hoodie.datasource.hive_sync.enable": "true",
        "hoodie.datasource.hive_sync.metastore.uris": hive_metastore.uri,
        "hoodie.datasource.hive_sync.database": database,
    }
    table = HudiTable.create(
        str(tmp_path / "rides"),
        SCHEMA,
        "rides",
        ["id"],
        ["dt"],
        ["ts"],
        table_type="MERGE_ON_READ",
        options={"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    first = pa.table({"id": [1, 2, 3], "fare": [1.0, 2.0, 3.0], "ts": [1, 1, 1], "dt": ["d1", "d1", "d2"]})
    table.upsert(first, options)
    table.upsert(pa.table({"id": [2], "fare": [20.0], "ts": [2], "dt": ["d1"]}), options)  # a log file
    names = [f"{database}.rides", f"{database}.rides_rt", f"{database}.rides_ro"]
    spark_write = {
        "path": table.base_uri,
        "rows": [{"id": 4, "fare": 4.0, "ts": 3, "dt": "d3"}],
        "options": {**options, "hoodie.datasource.write.operation": "upsert"},
    }
    reader = [sys.executable, "-m", "tests.catalog.spark_sql_reader", hive_metastore.uri, str(tmp_path / "warehouse")]
    run = subprocess.run(
        [*reader, json.dumps(spark_write), *names],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    with MetastoreClient(hive_metastore.uri) as metastore:
        assert sorted(metastore.partitions(database, "rides")) == [("d1",), ("d2",), ("d3",)]
        synced_to = metastore.table(database, "rides").parameters["last_commit_time_sync"]
        assert synced_to == table.timeline.completed()[-1].requested_time
    snapshot = _rows(table)
    assert [row["id"] for row in snapshot] == [1, 2, 3, 4]
    assert found[f"{database}.rides"] == snapshot
    assert found[f"{database}.rides_rt"] == snapshot
    read_optimized = _rows(table, {"hoodie.datasource.query.type": "read_optimized"})
    assert found[f"{database}.rides_ro"] == read_optimized != snapshot
    assert found["plain_sql"] == "PYTHON_DATA_SOURCE_ERROR"
