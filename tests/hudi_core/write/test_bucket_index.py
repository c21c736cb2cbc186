"""The bucket index through the operations that replace file groups.

Every live file group's id names its bucket (`%08d` + `-0000-0000-0000-` ...), one per bucket and
partition, and a bucket whose file group was replaced (insert_overwrite, insert_overwrite_table,
delete_partition) gets a new one: records routed to a replaced id would be lost to every reader.
Hudi refuses clustering under the simple bucket index. Our reader and hudi-rs equal the model.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable, WriteResult
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.index.bucket import bucket_ids
from tests import hudi_rs
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

BUCKETS = 2
OPTIONS = {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": str(BUCKETS)}
BUCKET_ID = r"^0000000[0-9]-0000-0000-0000-[0-9]{12}-0$"


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _bucket(key: str) -> int:
    return int(bucket_ids(pa.array([key]), ["id"], BUCKETS)[0])


def _file_ids(path: Path) -> set[tuple[str, str]]:
    """(partition, file id) of every data file in the table's folders, replaced ones included."""
    found = set()
    for file in path.rglob("*"):
        if ".hoodie" in file.parts or not file.is_file():
            continue
        parsed = parse_base_file_name(file.name) or parse_log_file_name(file.name)
        if parsed is not None:
            found.add((file.parent.relative_to(path).as_posix(), parsed.file_id))
    return found


def _check(table: HudiTable, path: Path, model: TableModel, what: str) -> None:
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(table.read(), COLUMNS)) == expected, f"ours vs model: {what}"
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, f"hudi-rs vs model: {what}"
    live = [(s.partition_path, s.file_id) for s in table.file_slices()]
    assert all(re.fullmatch(BUCKET_ID, f) for _, f in live), f"file ids naming no bucket: {live}"
    buckets = [(p, int(f[:8])) for p, f in live]
    assert len(buckets) == len(set(buckets)), f"two file groups of one bucket: {live}"
    for row in table.read(columns=["id", "city"]).to_pylist():
        assert (row["city"], _bucket(row["id"])) in buckets, f"{row} is not in its bucket's file group: {what}"


class Steps:
    """Our writes to one bucket-index table, each followed by the model's and the checks."""

    def __init__(self, tmp_path: Path, table_type: str) -> None:
        self.path = tmp_path / "t"
        self.table = HudiTable.create(str(self.path), SCHEMA, "buckets", ["id"], ["city"], ["ts"], table_type)
        self.model = TableModel("id", lambda r: r["city"], "ts")

    def run(self, operation: str, rows: list[dict[str, Any]]) -> WriteResult:
        """One write with the Arrow engine."""
        result: WriteResult = getattr(self.table, operation)(_table(rows), OPTIONS)
        return result

    def run_delete_partition(self, partition: str) -> WriteResult:
        return self.table.delete_partitions([partition], OPTIONS)

    def write(self, operation: str, rows: list[dict[str, Any]], what: str) -> None:
        result = self.run(operation, rows)
        if operation == "bulk_insert":
            self.model.insert_new(rows, result.instant_time, result.completion_time)
        elif operation == "upsert":
            self.model.upsert(rows, result.instant_time, result.completion_time)
        else:
            whole_table = operation == "insert_overwrite_table"
            self.model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table)
        _check(self.table, self.path, self.model, what)

    def delete_partition(self, partition: str) -> None:
        result = self.run_delete_partition(partition)
        self.model.delete_partitions([partition], result.instant_time, result.completion_time)
        _check(self.table, self.path, self.model, f"delete_partition {partition}")


