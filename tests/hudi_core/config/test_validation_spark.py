"""The Spark writers validate option values before any instant too: `hudi_core.spark.write` and the
`df.write.format("hudi")` data source refuse an out-of-range value, naming it, and leave the table as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hudi_core import HudiConfigError, HudiTable
from hudi_core import spark as hudi_spark
from tests.files import file_tree

pytestmark = pytest.mark.spark

DDL = "id string, ts long, city string, fare double"
OPTIONS = {
    "hoodie.table.name": "bad_values",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.operation": "insert",
}


def test_spark_writers_refuse_bad_values_before_an_instant(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    frame = spark.createDataFrame([("a", 1, "sf", 1.0), ("b", 1, "la", 2.0)], DDL)
    hudi_spark.write(frame, path, OPTIONS)
    before = file_tree(tmp_path / "t")
    for key, value in [("hoodie.parquet.block.size", "0"), ("hoodie.parquet.page.size", "-1")]:
        with pytest.raises(HudiConfigError, match=rf"invalid value '{value}' for option {key}"):
            hudi_spark.write(frame, path, {**OPTIONS, key: value})
        with pytest.raises(Exception, match=rf"invalid value '{value}' for option {key}"):
            frame.write.format("hudi").options(**OPTIONS, **{key: value}).mode("append").save(path)
    with pytest.raises(Exception, match=r"hoodie\.table\.name=other contradicts the name of the table written"):
        frame.write.format("hudi").options(**{**OPTIONS, "hoodie.table.name": "other"}).mode("append").save(path)
    assert file_tree(tmp_path / "t") == before
    assert HudiTable(path).read().num_rows == 2
