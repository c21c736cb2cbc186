"""Table services on Spark (`hudi_core.spark.compact/log_compact/cluster/clean`) plan and commit on the
driver and rewrite file groups as Spark tasks; each equals the same service run by the Arrow engine
on a copy of the table: the same file groups and the same rows."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from tests import hudi_rs
from tests.model import canonical, table_rows
from tests.spark.standalone_cluster import StandaloneCluster, executors_of

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
MANUAL = {"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false", "hoodie.compact.inline": "false"}


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table(
        {"id": ids, "v": [f"v{ts}-{i}" for i in ids], "ts": [ts] * len(ids), "p": [f"p{i % 3}" for i in ids]}
    )


def _merge_on_read(path: Path) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "services", ["id"], ["p"], ["ts"], "MERGE_ON_READ", MANUAL)
    table.bulk_insert(_rows(list(range(300)), 1))
    for ts in range(2, 6):
        table.upsert(_rows(list(range(ts * 7, 300, 11)), ts))
    table.delete(_rows([4, 5, 6], 9))
    return table


def _layout(table: HudiTable) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, bool, int]]]:
    """The rows, and every latest slice as (partition, file id, has a base file, log files)."""
    view = table.file_slices()
    slices = sorted((s.partition_path, s.file_id, s.base_file is not None, len(s.log_files)) for s in view)
    return canonical(table_rows(table.read(), COLUMNS)), slices


def _tasks_on_executors(spark: Any) -> dict[str, int]:
    return {e["id"]: e["totalTasks"] for e in executors_of(spark)}


def _ran_on_executors(spark: Any, cluster: object | None, before: dict[str, int]) -> None:
    if not isinstance(cluster, StandaloneCluster):
        return  # local[2]: the driver's JVM runs the tasks
    after = _tasks_on_executors(spark)
    assert sum(after.values()) > sum(before.values()), "no service task ran on an executor"


@pytest.mark.parametrize("service", ["compact", "log_compact"])
def test_compaction_on_spark_equals_the_arrow_engines(
    spark: Any, spark_cluster: object | None, tmp_path: Path, service: str
) -> None:
    ours = _merge_on_read(tmp_path / "spark")
    shutil.copytree(tmp_path / "spark", tmp_path / "arrow")
    arrow = HudiTable(str(tmp_path / "arrow"))
    options = {"hoodie.log.compaction.blocks.threshold": "2"}
    before = _tasks_on_executors(spark)
    on_spark = getattr(hudi_spark, service)(spark, ours.base_uri, options)
    locally = getattr(arrow, service)(options=options)
    assert on_spark is not None and locally is not None
    assert on_spark.action == locally.action and on_spark.counts == locally.counts
    assert _layout(ours) == _layout(arrow)
    assert canonical(table_rows(hudi_rs.snapshot(ours.base_uri), COLUMNS)) == _layout(arrow)[0]
    _ran_on_executors(spark, spark_cluster, before)


def test_clustering_and_cleaning_on_spark_equal_the_arrow_engines(
    spark: Any, spark_cluster: object | None, tmp_path: Path
) -> None:
    table = HudiTable.create(
        str(tmp_path / "spark"), SCHEMA, "services", ["id"], ["p"], ["ts"], "COPY_ON_WRITE", MANUAL
    )
    for first in range(0, 600, 100):
        table.bulk_insert(_rows(list(range(first, first + 100)), 1))
    table.upsert(_rows(list(range(0, 600, 13)), 2))
    shutil.copytree(tmp_path / "spark", tmp_path / "arrow")
    arrow = HudiTable(str(tmp_path / "arrow"))
    clustering = {"hoodie.clustering.plan.strategy.sort.columns": "id"}
    before = _tasks_on_executors(spark)
    clustered = hudi_spark.cluster(spark, table.base_uri, clustering)
    assert clustered is not None and clustered.counts == arrow.cluster(options=clustering).counts  # type: ignore[union-attr]
    rows, _ = _layout(arrow)
    assert _layout(table)[0] == rows and len(_layout(table)[1]) == len(_layout(arrow)[1])

    cleaning = {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"}
    cleaned = hudi_spark.clean(spark, table.base_uri, cleaning)
    assert cleaned is not None and cleaned.counts == arrow.clean(options=cleaning).counts  # type: ignore[union-attr]
    files = sorted(p.name for p in (tmp_path / "spark").rglob("*.parquet") if ".hoodie" not in p.parts)
    assert len(files) == len([p for p in (tmp_path / "arrow").rglob("*.parquet") if ".hoodie" not in p.parts])
    assert _layout(table)[0] == rows
    _ran_on_executors(spark, spark_cluster, before)