def replacing_writes(steps: Steps, history: History) -> None:
    """Writes that replace bucket file groups, each followed by writes into the replaced buckets (the
    Spark engine runs this history too)."""
    steps.write("bulk_insert", history.fresh(12, 100), "bulk_insert")
    # One row: the other bucket of sf is replaced without a new file group.
    steps.write("insert_overwrite", history.fresh_in("sf", 1, 110), "insert_overwrite of sf")
    updates = [history.row(k, 121) for _, k in sorted(steps.model.current)[:4]]
    steps.write("upsert", history.fresh_in("sf", 6, 120) + updates, "upsert into every bucket of sf")
    steps.delete_partition("nyc")
    steps.write("upsert", history.fresh_in("nyc", 6, 130), "upsert into the deleted partition")
    steps.write("insert_overwrite_table", history.fresh_in("chennai", 3, 140), "insert_overwrite_table")
    rows = history.fresh_in("sf", 4, 150) + history.fresh_in("chennai", 4, 150)
    steps.write("upsert", rows, "upsert after insert_overwrite_table")

    # No file group id was used twice: a replaced id stays replaced for every reader.
    table = steps.table
    live = {(s.partition_path, s.file_id) for s in table.file_slices()}
    replaced = {
        (p, f)
        for instant in table.timeline.completed_data_instants()
        for p, ids in table.timeline.commit_metadata(instant).partition_to_replace_file_ids.items()
        for f in ids
    }
    assert replaced and not live & replaced
    assert _file_ids(steps.path) >= live | replaced


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_replaced_buckets_get_new_file_groups(table_type: str, tmp_path: Path) -> None:
    replacing_writes(Steps(tmp_path, table_type), History(random.Random(f"bucket-replace-{table_type}"), True))


def test_a_partition_not_written_with_the_bucket_index_is_refused(tmp_path: Path) -> None:
    history = History(random.Random("bucket-refused"), partitioned=True)
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "buckets", ["id"], ["city"], ["ts"], "COPY_ON_WRITE")
    table.bulk_insert(_table(history.fresh_in("sf", 4, 100)))  # the SIMPLE index: random file ids
    before = sorted(p for p in path.rglob("*") if p.is_file())
    with pytest.raises(HudiConfigError, match=r"partition 'sf' names no bucket of hoodie.bucket.index.num.buckets=2"):
        table.upsert(_table(history.fresh_in("sf", 2, 110)), OPTIONS)
    assert sorted(p for p in path.rglob("*") if p.is_file()) == before


def test_clustering_is_refused_under_the_bucket_index(tmp_path: Path) -> None:
    history = History(random.Random("bucket-clustering"), partitioned=True)
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "buckets", ["id"], ["city"], ["ts"], "COPY_ON_WRITE")
    table.bulk_insert(_table(history.fresh(8, 100)), OPTIONS)
    before = sorted(p for p in path.rglob("*") if p.is_file())
    with pytest.raises(HudiConfigError, match=r"clustering is not supported with hoodie.index.type=BUCKET"):
        table.cluster(options=OPTIONS)
    with pytest.raises(HudiConfigError, match=r"clustering is not supported with hoodie.index.type=BUCKET"):
        table.schedule_clustering(options=OPTIONS)
    inline = {**OPTIONS, "hoodie.clustering.inline": "true"}
    with pytest.raises(HudiConfigError, match=r"hoodie.clustering.inline=true is not supported"):
        table.upsert(_table(history.fresh(2, 110)), inline)
    assert sorted(p for p in path.rglob("*") if p.is_file()) == before


def test_deletes_of_a_bucket_not_yet_written_create_no_file_group(tmp_path: Path) -> None:
    history = History(random.Random("bucket-deletes"), partitioned=False)
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "buckets", ["id"], None, ["ts"], "MERGE_ON_READ")
    stored = history.fresh(1, 100)
    table.upsert(_table(stored), OPTIONS)
    elsewhere = next(
        r for r in (history.fresh(1, 110)[0] for _ in range(50)) if _bucket(r["id"]) != _bucket(stored[0]["id"])
    )
    before = _file_ids(path)
    assert table.delete(_table([elsewhere]), OPTIONS).write_stats == ()
    assert _file_ids(path) == before
    assert canonical(table_rows(table.read(), COLUMNS)) == canonical(stored)
