"""Spark Connect: the same `session()`, reads and distributed upserts through a Connect server.

The clients run in their own processes (`tests/spark/connect_client.py`): PySpark allows one kind
of session, local or Connect, per process, and the test run already has a local one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.engine.spark.connect import ConnectServer
from tests import hudi_rs
from tests.model import canonical, table_rows
from tests.spark.connect_client import COLUMNS, OPTIONS
from tests.spark.reuse import DATA_COLUMNS, ROWS, all_rows, doubled, filtered_rows

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server() -> Iterator[ConnectServer]:
    with ConnectServer(master="local[2]", conf={"spark.driver.memory": "1g"}) as started:
        yield started


def run_client(*args: str) -> dict[str, Any]:
    client = subprocess.run(
        [sys.executable, "-m", "tests.spark.connect_client", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert client.returncode == 0, client.stderr[-4000:]
    reply: dict[str, Any] = json.loads(client.stdout.strip().splitlines()[-1])
    return reply


def test_upsert_and_read_through_spark_connect(server: ConnectServer, tmp_path: Path) -> None:
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

    reply = run_client("upsert", server.url, path)
    assert (reply["inserts"], reply["updates"]) == (1, 2)
    read = canonical(reply["rows"])
    assert len(read) == 21
    assert {row["id"]: row["fare"] for row in reply["rows"]}["k2"] == 200.0
    assert read == canonical(table_rows(HudiTable(path).read(), COLUMNS))
    assert read == canonical(table_rows(hudi_rs.snapshot(path), COLUMNS))


def test_filtered_query_leaves_the_dataframe_whole_through_spark_connect(
    server: ConnectServer, reuse_table: str, tmp_path: Path
) -> None:
    target = str(tmp_path / "doubled")
    reply = run_client("reuse", server.url, reuse_table, target)
    expected = filtered_rows(reuse_table)
    assert reply["counts"] == [ROWS, len(expected), ROWS]
    assert reply["collected"] == ROWS
    assert reply["written"] == ROWS
    stored = table_rows(HudiTable(target).read(), DATA_COLUMNS)
    assert canonical(stored) == canonical(doubled(all_rows(reuse_table)))
    assert canonical(reply["pruned"]) == canonical(expected)
