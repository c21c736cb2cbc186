"""A DataFrame read from a Hudi table stays the whole table, whatever was queried on it before.

PySpark 4.3 keeps the read info a filter pushdown produced (the pickled reader and the partitions it
planned) on the relation and reuses it for every later scan of that DataFrame that pushes nothing:
pruning derived from pushed filters would leak into later, unrelated queries and into writes of
derived DataFrames. `hudi_core.spark.read(filters=...)` prunes for that one call instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hudi_core import HudiConfigError, HudiTable, metrics
from hudi_core.errors import FilterError
from tests.model import canonical, table_rows
from tests.spark.reuse import (
    DATA_COLUMNS,
    FILTERS,
    OPTIONS,
    PUSHDOWN,
    ROWS,
    WHERE,
    all_rows,
    doubled,
    filtered_rows,
)


@pytest.fixture
def spark(local_spark: Any) -> Any:
    """Query semantics, not distribution: the worker's local session (the cluster's worker runs
    only what needs the cluster)."""
    return local_spark


@pytest.fixture(params=["true", "false"], ids=["pushdown", "no_pushdown"])
def pushdown(request: pytest.FixtureRequest, spark: Any) -> Iterator[str]:
    """The source works whether or not the session pushes filters to Python data sources."""
    before = spark.conf.get(PUSHDOWN)
    spark.conf.set(PUSHDOWN, request.param)
    try:
        yield request.param
    finally:
        spark.conf.set(PUSHDOWN, before)


def test_count_after_a_filtered_count_is_the_whole_table(reuse_table: str, spark: Any, pushdown: str) -> None:
    expected = len(filtered_rows(reuse_table))
    assert 0 < expected < ROWS
    df = spark.read.format("hudi").load(reuse_table)
    assert df.count() == ROWS
    assert df.where(WHERE).count() == expected
    assert df.count() == ROWS
    filtered_first = spark.read.format("hudi").load(reuse_table)  # the filtered query plans it first
    assert filtered_first.where(WHERE).count() == expected
    assert filtered_first.count() == ROWS


def test_collect_after_a_filtered_query_returns_every_row(reuse_table: str, spark: Any, pushdown: str) -> None:
    df = spark.read.format("hudi").load(reuse_table)
    assert len(df.where(WHERE).collect()) == len(filtered_rows(reuse_table))
    collected = [row.asDict() for row in df.select(*DATA_COLUMNS).collect()]
    assert canonical(collected) == canonical(all_rows(reuse_table))


def test_frame_derived_after_a_filtered_query_writes_every_row(
    reuse_table: str, spark: Any, tmp_path: Path, pushdown: str
) -> None:
    from pyspark.sql import functions as sf  # noqa: PLC0415 - PySpark loads only when Spark tests run

    from hudi_core import spark as hudi_spark  # noqa: PLC0415

    df = spark.read.format("hudi").load(reuse_table)
    assert df.where(WHERE).count() == len(filtered_rows(reuse_table))
    derived = df.select(*DATA_COLUMNS).withColumn("fare", sf.col("fare") * 2)
    target = str(tmp_path / "doubled")
    assert hudi_spark.write(derived, target, {**OPTIONS, "hoodie.table.name": "doubled"}).inserts == ROWS
    stored = table_rows(HudiTable(target).read(), DATA_COLUMNS)
    assert canonical(stored) == canonical(doubled(all_rows(reuse_table)))


def test_read_with_filters_prunes_for_that_call(reuse_table: str, spark: Any) -> None:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415

    with metrics.capture() as pruned:
        frame = hudi_spark.read(spark, reuse_table, filters=FILTERS)
    # The partition path leaves nyc; its column statistics drop its first file group (fares 0-49).
    assert pruned.files_pruned == 1
    expected = filtered_rows(reuse_table)
    rows = [row.asDict() for row in frame.select(*DATA_COLUMNS).collect()]
    assert canonical(rows) == canonical(expected)
    same = spark.read.format("hudi").load(reuse_table).where(WHERE).select(*DATA_COLUMNS).collect()
    assert canonical([row.asDict() for row in same]) == canonical(expected)
    assert frame.count() == len(expected)  # the frame is the filtered rows, query after query

    narrow = hudi_spark.read(spark, reuse_table, filters=FILTERS, columns=["fare", "id"])
    assert narrow.columns == ["fare", "id"]
    assert canonical([row.asDict() for row in narrow.collect()]) == canonical(
        [{"fare": r["fare"], "id": r["id"]} for r in expected]
    )
    with metrics.capture() as whole:
        assert hudi_spark.read(spark, reuse_table, columns=DATA_COLUMNS).count() == ROWS
    assert whole.files_pruned == 0
    nowhere = hudi_spark.read(spark, reuse_table, filters=[("city", "=", "nowhere")], columns=DATA_COLUMNS)
    assert (nowhere.columns, nowhere.count()) == (DATA_COLUMNS, 0)  # nothing planned, nothing read


def test_read_with_filters_refuses_what_it_cannot_plan(reuse_table: str, spark: Any) -> None:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415

    with pytest.raises(FilterError, match="'nope'"):
        hudi_spark.read(spark, reuse_table, filters=[("nope", "=", 1)])
    cdc = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc"}
    with pytest.raises(HudiConfigError, match="CDC query"):
        hudi_spark.read(spark, reuse_table, options=cdc, filters=FILTERS)
