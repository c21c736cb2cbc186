"""Reads that skip what they do not return, and the file layout that lets them.

* Filtered Merge-on-Read reads merge first and read the other base columns only for rows that pass.
  The table: 600 base rows (ts 100) in two partitions, then one log per file group with updates
  that win (ts 200), late updates that lose (ts 50), inserts and deletes. Every filtered read must
  equal the unfiltered read filtered afterwards, and hudi-rs must agree; an incremental read of the
  log's commit must not read the base columns it does not return rows from.
* A Copy-on-Write rewrite puts the rows its commit wrote in a row group of their own, so an
  incremental read of that commit skips the untouched rows by statistics.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, metrics
from tests import hudi_rs

BASE_ROWS = 600


def _rows(keys: range, ts: int, fare_offset: float) -> pa.Table:
    return pa.table(
        {
            "uuid": [f"k{i:04d}" for i in keys],
            "ts": pa.array([ts] * len(keys), pa.int64()),
            "city": ["paris" if i % 2 else "tokyo" for i in keys],
            "fare": [float(i) + fare_offset for i in keys],
            "rider": [f"rider-{i}-{ts}" for i in keys],
            "notes": [f"{'x' * 40}-{i}" for i in keys],
        }
    )


@pytest.fixture
def mor_table(tmp_path: Path) -> HudiTable:
    base = _rows(range(BASE_ROWS), 100, 0.0)
    table = HudiTable.create(
        str(tmp_path / "t"), base.schema, "t", ["uuid"], ["city"], ["ts"], table_type="MERGE_ON_READ"
    )
    table.bulk_insert(base)
    winning = _rows(range(0, 100), 200, 1000.0)
    losing = _rows(range(100, 150), 50, 5000.0)
    inserts = _rows(range(BASE_ROWS, BASE_ROWS + 40), 300, 0.0)
    table.upsert(pa.concat_tables([winning, losing, inserts]))
    table.delete(_rows(range(200, 220), 400, 0.0).select(["uuid", "ts", "city"]))
    assert sum(s.has_logs for s in table.file_slices()) == 2  # the inserts went to new base files
    return table


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by("uuid")


@pytest.mark.parametrize(
    "filters",
    [
        [("fare", ">=", 1000.0)],  # only rows the log replaced
        [("fare", "<", 150.0)],  # base rows only: 0-99 were replaced, the late updates of 100-149 lost
        [("rider", "=", "rider-120-100")],  # a base row whose late update lost
        [("uuid", "in", ["k0005", "k0205", "k0610", "k0300"])],  # updated, deleted, inserted, untouched
        [("ts", "=", 100), ("fare", "<", 300.0)],
    ],
)
def test_filtered_merge_equals_filtering_the_merged_rows(mor_table: HudiTable, filters: list[tuple]) -> None:
    everything = mor_table.read()
    expected = everything
    for column, op, value in filters:
        field = pc.field(column)
        condition = {"=": field == value, ">=": field >= value, "<": field < value}.get(op)
        expected = expected.filter(pc.is_in(field, pa.array(value)) if op == "in" else condition)
    got = mor_table.read(filters=filters)
    assert got.num_rows > 0
    assert _sorted(got).equals(_sorted(expected))
    rs = hudi_rs.snapshot(mor_table.base_uri)
    data = ["uuid", "ts", "city", "fare", "rider"]
    from_rs = _sorted(rs.filter(pc.is_in(rs.column("uuid"), got.column("uuid")))).select(data).to_pylist()
    assert from_rs == _sorted(got).select(data).to_pylist()


def test_incremental_read_of_a_log_commit_skips_the_base_columns(mor_table: HudiTable) -> None:
    upsert_instant = mor_table.timeline.completed_data_instants()[-2]
    bulk_instant = mor_table.timeline.completed_data_instants()[-3]
    start = mor_table.timeline.completion_order_key(bulk_instant)
    end = mor_table.timeline.completion_order_key(upsert_instant)
    with metrics.capture() as incremental:
        changed = mor_table.read_incremental(start, end)
    with metrics.capture() as snapshot:
        mor_table.read()
    # The winning updates and the inserts; the late updates lost to the base and are not changes.
    assert sorted(changed.column("uuid").to_pylist()) == [f"k{i:04d}" for i in [*range(100), *range(600, 640)]]
    assert set(changed.column("_hoodie_commit_time").to_pylist()) == {upsert_instant.requested_time}
    assert pc.min(changed.filter(pc.field("uuid") < "k0100").column("fare")).as_py() == 1000.0
    # Only the key, ordering and commit-time columns of the old base files were read.
    assert incremental.bytes_read < snapshot.bytes_read / 2


def test_cow_rewrite_puts_the_commits_rows_in_their_own_row_group(tmp_path: Path) -> None:
    base = _rows(range(BASE_ROWS), 100, 0.0)
    table = HudiTable.create(str(tmp_path / "t"), base.schema, "t", ["uuid"], ["city"], ["ts"])
    table.bulk_insert(base)
    table.upsert(
        pa.concat_tables([_rows(range(0, 30), 200, 1000.0), _rows(range(BASE_ROWS, BASE_ROWS + 10), 300, 0.0)])
    )
    instants = table.timeline.completed_data_instants()
    for file_slice in table.file_slices():
        assert file_slice.base_file_path is not None
        footer = pq.ParquetFile(str(tmp_path / "t" / file_slice.base_file_path)).metadata
        assert footer.num_row_groups == 2
        assert footer.row_group(0).num_rows == BASE_ROWS // 2 - 15  # untouched rows, in their old order
    start = table.timeline.completion_order_key(instants[0])
    with metrics.capture() as read:
        changed = table.read_incremental(start)
    assert changed.num_rows == 40
    assert read.row_groups_skipped == 2 and read.row_groups_read == 2
    assert hudi_rs.incremental(table.base_uri, start).num_rows == 40
    assert table.read().num_rows == BASE_ROWS + 10
