"""Spark writes: the same logical table as the Arrow engine, read back by hudi-rs and by us."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable, InvalidKeyError, write_hudi
from hudi_core import spark as hudi_spark
from hudi_core.index.consistent_hashing import HashingMetadata
from tests import hudi_rs
from tests.files import file_tree
from tests.hudi_core.write import test_log_positions as positions
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows
from tests.spark.no_package_job import OPTIONS as NO_PACKAGE_OPTIONS

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
DDL = "id string, ts long, city string, fare double"
REPO_ROOT = Path(__file__).resolve().parents[2]


INDEXES = {
    "SIMPLE": {},
    "BLOOM": {"hoodie.index.type": "BLOOM"},
    "RECORD_INDEX": {
        "hoodie.index.type": "RECORD_INDEX",
        "hoodie.metadata.enable": "true",
        "hoodie.metadata.record.index.enable": "true",
        "hoodie.metadata.record.index.min.filegroup.count": "2",
    },
}


def _options(table_type: str, operation: str, index: str = "SIMPLE") -> dict[str, str]:
    return {
        **INDEXES[index],
        "hoodie.table.name": "spark_writes",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
    }


def _check(path: str, model: TableModel, what: str) -> None:
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(HudiTable(path).read(), COLUMNS)) == expected, f"ours: {what}"
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, f"hudi-rs: {what}"


@pytest.mark.parametrize(
    ("table_type", "index"),
    [
        ("COPY_ON_WRITE", "SIMPLE"),
        ("MERGE_ON_READ", "SIMPLE"),
        ("COPY_ON_WRITE", "BLOOM"),
        ("MERGE_ON_READ", "RECORD_INDEX"),
    ],
)
def test_random_history_spark_equals_arrow_and_model(table_type: str, index: str, spark: Any, tmp_path: Path) -> None:
    rng = random.Random(f"{table_type}-{index}")
    spark_path, arrow_path = str(tmp_path / "spark"), str(tmp_path / "arrow")
    model = TableModel("id", lambda r: r["city"], "ts")
    next_key = 0

    def row(key: str, ts: int) -> dict[str, Any]:
        return {
            "id": key,
            "ts": ts,
            "city": ["sf", "nyc", "la"][int(key[1:]) % 3],
            "fare": round(rng.uniform(1, 99), 2),
        }

    steps = ["bulk_insert", "upsert", "insert", "delete", "upsert", "insert_overwrite", "upsert"]
    for step, operation in enumerate(steps):
        ts = 100 + step
        stored = sorted(k for _, k in model.current)
        if operation in ("bulk_insert", "insert"):
            rows = [row(f"k{next_key + i:04d}", ts) for i in range(12)]
            next_key += 12
        elif operation == "upsert":
            rows = [row(k, ts if rng.random() < 0.8 else 0) for k in rng.sample(stored, 5)]
            rows += [row(f"k{next_key + i:04d}", ts) for i in range(3)]
            rows.append({**rows[0], "ts": ts + 1})  # a duplicate key in the batch: the larger ts wins
            next_key += 3
        elif operation == "delete":
            rows = [row(k, ts) for k in rng.sample(stored, 3)]
        else:
            rows = [r for r in (row(f"k{next_key + i:04d}", ts) for i in range(6)) if r["city"] == "sf"]
            next_key += 6
        frame = spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in rows], DDL)
        ours = hudi_spark.write(frame, spark_path, _options(table_type, operation, index))
        write_hudi(arrow_path, pa.Table.from_pylist(rows, schema=SCHEMA), _options(table_type, operation, index))
        if operation in ("bulk_insert", "insert"):
            model.insert_new(rows, ours.instant_time, ours.completion_time)
        elif operation == "upsert":
            model.upsert(rows, ours.instant_time, ours.completion_time)
        elif operation == "delete":
            model.delete(rows, ours.instant_time, ours.completion_time)
        else:
            model.insert_overwrite(rows, ours.instant_time, ours.completion_time, whole_table=False)
        _check(spark_path, model, f"spark {operation}")
        _check(arrow_path, model, f"arrow {operation}")
    assert HudiTable(spark_path).table_config.table_type.value == table_type
    spark_read = spark.read.format("hudi").load(spark_path).toArrow()
    assert canonical(table_rows(spark_read, COLUMNS)) == canonical(model.snapshot(COLUMNS))


def test_record_index_tagging_on_spark_reads_no_data_file(spark: Any, tmp_path: Path) -> None:
    """Merge-on-Read upserts tagged by the record index append logs without reading a base file:
    with every base file's bytes replaced, the upsert still commits, and restored, the table reads
    the model."""
    path = str(tmp_path / "t")
    rows = [{"id": f"k{i:03d}", "ts": 1, "city": ["sf", "nyc", "la"][i % 3], "fare": 1.0} for i in range(60)]
    table_rows_frame = spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in rows], DDL)
    hudi_spark.write(table_rows_frame, path, _options("MERGE_ON_READ", "bulk_insert", "RECORD_INDEX"))
    base_files = sorted(p for p in (tmp_path / "t").rglob("*.parquet") if ".hoodie" not in p.parts)
    saved = {p: p.read_bytes() for p in base_files}
    for p in base_files:
        p.write_bytes(b"not parquet")
    updates = [{**r, "ts": 2, "fare": 2.0} for r in rows[::7]]
    frame = spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in updates], DDL)
    hudi_spark.write(frame, path, _options("MERGE_ON_READ", "upsert", "RECORD_INDEX"))
    for p, content in saved.items():
        p.write_bytes(content)
    latest = {r["id"]: r for r in rows} | {r["id"]: r for r in updates}
    expected = canonical(table_rows(pa.Table.from_pylist(list(latest.values()), schema=SCHEMA), COLUMNS))
    assert canonical(table_rows(HudiTable(path).read(), COLUMNS)) == expected
    assert len(HudiTable(path).file_slices()) == len(base_files)  # updates went to logs, no new file group


def test_merge_on_read_upserts_and_deletes_record_base_positions(spark: Any, tmp_path: Path) -> None:
    """Under SIMPLE, each partition's rows are planned in one task by the Arrow engine's lookup, so
    the logs of a Spark upsert or delete name the base-file rows they replace, as Apache Hudi's do."""

    def frame(table: pa.Table) -> Any:
        return spark.createDataFrame(table.to_pandas(), "id string, ts long, p string, v string")

    write = {**positions.OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"}
    hudi_spark.write(frame(positions.rows(list(range(40)), 1, "v1")), str(tmp_path), write)
    hudi_spark.write(frame(positions.rows([31, 7, 12, 3, 40], 2, "v2")), str(tmp_path), positions.OPTIONS)
    delete = {**positions.OPTIONS, "hoodie.datasource.write.operation": "delete"}
    hudi_spark.write(frame(positions.rows([12, 8], 3, "gone")), str(tmp_path), delete)
    positions.assert_blocks_name_their_rows(tmp_path)


def test_upsert_larger_than_the_driver_result_limit(spark: Any, tmp_path: Path) -> None:
    """spark.driver.maxResultSize is 1m in this session: no data row may travel to the driver."""
    path = str(tmp_path / "big")
    base = spark.range(0, 120_000).selectExpr(
        "concat('key', cast(id as string)) as id",
        "id as ts",
        "concat('c', cast(id % 4 as string)) as city",
        "cast(id as double) * 1.5 as fare",
    )
    hudi_spark.write(base, path, _options("COPY_ON_WRITE", "bulk_insert"))
    updates = spark.range(0, 120_000, 3).selectExpr(
        "concat('key', cast(id as string)) as id",
        "id + 1000000 as ts",
        "concat('c', cast(id % 4 as string)) as city",
        "cast(-1.0 as double) as fare",
    )
    result = hudi_spark.write(updates, path, _options("COPY_ON_WRITE", "upsert"))
    assert result.updates == 40_000 and result.inserts == 0
    table = HudiTable(path).read(columns=["fare"])
    assert table.num_rows == 120_000
    assert sum(1 for f in table.column("fare").to_pylist() if f == -1.0) == 40_000


def test_generated_keys_number_rows_within_each_spark_partition(spark: Any, tmp_path: Path) -> None:
    """No record key fields: keys are `<instant>_<Spark partition>_<row in it>`, as Apache Hudi's."""
    path = str(tmp_path / "keyless")
    frame = spark.range(0, 1000, numPartitions=3).selectExpr("id as v", "concat('c', cast(id % 2 as string)) as city")
    options = {
        "hoodie.table.name": "keyless",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.operation": "upsert",  # inserts: there are no keys to match
    }
    first = hudi_spark.write(frame, path, options)
    second = hudi_spark.write(frame, path, options)
    assert first.operation.value == "insert" and first.inserts == 1000
    keys = HudiTable(path).read(columns=["_hoodie_record_key"]).column(0).to_pylist()
    assert len(keys) == 2000 and len(set(keys)) == 2000
    tasks = {tuple(k.split("_")[:2]) for k in keys}
    assert tasks == {(r.instant_time, str(p)) for r in (first, second) for p in range(3)}


def test_dataframe_writer_appends_overwrites_and_refuses_upserts(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "ds")
    rows = [(f"k{i}", i, ["sf", "la"][i % 2], float(i)) for i in range(20)]
    frame = spark.createDataFrame(rows, DDL).repartition(3)
    frame.write.format("hudi").options(**_options("COPY_ON_WRITE", "bulk_insert")).mode("append").save(path)
    more = spark.createDataFrame([(f"n{i}", i, "sf", 1.0) for i in range(5)], DDL)
    more.write.format("hudi").options(**_options("COPY_ON_WRITE", "insert")).mode("append").save(path)
    assert HudiTable(path).read().num_rows == 25
    assert hudi_rs.snapshot(path).num_rows == 25
    with pytest.raises(Exception, match=r"hudi_core\.spark\.write"):
        more.write.format("hudi").options(**_options("COPY_ON_WRITE", "upsert")).mode("append").save(path)
    assert HudiTable(path).read().num_rows == 25
    assert not HudiTable(path).timeline.pending(), "a refused write leaves no instant"
    last = spark.createDataFrame([("z", 1, "nyc", 2.0)], DDL)
    last.write.format("hudi").options(**_options("COPY_ON_WRITE", "bulk_insert")).mode("overwrite").save(path)
    assert HudiTable(path).read(columns=["id"]).column("id").to_pylist() == ["z"]
    assert hudi_rs.snapshot(path).column("id").to_pylist() == ["z"]


def test_bad_input_leaves_the_table_unchanged(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "bad")
    good = spark.createDataFrame([("a", 1, "sf", 1.0)], DDL)
    hudi_spark.write(good, path, _options("MERGE_ON_READ", "upsert"))
    before = sorted((tmp_path / "bad").rglob("*"))
    null_key = spark.createDataFrame([(None, 2, "sf", 2.0)], DDL)
    with pytest.raises(InvalidKeyError):
        hudi_spark.write(null_key, path, _options("MERGE_ON_READ", "upsert"))
    with pytest.raises(HudiConfigError):
        hudi_spark.write(good, path, {**_options("MERGE_ON_READ", "upsert"), "hoodie.no.such.option": "1"})
    assert sorted((tmp_path / "bad").rglob("*")) == before


def test_the_spark_engine_routes_by_consistent_hashing_rings_as_the_arrow_engine(spark: Any, tmp_path: Path) -> None:
    """Executors route by the rings the driver loaded or created: both engines name the same file
    groups (ring nodes) for the same rows, and the tables read alike."""
    ring_options = {
        "hoodie.index.type": "BUCKET",
        "hoodie.index.bucket.engine": "CONSISTENT_HASHING",
        "hoodie.bucket.index.num.buckets": "4",
    }
    rng = random.Random("consistent-hashing-spark")
    rows = [
        {"id": f"k{i:03d}", "ts": 1, "city": ["sf", "nyc"][i % 2], "fare": round(rng.uniform(1, 99), 2)}
        for i in range(40)
    ]
    updates = [{**r, "ts": 2, "fare": 0.5} for r in rng.sample(rows, 10)]
    paths = {"spark": str(tmp_path / "spark"), "arrow": str(tmp_path / "arrow")}
    for batch, operation in ((rows, "insert"), (updates, "upsert")):
        options = {**_options("MERGE_ON_READ", operation), **ring_options}
        frame = spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in batch], DDL)
        hudi_spark.write(frame, paths["spark"], options)
        write_hudi(paths["arrow"], pa.Table.from_pylist(batch, schema=SCHEMA), options)
    groups = {
        engine: {(s.partition_path, s.file_id) for s in HudiTable(path).file_slices()} for engine, path in paths.items()
    }
    assert groups["spark"] == groups["arrow"]
    rings = {(city, n.file_id) for city in ("sf", "nyc") for n in HashingMetadata.initial(city, 4).nodes}
    assert groups["spark"] <= rings
    snapshots = {engine: canonical(table_rows(HudiTable(path).read(), COLUMNS)) for engine, path in paths.items()}
    assert snapshots["spark"] == snapshots["arrow"]


