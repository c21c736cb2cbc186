"""We read and continue what Apache Hudi 1.2 writes.

Apache Hudi writes a small partitioned table (insert, upsert with late records, delete) at its
defaults (table version 9) or with ``hoodie.write.table.version=8``. Our snapshot and
read-optimized reads must equal Apache Hudi's own, and the snapshot the model. Then we upsert,
delete and (Merge-on-Read) compact on the same table, at its version: Apache Hudi and hudi-rs read
ours back equal to the model, and Apache Hudi continues writing on top of us.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.apache_hudi.tables import full_run_only
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

READ_OPTIMIZED = {"hoodie.datasource.query.type": "read_optimized"}
CASES = [
    pytest.param(None, "MERGE_ON_READ", id="v9-default-mor"),
    pytest.param("8", "MERGE_ON_READ", id="v8-mor"),
    full_run_only("8", "COPY_ON_WRITE", id="v8-cow"),
]


def rows_of(table: pa.Table) -> list[tuple[Any, ...]]:
    return canonical(table_rows(table, COLUMNS))


def latest_write(path: Path) -> tuple[str, str | None]:
    """The requested and completion time of the table's latest completed write, read by us."""
    latest = HudiTable(str(path)).timeline.completed_data_instants()[-1]
    return latest.requested_time, latest.completion_time


@pytest.mark.parametrize(("write_version", "table_type"), CASES)
def test_we_read_and_continue_apache_hudi_tables(
    apache_hudi: ApacheHudi, write_version: str | None, table_type: str, tmp_path: Path
) -> None:
    rng = random.Random(f"apache-hudi-writes-{write_version}-{table_type}")
    history = History(rng, partitioned=True)
    path = tmp_path / "table"
    options = {
        "hoodie.table.name": f"theirs_{write_version or 'default'}_{table_type[:3].lower()}",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "city",
    }
    if write_version is not None:
        options["hoodie.write.table.version"] = write_version
    model = TableModel("id", lambda r: r["city"], "ts")

    def apache_writes(rows: list[dict[str, Any]], operation: str, mode: str = "append") -> None:
        apache_hudi.write(
            path,
            pa.Table.from_pylist(rows, schema=SCHEMA),
            {**options, "hoodie.datasource.write.operation": operation},
            mode,
        )
        instant, completion = latest_write(path)
        getattr(model, "insert_new" if operation == "insert" else operation)(rows, instant, completion)

    def compare(what: str) -> None:
        ours = HudiTable(str(path))
        assert rows_of(ours.read()) == canonical(model.snapshot(COLUMNS)), f"ours vs model: {what}"
        assert rows_of(apache_hudi.read(path)) == canonical(model.snapshot(COLUMNS)), f"Apache Hudi vs model: {what}"
        assert rows_of(ours.read(options=READ_OPTIMIZED)) == rows_of(apache_hudi.read(path, READ_OPTIMIZED)), (
            f"read-optimized, ours vs Apache Hudi: {what}"
        )
        everything = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": "000"}
        assert rows_of(ours.read(options=everything)) == rows_of(apache_hudi.read(path, everything)), (
            f"incremental from 000, ours vs Apache Hudi: {what}"
        )

    apache_writes(history.fresh(12, 100), "insert", mode="overwrite")
    stored = sorted(key for _, key in model.current)
    late = [history.row(key, 110 if rng.random() < 0.6 else 5) for key in rng.sample(stored, 5)]
    apache_writes([*late, *history.fresh(2, 110)], "upsert")
    apache_writes([history.row(key, 120) for key in rng.sample(stored, 2)], "delete")
    expected_version = write_version or "9"
    assert HudiTable(str(path)).table_config.version == int(expected_version)
    compare(f"Apache Hudi's table, version {expected_version}")

    ours = HudiTable(str(path))
    stored = sorted(key for _, key in model.current)
    rows = [history.row(key, 130 if rng.random() < 0.6 else 5) for key in rng.sample(stored, 4)] + history.fresh(2, 130)
    result = ours.upsert(pa.Table.from_pylist(rows, schema=SCHEMA))
    model.upsert(rows, result.instant_time, result.completion_time)
    rows = [history.row(key, 140) for key in rng.sample(sorted(key for _, key in model.current), 2)]
    result = ours.delete(pa.Table.from_pylist(rows, schema=SCHEMA))
    model.delete(rows, result.instant_time, result.completion_time)
    if table_type == "MERGE_ON_READ":
        assert ours.compact(None, {"hoodie.compact.inline.max.delta.commits": "1"}) is not None
    compare(f"Apache Hudi's version-{expected_version} table continued by us")
    assert rows_of(hudi_rs.snapshot(path)) == canonical(model.snapshot(COLUMNS)), "hudi-rs vs model"
    assert HudiTable(str(path)).table_config.version == int(expected_version), "the table keeps its version"

    stored = sorted(key for _, key in model.current)
    apache_writes([history.row(key, 150) for key in rng.sample(stored, 3)] + history.fresh(2, 150), "upsert")
    compare("Apache Hudi continuing after us")
