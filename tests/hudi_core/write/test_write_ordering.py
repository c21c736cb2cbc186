"""Write-side ordering, fixed cases: late upserts and deletes on every table type and index type.

Apache Hudi's rules (1.0, `DefaultHoodieRecordPayload` / `HoodieAvroRecordMerger`, the file group
record buffer):

* EVENT_TIME_ORDERING (the default of a table with an ordering field): a record replaces the stored
  one only when its ordering value is not smaller; a late upsert loses, on Copy-on-Write (the merge
  keeps the stored row) as on Merge-on-Read (the log record loses when read and when compacted).
* A delete marked by `_hoodie_is_deleted = true` is a record with an ordering value: it deletes only
  a record whose ordering value is not greater than its own.
* The `delete` operation deletes by key: Hudi turns its rows into keys (`HoodieSparkSqlWriter`) and
  writes `EmptyHoodieRecordPayload` records, whose ordering value is the natural-order default 0, so
  the delete wins over any stored record whatever ordering values its rows hold.
* COMMIT_TIME_ORDERING: the latest write wins, late or not, deletes included.

Every expected snapshot below is a literal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.table import RecordMergeMode
from tests.model import canonical, table_rows

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("ts", pa.int64()),
        ("city", pa.string()),
        ("fare", pa.float64()),
        ("_hoodie_is_deleted", pa.bool_()),
    ]
)
COLUMNS = ["id", "ts", "city", "fare"]
INDEXES = ("SIMPLE", "GLOBAL_SIMPLE", "BLOOM", "GLOBAL_BLOOM", "BUCKET", "RECORD_INDEX")
CASES = [
    pytest.param(table_type, index, id=f"{table_type}-{index}")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for index in INDEXES
]

Expected = list[tuple[str, int, str, float]]


def _row(key: str, ts: int, fare: float, city: str = "sf", deleted: bool = False) -> dict[str, Any]:
    return {"id": key, "ts": ts, "city": city, "fare": fare, "_hoodie_is_deleted": deleted}


def _data(*rows: dict[str, Any]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=SCHEMA)


class Steps:
    """Writes to one table and checks its snapshot, compacting first on Merge-on-Read when asked."""

    def __init__(self, tmp_path: Path, table_type: str, index: str, mode: str | None) -> None:
        self.table_type = table_type
        self.options = {"hoodie.index.type": index, "hoodie.bucket.index.num.buckets": "4"}
        create_options = {"hoodie.write.record.merge.mode": mode} if mode else {}
        self.table = HudiTable.create(
            str(tmp_path / "t"), SCHEMA, "ordering", ["id"], ["city"], ["ts"], table_type, create_options
        )

    def upsert(self, *rows: dict[str, Any]) -> None:
        self.table.upsert(_data(*rows), self.options)

    def delete(self, *rows: dict[str, Any]) -> None:
        self.table.delete(_data(*rows), self.options)

    def expect(self, rows: Expected, what: str, compact: bool = False) -> None:
        """The snapshot holds exactly `rows`, and the metadata table (record index included) agrees."""
        self._check(rows, what)
        if compact and self.table_type == "MERGE_ON_READ":
            assert self.table.compact(options=self.options) is not None, f"nothing to compact: {what}"
            assert not [s for s in self.table.file_slices() if s.log_files], f"log files left: {what}"
            self._check(rows, f"compacted: {what}")

    def _check(self, rows: Expected, what: str) -> None:
        expected = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
        assert canonical(table_rows(self.table.read(), COLUMNS)) == canonical(expected), what
        validation = self.table.validate_metadata()
        assert validation.ok, f"metadata table after {what}: {validation}"


@pytest.mark.parametrize(("table_type", "index"), CASES)
def test_event_time_late_records_lose(table_type: str, index: str, tmp_path: Path) -> None:
    steps = Steps(tmp_path, table_type, index, None)
    assert steps.table.table_config.record_merge_mode is RecordMergeMode.EVENT_TIME_ORDERING
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "first write")

    steps.upsert(_row("k1", 5, 5.0))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "a late upsert loses")

    steps.upsert(_row("k1", 5, 5.0, deleted=True))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "a late delete loses", compact=True)

    steps.upsert(_row("k1", 5, 6.0), _row("k2", 9, 7.0, city="nyc"))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "late upserts lose to the compacted base")

    steps.upsert(_row("k1", 10, 3.0))
    steps.expect([("k1", 10, "sf", 3.0), ("k2", 10, "nyc", 2.0)], "an equal ordering value wins (the later write)")

    steps.upsert(_row("k1", 20, 0.0, deleted=True))
    steps.expect([("k2", 10, "nyc", 2.0)], "a newer delete deletes", compact=True)

    steps.delete(_row("k2", 5, 0.0, city="nyc"))
    steps.expect([], "the delete operation deletes whatever ordering value its rows hold", compact=True)


@pytest.mark.parametrize(("table_type", "index"), CASES)
def test_commit_time_latest_write_wins(table_type: str, index: str, tmp_path: Path) -> None:
    steps = Steps(tmp_path, table_type, index, "COMMIT_TIME_ORDERING")
    assert steps.table.table_config.record_merge_mode is RecordMergeMode.COMMIT_TIME_ORDERING
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "first write")

    steps.upsert(_row("k1", 5, 5.0))
    steps.expect([("k1", 5, "sf", 5.0), ("k2", 10, "nyc", 2.0)], "a late upsert wins", compact=True)

    steps.upsert(_row("k1", 1, 0.0, deleted=True))
    steps.expect([("k2", 10, "nyc", 2.0)], "a late delete deletes", compact=True)

    steps.delete(_row("k2", 5, 0.0, city="nyc"))
    steps.expect([], "the delete operation deletes", compact=True)


GLOBAL_CASES = [
    pytest.param(table_type, index, id=f"{table_type}-{index}")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for index in ("GLOBAL_SIMPLE", "GLOBAL_BLOOM", "RECORD_INDEX")
]


@pytest.mark.parametrize(("table_type", "index"), GLOBAL_CASES)
def test_event_time_newer_record_moves_across_partitions_under_a_global_index(
    table_type: str, index: str, tmp_path: Path
) -> None:
    steps = Steps(tmp_path, table_type, index, None)
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"))
    steps.upsert(_row("k1", 20, 6.0, city="la"))
    steps.expect([("k1", 20, "la", 6.0), ("k2", 10, "nyc", 2.0)], "a newer record moves its key", compact=True)


@pytest.mark.parametrize(("table_type", "index"), GLOBAL_CASES)
def test_event_time_late_record_in_another_partition_loses_under_a_global_index(
    table_type: str, index: str, tmp_path: Path
) -> None:
    steps = Steps(tmp_path, table_type, index, None)
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"))
    steps.upsert(_row("k1", 5, 5.0, city="la"))
    steps.expect([("k1", 10, "sf", 1.0), ("k2", 10, "nyc", 2.0)], "a late record does not move its key")


def partition_moves_against_the_merged_stored_record(steps: Steps) -> None:
    """Event-time ordering, a global index: a key moves only when its incoming record wins over the
    stored one as merged with its logs (the Spark engine runs this history too)."""
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"), _row("k3", 10, 3.0))
    steps.upsert(_row("k1", 20, 4.0))  # Merge-on-Read: a log record newer than the base file's
    steps.upsert(_row("k1", 15, 5.0, city="la"), _row("k2", 10, 6.0, city="la"))
    steps.expect(
        [("k1", 20, "sf", 4.0), ("k2", 10, "la", 6.0), ("k3", 10, "sf", 3.0)],
        "a record older than the merged stored one stays; an equal ordering value moves the key",
        compact=True,
    )
    steps.upsert(_row("k3", 30, 0.0, deleted=True))
    steps.upsert(_row("k3", 25, 7.0, city="nyc"))
    steps.expect(
        [("k1", 20, "sf", 4.0), ("k2", 10, "la", 6.0), ("k3", 25, "nyc", 7.0)],
        "a key deleted where it was is inserted where it now belongs",
        compact=True,
    )


@pytest.mark.parametrize(("table_type", "index"), GLOBAL_CASES)
def test_event_time_partition_move_compares_with_the_merged_stored_record(
    table_type: str, index: str, tmp_path: Path
) -> None:
    partition_moves_against_the_merged_stored_record(Steps(tmp_path, table_type, index, None))


@pytest.mark.parametrize(("table_type", "index"), GLOBAL_CASES)
def test_commit_time_late_record_moves_across_partitions_under_a_global_index(
    table_type: str, index: str, tmp_path: Path
) -> None:
    steps = Steps(tmp_path, table_type, index, "COMMIT_TIME_ORDERING")
    steps.upsert(_row("k1", 10, 1.0), _row("k2", 10, 2.0, city="nyc"))
    steps.upsert(_row("k1", 5, 5.0, city="la"))
    steps.expect([("k1", 5, "la", 5.0), ("k2", 10, "nyc", 2.0)], "the latest write moves its key", compact=True)