def test_executors_without_the_package_give_a_clear_error_and_commit_nothing(tmp_path: Path) -> None:
    """A session whose executors cannot import hudi_core: the write fails with HudiNotInstalledError
    naming what to install, the table is as it was, and a session that has it writes."""
    path = str(tmp_path / "t")
    first = pa.table({"id": [1, 2], "ts": [1, 1]})
    write_hudi(path, first, {**NO_PACKAGE_OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"})
    before = file_tree(tmp_path / "t")
    fake = tmp_path / "fake" / "hudi_core"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'hudi_core'\", name='hudi_core')\n")
    done = subprocess.run(
        [sys.executable, "-m", "tests.spark.no_package_job", path, str(tmp_path / "fake")],
        check=True,
        cwd=tmp_path,  # Python workers put their working directory first on sys.path
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["type"] == "HudiNotInstalledError", done.stderr[-3000:]
    assert "executors cannot import hudi_core" in outcome["message"]
    assert file_tree(tmp_path / "t") == before
    write_hudi(
        path, pa.table({"id": [3], "ts": [2]}), {**NO_PACKAGE_OPTIONS, "hoodie.datasource.write.operation": "upsert"}
    )
    assert sorted(HudiTable(path).read().column("id").to_pylist()) == [1, 2, 3]
