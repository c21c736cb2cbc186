"""Spark Connect: the same `session()`, reads and distributed upserts through a Connect server.

The client runs in its own process (`tests/spark/connect_client.py`): PySpark allows one kind
of session, local or Connect, per process, and the test run already has a local one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.engine.spark.connect import ConnectServer
from tests import hudi_rs
from tests.model import canonical, table_rows
from tests.spark.connect_client import COLUMNS, OPTIONS

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def test_upsert_and_read_through_spark_connect(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    first = pa.table(
        {
            "id": [f"k{i}" for i in range(20)],
            "ts": [1] * 20,
            "city": ["sf", "nyc"] * 10,
            "fare": [float(i) for i in range(20)],
        }
    )
    assert write_hudi(path, first, OPTIONS).inserts == 20

    with ConnectServer(master="local[2]", conf={"spark.driver.memory": "1g"}) as server:
        client = subprocess.run(
            [sys.executable, "-m", "tests.spark.connect_client", server.url, path],
            check=False,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert client.returncode == 0, client.stderr[-4000:]
    reply = json.loads(client.stdout.strip().splitlines()[-1])
    assert (reply["inserts"], reply["updates"]) == (1, 2)
    read = canonical(reply["rows"])
    assert len(read) == 21
    assert {row["id"]: row["fare"] for row in reply["rows"]}["k2"] == 200.0
    assert read == canonical(table_rows(HudiTable(path).read(), COLUMNS))
    assert read == canonical(table_rows(hudi_rs.snapshot(path), COLUMNS))
