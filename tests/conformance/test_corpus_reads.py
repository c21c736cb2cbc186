"""Every table and query of the conformance corpus, read by hudi_core and compared.

* snapshots against the expected files (Spark's reads, identical to hudi-rs 0.5.0's);
* every `expected_queries` entry (projections, read-optimized, incremental windows) against its file;
* for every completed instant recorded from hudi-rs: time travel to its requested time and the
  incremental read of its window return the recorded row counts, and the same rows as hudi 0.5.0
  returns in this run; read-optimized reads equal hudi 0.5.0's too;
* comparisons with hudi-rs cover every column it returns, the five `_hoodie_*` meta columns
  included (the expected files leave them out); the snapshots of the tables whose zip ships Spark's
  own read (`gold_data/`, meta columns included) equal it column for column.

Where hudi 0.5.0 itself deviates from Spark, `HUDI_RS_DEVIATIONS` names the test and the reason;
those tests compare with hudi-rs only what it gets right, and the Spark expected file decides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable
from hudi_core.schema.meta_fields import META_FIELDS
from tests import hudi_rs
from tests.corpus import (
    CorpusTable,
    as_multiset,
    conformance_dir,
    corpus_tables,
    data_columns,
    extract,
    manifest,
    normalize_rows,
    read_jsonl,
)

pytestmark = pytest.mark.conformance

TABLES = corpus_tables()
QUERIES = [(t, q) for t in TABLES for q in t.queries]
INSTANTS = [(t, i) for t in TABLES for i in t.instants]
READ_OPTIMIZED = [t for t in TABLES if t.entry["hudi_rs_read"].get("read_optimized_rows") is not None]


# hudi 0.5.0 returns partial-update log records unmerged in incremental reads (nulls in the columns
# the IS_PARTIAL block lacks); Spark's `options.incr_all` output for the same table has them merged.
HUDI_RS_DEVIATIONS = {
    "incremental:quickstart_trips_table/mor/avro/table_partial_update@20260607061243026": "unmerged partial updates",
}


def _param(test_id: str, *values: Any) -> Any:
    return pytest.param(*values, id=test_id)


def test_corpus_is_complete() -> None:
    """No table or query may silently drop out of the suite."""
    assert manifest()["count"] == len(TABLES) == 39
    assert len(QUERIES) == 98
    assert len(INSTANTS) == 118
    assert len(SPARK_SNAPSHOTS) == 12


@pytest.mark.parametrize("table", [_param(f"snapshot:{t.name}", t) for t in TABLES])
def test_snapshot_equals_expected(table: CorpusTable, corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    expected = table.expected_snapshot()
    hudi_table = HudiTable(str(base))
    result = hudi_table.read()
    assert result.num_rows == table.entry["expected_row_count"]
    columns = list(expected[0]) if expected else None
    assert as_multiset(normalize_rows(result, columns)) == as_multiset(expected)
    if columns is not None:
        assert data_columns(result.column_names) == columns
    _same_rows(hudi_table, result, hudi_rs.snapshot(base))


def _query_columns(query: dict[str, Any]) -> list[str] | None:
    select = query["spark_read"].get("select")
    return list(select) if isinstance(select, list) else None


@pytest.mark.parametrize(("table", "query"), [_param(f"query:{t.name}:{q['id']}", t, q) for t, q in QUERIES])
def test_query_equals_expected(table: CorpusTable, query: dict[str, Any], corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    expected = read_jsonl(conformance_dir() / query["expected"])
    result = HudiTable(str(base)).read(columns=_query_columns(query), options=query["spark_read"].get("options") or {})
    if _query_columns(query) is not None:
        assert result.column_names == query["columns"]
    assert result.num_rows == query["expected_row_count"]
    assert as_multiset(normalize_rows(result, query["columns"])) == as_multiset(expected)


def _same_rows(table: HudiTable, ours: pa.Table, theirs: pa.Table, deviation: str | None = None) -> None:
    """Ours equals hudi-rs's read in every column hudi-rs returns, meta columns included (hudi-rs
    returns none for tables that do not populate them)."""
    theirs_columns = theirs.column_names
    if table.table_config.populate_meta_fields:
        assert set(META_FIELDS) <= set(theirs_columns), f"hudi-rs returned no meta columns: {theirs_columns}"
    assert set(theirs_columns) <= set(ours.column_names), (
        f"hudi-rs columns {theirs_columns} vs ours {ours.column_names}"
    )
    if deviation is not None:
        # Only the columns hudi-rs fills in are comparable.
        filled = [c for c in theirs_columns if theirs.column(c).null_count == 0]
        assert as_multiset(normalize_rows(ours, filled)) == as_multiset(normalize_rows(theirs, filled))
        return
    assert as_multiset(normalize_rows(ours, theirs_columns)) == as_multiset(normalize_rows(theirs, theirs_columns))


# The quickstart_trips_table zips ship Spark's `SELECT *` of the table in `gold_data/`, except the
# one Spark cannot read.
SPARK_SNAPSHOTS = [
    t
    for t in TABLES
    if t.name.startswith("quickstart_trips_table/")
    and t.name != "quickstart_trips_table/mor/avro/table_hfile_log_block"
]


@pytest.mark.parametrize("table", [_param(f"spark_snapshot:{t.name}", t) for t in SPARK_SNAPSHOTS])
def test_snapshot_equals_sparks_with_meta_columns(table: CorpusTable, corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    files = sorted((base.parent / "gold_data").glob("*.parquet"))
    assert files, f"no gold_data next to {base}"
    spark = pa.concat_tables([pq.read_table(f) for f in files])
    assert set(META_FIELDS) <= set(spark.column_names)
    ours = HudiTable(str(base)).read()
    assert ours.column_names == spark.column_names
    columns = spark.column_names
    assert as_multiset(normalize_rows(ours, columns)) == as_multiset(normalize_rows(spark, columns))


def _window(instant: dict[str, Any]) -> tuple[str, str]:
    start, end = instant["incremental_range"].strip("(]").split(",")
    return start, end


@pytest.mark.parametrize(("table", "instant"), [_param(f"as_of:{t.name}@{i['requested']}", t, i) for t, i in INSTANTS])
def test_time_travel_matches_hudi_rs(table: CorpusTable, instant: dict[str, Any], corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    hudi_table = HudiTable(str(base))
    ours = hudi_table.read(as_of=instant["requested"])
    assert ours.num_rows == instant["as_of_requested_rows"]
    _same_rows(hudi_table, ours, hudi_rs.as_of(base, instant["requested"]))


@pytest.mark.parametrize(
    ("table", "instant"), [_param(f"incremental:{t.name}@{i['requested']}", t, i) for t, i in INSTANTS]
)
def test_incremental_matches_hudi_rs(table: CorpusTable, instant: dict[str, Any], corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    start, end = _window(instant)
    hudi_table = HudiTable(str(base))
    ours = hudi_table.read_incremental(start, end)
    assert ours.num_rows == instant["incremental_rows"]
    test_id = f"incremental:{table.name}@{instant['requested']}"
    _same_rows(hudi_table, ours, hudi_rs.incremental(base, start, end), HUDI_RS_DEVIATIONS.get(test_id))


@pytest.mark.parametrize("table", [_param(f"read_optimized:{t.name}", t) for t in READ_OPTIMIZED])
def test_read_optimized_matches_hudi_rs(table: CorpusTable, corpus_cache: Path) -> None:
    base = extract(table, corpus_cache)
    hudi_table = HudiTable(str(base))
    ours = hudi_table.read(options={"hoodie.datasource.query.type": "read_optimized"})
    assert ours.num_rows == table.entry["hudi_rs_read"]["read_optimized_rows"]
    _same_rows(hudi_table, ours, hudi_rs.read_optimized(base))
