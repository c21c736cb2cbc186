"""Random partition values through the Spark engine (`hudi_core.spark.write` on local Spark): every
file stays under the base path and every committed row reads back in our reader and in hudi-rs, or
the write is refused before anything is written (tests/partition_values.py). Few examples: each is a
Spark job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hudi_core import spark as hudi_spark
from tests.partition_values import (
    COLUMNS,
    ValueChecker,
    local_lake,
    local_listing,
    write_options,
)

DDL = "id string, ts long, city string, fare double"


@pytest.fixture
def spark(local_spark: Any) -> Any:
    """Path safety of values, not distribution: the worker's local session (the cluster's worker runs
    only what needs the cluster)."""
    return local_spark


def test_spark_write_of_any_partition_value_stays_inside_or_is_refused(spark: Any, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)

    def write(rows: list[dict[str, Any]]) -> None:
        frame = spark.createDataFrame([tuple(row[c] for c in COLUMNS) for row in rows], DDL)
        hudi_spark.write(frame, str(base), write_options())

    checker = ValueChecker(str(base), "lake/t", lambda: local_listing(tmp_path), write)
    checker.run(max_examples=3)
