"""The Spark engine plans as the Arrow engine does: the same histories, written with Spark.

* Bucket index: insert_overwrite, delete_partition and insert_overwrite_table give replaced buckets
  new file groups named for their bucket (tests/hudi_core/write/test_bucket_index.py).
* Global index, event-time ordering: a key changes partition only when its incoming record wins
  over the merged stored record (tests/hudi_core/write/test_write_ordering.py).
* A table whose `hoodie.properties` lost its partition fields is refused, as by the Arrow engine
  (tests/faults/test_corrupt_files.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable, WriteResult
from hudi_core import spark as hudi_spark
from hudi_core.engine.spark.types import spark_schema
from tests.files import file_tree
from tests.hudi_core.write import test_bucket_index as buckets
from tests.hudi_core.write import test_write_ordering as ordering
from tests.interop.test_model_histories import History


@pytest.fixture
def spark(local_spark: Any) -> Any:
    """Write decisions, not distribution (the cluster runs random histories in test_spark_writes):
    the worker's local session (the cluster's worker runs only what needs the cluster)."""
    return local_spark


def _frame(spark: Any, rows: Sequence[dict[str, Any]], schema: pa.Schema) -> Any:
    data = pa.Table.from_pylist(list(rows), schema=schema).to_pandas()
    return spark.createDataFrame(data, schema=spark_schema(schema))


def _options(table_name: str, table_type: str, operation: str, extra: dict[str, str]) -> dict[str, str]:
    return {
        "hoodie.table.name": table_name,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
        **extra,
    }


class SparkBucketSteps(buckets.Steps):
    def __init__(self, spark: Any, tmp_path: Path, table_type: str) -> None:
        super().__init__(tmp_path, table_type)
        self.spark = spark
        self.table_type = table_type

    def run(self, operation: str, rows: list[dict[str, Any]]) -> WriteResult:
        options = _options("buckets", self.table_type, operation, buckets.OPTIONS)
        return hudi_spark.write(_frame(self.spark, rows, buckets.SCHEMA), str(self.path), options)

    def run_delete_partition(self, partition: str) -> WriteResult:
        options = _options("buckets", self.table_type, "delete_partition", buckets.OPTIONS)
        options["hoodie.datasource.write.partitions.to.delete"] = partition
        return hudi_spark.write(_frame(self.spark, [], buckets.SCHEMA), str(self.path), options)


class SparkOrderingSteps(ordering.Steps):
    def __init__(self, spark: Any, tmp_path: Path, table_type: str, index: str) -> None:
        super().__init__(tmp_path, table_type, index, None)
        self.spark = spark

    def upsert(self, *rows: dict[str, Any]) -> None:
        options = _options("ordering", self.table_type, "upsert", self.options)
        hudi_spark.write(_frame(self.spark, rows, ordering.SCHEMA), self.table.base_uri, options)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_spark_gives_replaced_buckets_new_file_groups(spark: Any, table_type: str, tmp_path: Path) -> None:
    history = History(random.Random(f"spark-bucket-replace-{table_type}"), partitioned=True)
    buckets.replacing_writes(SparkBucketSteps(spark, tmp_path, table_type), history)


@pytest.mark.parametrize(
    ("table_type", "index"),
    [("COPY_ON_WRITE", "GLOBAL_BLOOM"), ("MERGE_ON_READ", "GLOBAL_SIMPLE"), ("MERGE_ON_READ", "RECORD_INDEX")],
)
def test_spark_moves_a_key_only_when_it_wins_over_the_stored_record(
    spark: Any, table_type: str, index: str, tmp_path: Path
) -> None:
    ordering.partition_moves_against_the_merged_stored_record(SparkOrderingSteps(spark, tmp_path, table_type, index))


def test_spark_refuses_a_write_without_partition_fields_into_a_partitioned_table(spark: Any, tmp_path: Path) -> None:
    """The decisions both engines share: a lost `hoodie.table.partition.fields` would route every
    record to the base path and store its key a second time; the table stays as it was."""
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string())])
    path = tmp_path / "t"
    table = HudiTable.create(str(path), schema, "t", ["id"], ["city"], ["ts"], "MERGE_ON_READ")
    table.upsert(pa.table({"id": ["a", "b"], "ts": [1, 1], "city": ["x", "y"]}, schema=schema))
    properties = path / ".hoodie" / "hoodie.properties"
    properties.write_text(
        "\n".join(
            line for line in properties.read_text().splitlines() if not line.startswith("hoodie.table.partition.")
        )
        + "\n"
    )
    before = file_tree(path)
    options = _options("t", "MERGE_ON_READ", "upsert", {})
    del options["hoodie.datasource.write.partitionpath.field"]
    rows = [{"id": "a", "ts": 2, "city": "x"}]
    with pytest.raises(HudiConfigError, match=r"declares no partition fields .* has 2 partition\(s\)"):
        hudi_spark.write(_frame(spark, rows, schema), str(path), options)
    assert file_tree(path) == before
