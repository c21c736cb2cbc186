"""Spark reads (`spark.read.format("hudi")`) of every conformance table and query equal the expected files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.corpus import (
    CorpusTable,
    as_multiset,
    conformance_dir,
    corpus_tables,
    data_columns,
    extract,
    normalize_rows,
    read_jsonl,
)

TABLES = corpus_tables()
QUERIES = [(t, q) for t in TABLES for q in t.queries]


@pytest.fixture
def spark(local_spark: Any) -> Any:
    """The corpus read through Spark, not distribution: the worker's local session (the cluster's worker runs
    only what needs the cluster)."""
    return local_spark


@pytest.mark.parametrize("table", [pytest.param(t, id=f"snapshot:{t.name}") for t in TABLES])
def test_spark_snapshot_equals_expected(table: CorpusTable, spark: Any, corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    expected = table.expected_snapshot()
    result = spark.read.format("hudi").load(str(base)).toArrow()
    assert result.num_rows == table.entry["expected_row_count"]
    columns = list(expected[0]) if expected else None
    assert as_multiset(normalize_rows(result, columns)) == as_multiset(expected)
    if columns is not None:
        assert data_columns(result.column_names) == columns


@pytest.mark.parametrize(("table", "query"), [pytest.param(t, q, id=f"query:{t.name}:{q['id']}") for t, q in QUERIES])
def test_spark_query_equals_expected(table: CorpusTable, query: dict[str, Any], spark: Any, corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    expected = read_jsonl(conformance_dir() / query["expected"])
    frame = spark.read.format("hudi").options(**(query["spark_read"].get("options") or {})).load(str(base))
    select = query["spark_read"].get("select")
    if isinstance(select, list):
        frame = frame.select(*select)
    result = frame.toArrow()
    assert result.num_rows == query["expected_row_count"]
    assert as_multiset(normalize_rows(result, query["columns"])) == as_multiset(expected)
