"""Spark reads size their tasks as Spark's file sources do: `spark.sql.files.maxPartitionBytes` and
`spark.sql.files.openCostInBytes`, from the session (as of `register`) or from one read's options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from hudi_core.errors import HudiConfigError
from hudi_core.spark.splits import SplitSizing, byte_size

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])


@pytest.fixture
def spark(local_spark: Any) -> Any:
    """Split sizing, not distribution: the worker's local session (the cluster's worker runs
    only what needs the cluster)."""
    return local_spark


def _table(path: Path) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "splits", ["id"], ["p"])
    table.bulk_insert(pa.table({"id": list(range(60)), "p": [f"p{i % 6}" for i in range(60)]}, schema=SCHEMA))
    return table


def test_byte_sizes_read_as_spark_reads_them() -> None:
    assert byte_size("134217728", "k") == byte_size("128m", "k") == byte_size("128MB", "k") == 128 * 2**20
    assert byte_size("1g", "k") == 2**30
    with pytest.raises(HudiConfigError, match="maxPartitionBytes"):
        SplitSizing().with_options({"spark.sql.files.maxpartitionbytes": "lots"})


def test_reads_split_by_max_partition_bytes(spark: Any, tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    slices = len(table.file_slices())
    assert slices == 6
    default = spark.read.format("hudi").load(str(tmp_path / "t"))
    assert default.rdd.getNumPartitions() == 1  # six small slices: one task, as Spark packs small files
    one_each = spark.read.format("hudi").option("spark.sql.files.maxPartitionBytes", "1").load(str(tmp_path / "t"))
    assert one_each.rdd.getNumPartitions() == slices
    assert one_each.count() == 60
    planned = hudi_spark.read(spark, str(tmp_path / "t"), {"spark.sql.files.maxPartitionBytes": "1"}, columns=["id"])
    assert planned.rdd.getNumPartitions() == slices and planned.count() == 60

    previous = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "1")
    try:
        hudi_spark.register(spark)  # the session's sizing as of now
        assert spark.read.format("hudi").load(str(tmp_path / "t")).rdd.getNumPartitions() == slices
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", previous)
        hudi_spark.register(spark)
    with pytest.raises(Exception, match=r"unknown option hoodie\.spark\.read\.split\.bytes"):
        spark.read.format("hudi").option("hoodie.spark.read.split.bytes", "1").load(str(tmp_path / "t")).count()
