"""We read and continue tables Apache Hudi 1.2 writes with its table features on, or refuse them.

- Bucket index, CONSISTENT_HASHING engine (Merge-on-Read only, as in Hudi): Apache Hudi writes, we
  read, upsert into existing and new partitions (creating their rings) and compact; Apache Hudi
  resizes the rings by its clustering and we continue on the resized rings. Every stored record
  sits in the file group its partition's ring names. A write while a resize is pending, and the
  engine on Copy-on-Write, are refused and leave the table as it was.
- Secondary and expression indexes (created by Spark SQL `CREATE INDEX`): we read what Spark
  reads, filtered queries included; our writes are refused with the documented error.
- Apache Hudi's own clustering of its table: we read and continue.
- Non-blocking concurrency control: two writers of one Spark application write one file group
  concurrently; we read what Spark reads and continue (our writers run single-writer or optimistic
  only).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_core import HudiTable
from hudi_core.errors import HudiConfigError, UnsupportedFeatureError, WriteConflictError
from hudi_core.index.consistent_hashing import HashingMetadata, hash_values, load_ring
from hudi_core.storage import Storage
from scripts.apache_hudi import ApacheHudi
from tests.apache_hudi.tables import full_run_only
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

READ_OPTIMIZED = {"hoodie.datasource.query.type": "read_optimized"}
BASE_OPTIONS = {
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
}
CONSISTENT_HASHING = {
    "hoodie.index.type": "BUCKET",
    "hoodie.index.bucket.engine": "CONSISTENT_HASHING",
    "hoodie.bucket.index.num.buckets": "2",
}
# Apache Hudi's resize: its consistent-bucket clustering splits buckets above the threshold.
RESIZE = {
    "hoodie.bucket.index.max.num.buckets": "8",
    "hoodie.bucket.index.min.num.buckets": "1",
    "hoodie.bucket.index.split.threshold": "0.5",
    "hoodie.parquet.max.file.size": "20000",
    "hoodie.clustering.plan.strategy.class": (
        "org.apache.hudi.client.clustering.plan.strategy.SparkConsistentBucketClusteringPlanStrategy"
    ),
    "hoodie.clustering.execution.strategy.class": (
        "org.apache.hudi.client.clustering.run.strategy.SparkConsistentBucketClusteringExecutionStrategy"
    ),
}


def rows_of(table: pa.Table) -> list[tuple[Any, ...]]:
    return canonical(table_rows(table, COLUMNS))


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under the table and its content hash: a refused write must change none."""
    return {
        str(f.relative_to(path)): hashlib.sha256(f.read_bytes()).hexdigest() for f in path.rglob("*") if f.is_file()
    }


class Writers:
    """Apache Hudi and we write one table; the model follows both."""

    def __init__(self, apache_hudi: ApacheHudi, path: Path, name: str, table_type: str, seed: str) -> None:
        self.apache_hudi = apache_hudi
        self.path = path
        self.options = {**BASE_OPTIONS, "hoodie.table.name": name, "hoodie.datasource.write.table.type": table_type}
        self.rng = random.Random(seed)
        self.history = History(self.rng, partitioned=True)
        self.model = TableModel("id", lambda r: r["city"], "ts")

    def stored(self, count: int) -> list[str]:
        return self.rng.sample(sorted(key for _, key in self.model.current), count)

    def apache(
        self, rows: list[dict[str, Any]], operation: str, extra: Mapping[str, str], mode: str = "append"
    ) -> None:
        options = {**self.options, **extra, "hoodie.datasource.write.operation": operation}
        self.apache_hudi.write(self.path, pa.Table.from_pylist(rows, schema=SCHEMA), options, mode)
        latest = HudiTable(str(self.path)).timeline.completed_data_instants()
        last_write = [i for i in latest if i.action.value in ("commit", "deltacommit")][-1]
        method = "insert_new" if operation == "insert" else operation
        getattr(self.model, method)(rows, last_write.requested_time, last_write.completion_time)

    def ours(self, rows: list[dict[str, Any]], operation: str, extra: Mapping[str, str]) -> None:
        table = HudiTable(str(self.path))
        data = pa.Table.from_pylist(rows, schema=SCHEMA)
        if operation == "delete":
            result = table.delete(data, extra)
            self.model.delete(rows, result.instant_time, result.completion_time)
        else:
            result = table.upsert(data, extra)
            self.model.upsert(rows, result.instant_time, result.completion_time)

    def compare(self, what: str) -> None:
        expected = canonical(self.model.snapshot(COLUMNS))
        ours = HudiTable(str(self.path))
        assert rows_of(ours.read()) == expected, f"ours vs model: {what}"
        assert rows_of(self.apache_hudi.read(self.path)) == expected, f"Apache Hudi vs model: {what}"
        assert rows_of(ours.read(options=READ_OPTIMIZED)) == rows_of(
            self.apache_hudi.read(self.path, READ_OPTIMIZED)
        ), f"read-optimized, ours vs Apache Hudi: {what}"


def assert_routed_by_rings(path: Path, what: str) -> None:
    """Every record of the snapshot is in the file group its partition's committed ring names."""
    table = HudiTable(str(path))
    storage = Storage(str(path))
    rows = table.read(columns=["_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"])
    for partition in pc.unique(rows["_hoodie_partition_path"]).to_pylist():
        ring = load_ring(storage, partition, table.timeline)
        assert ring is not None, f"{what}: partition {partition!r} has no committed ring"
        stored = rows.filter(pc.equal(rows["_hoodie_partition_path"], partition))
        expected = ring.file_ids(hash_values([stored["_hoodie_record_key"].combine_chunks()]))
        names = stored["_hoodie_file_name"].to_pylist()
        misplaced = [(f, n) for f, n in zip(expected, names, strict=True) if not n.lstrip(".").startswith(f)]
        assert not misplaced, f"{what}: records of {partition!r} outside their ring's file group: {misplaced[:3]}"


@pytest.mark.parametrize("write_version", [pytest.param(None, id="v9-default"), full_run_only("8", id="v8")])
def test_consistent_hashing_tables_are_read_continued_and_resized_by_either(
    apache_hudi: ApacheHudi, write_version: str | None, tmp_path: Path
) -> None:
    path = tmp_path / "table"
    version = {} if write_version is None else {"hoodie.write.table.version": write_version}
    writers = Writers(apache_hudi, path, "consistent_hashing", "MERGE_ON_READ", f"consistent-{write_version}")
    history = writers.history
    theirs = {**CONSISTENT_HASHING, **RESIZE, **version}

    writers.apache(history.fresh(120, 100), "insert", theirs, mode="overwrite")
    writers.apache(
        [history.row(k, 110 if writers.rng.random() < 0.6 else 5) for k in writers.stored(20)], "upsert", theirs
    )
    writers.compare("Apache Hudi's consistent-hashing table")
    assert_routed_by_rings(path, "Apache Hudi's writes")

    history.city_names.append("paris")  # a partition that gets its ring from our write
    rows = [history.row(k, 120 if writers.rng.random() < 0.6 else 5) for k in writers.stored(15)]
    writers.ours([*rows, *history.fresh_in("paris", 6, 120), *history.fresh(4, 120)], "upsert", CONSISTENT_HASHING)
    assert load_ring(Storage(str(path)), "paris", HudiTable(str(path)).timeline) == HashingMetadata.initial("paris", 2)
    writers.ours([history.row(k, 130) for k in writers.stored(3)], "delete", CONSISTENT_HASHING)
    assert HudiTable(str(path)).compact(None, {**CONSISTENT_HASHING, "hoodie.compact.inline.max.delta.commits": "1"})
    writers.compare("continued by us")
    assert_routed_by_rings(path, "our writes")

    inline_resize = {**theirs, "hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "1"}
    writers.apache([history.row(k, 140) for k in writers.stored(10)] + history.fresh(60, 140), "upsert", inline_resize)
    resized = [r for r in HudiTable(str(path)).timeline.completed() if r.action.value == "replacecommit"]
    assert resized, "Apache Hudi's clustering resized no ring"
    grown = [p for p in ("sf", "nyc", "chennai", "paris") if len(_ring(path, p).nodes) > 2]
    assert grown, "no partition's ring was split"
    writers.compare("after Apache Hudi's resize")
    assert_routed_by_rings(path, "Apache Hudi's resize")

    writers.ours(
        [history.row(k, 150) for k in writers.stored(12)] + history.fresh(8, 150), "upsert", CONSISTENT_HASHING
    )
    writers.compare("continued by us on the resized rings")
    assert_routed_by_rings(path, "our writes on the resized rings")
    writers.apache([history.row(k, 160) for k in writers.stored(5)], "upsert", theirs)
    writers.compare("Apache Hudi after us")


def _ring(path: Path, partition: str) -> HashingMetadata:
    ring = load_ring(Storage(str(path)), partition, HudiTable(str(path)).timeline)
    assert ring is not None
    return ring


def test_a_write_during_apache_hudis_pending_resize_is_refused(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    path = tmp_path / "table"
    writers = Writers(apache_hudi, path, "resizing", "MERGE_ON_READ", "pending-resize")
    theirs = {**CONSISTENT_HASHING, **RESIZE}
    writers.apache(writers.history.fresh(150, 100), "insert", theirs, mode="overwrite")
    # The resize plan weighs base files: compact the log-only slices first.
    compacted = {**theirs, "hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "1"}
    writers.apache(writers.history.fresh(10, 105), "insert", compacted)
    schedule_only = {**theirs, "hoodie.clustering.schedule.inline": "true", "hoodie.clustering.inline.max.commits": "1"}
    writers.apache(writers.history.fresh(10, 110), "insert", schedule_only)
    timeline = HudiTable(str(path)).timeline
    assert [i for i in timeline.pending() if i.action.value in ("clustering", "replacecommit")], "no resize pending"
    before = tree_digest(path)
    with pytest.raises((UnsupportedFeatureError, WriteConflictError), match=r"resize|clustering"):
        writers.ours([writers.history.row(k, 120) for k in writers.stored(20)], "upsert", CONSISTENT_HASHING)
    assert tree_digest(path) == before
    writers.compare("after the refused write")


def test_consistent_hashing_on_copy_on_write_is_refused(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    path = tmp_path / "table"
    writers = Writers(apache_hudi, path, "cow", "COPY_ON_WRITE", "consistent-cow")
    writers.apache(writers.history.fresh(20, 100), "insert", {}, mode="overwrite")
    before = tree_digest(path)
    with pytest.raises(HudiConfigError, match="CONSISTENT_HASHING needs a MERGE_ON_READ table"):
        writers.ours(writers.history.fresh(3, 110), "upsert", CONSISTENT_HASHING)
    assert tree_digest(path) == before


def test_secondary_and_expression_indexes_are_read_and_our_writes_refused(
    apache_hudi: ApacheHudi, tmp_path: Path
) -> None:
    path = tmp_path / "indexed"
    name = "".join(c if c.isalnum() else "_" for c in f"indexed_{tmp_path.name}")
    writers = Writers(apache_hudi, path, name, "MERGE_ON_READ", "indexes")
    record_index = {"hoodie.metadata.record.index.enable": "true"}
    writers.apache(writers.history.fresh(40, 100), "insert", record_index, mode="overwrite")
    apache_hudi.sql("SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider")
    apache_hudi.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    apache_hudi.sql(f"CREATE INDEX idx_note ON {name} (note)")
    apache_hudi.sql(
        f"CREATE INDEX idx_day ON {name} USING column_stats(ts) OPTIONS(expr='from_unixtime', format='yyyy-MM-dd')"
    )
    writers.apache(
        [writers.history.row(k, 110) for k in writers.stored(8)] + writers.history.fresh(4, 110), "upsert", record_index
    )
    partitions = HudiTable(str(path)).table_config.metadata_partitions
    assert any(p.startswith("secondary_index_") for p in partitions), partitions
    assert any(p.startswith("expr_index_") for p in partitions), partitions
    writers.compare("Apache Hudi's table with secondary and expression indexes")

    ours = HudiTable(str(path))
    for value in ("x", "late"):
        filtered = apache_hudi.sql(f"SELECT {', '.join(COLUMNS)} FROM {name} WHERE note = '{value}'")
        assert filtered is not None
        assert rows_of(ours.read(filters=[("note", "=", value)])) == rows_of(filtered), f"note = {value!r}"

    before = tree_digest(path)
    with pytest.raises(UnsupportedFeatureError, match="secondary or expression indexes"):
        writers.ours(writers.history.fresh(2, 120), "upsert", record_index)
    assert tree_digest(path) == before
    apache_hudi.sql(f"DROP TABLE {name}")  # the catalog entry only; the files stay


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", full_run_only("COPY_ON_WRITE", id="COPY_ON_WRITE")])
def test_apache_hudis_clustering_of_its_record_indexed_table_is_read_and_continued(
    apache_hudi: ApacheHudi, table_type: str, tmp_path: Path
) -> None:
    """Apache Hudi clusters a table under the record-level index, which moves every clustered key's
    location; our writes look keys up in that index and update it, and Apache Hudi's next upsert
    looks them up in ours (a wrong entry would store a key twice)."""
    path = tmp_path / "table"
    writers = Writers(apache_hudi, path, f"clustered_{table_type[:3].lower()}", table_type, f"clustering-{table_type}")
    record_index = {"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true"}
    small_files = {
        **record_index,
        "hoodie.parquet.small.file.limit": "0",
        "hoodie.clustering.plan.strategy.sort.columns": "fare",
    }
    writers.apache(writers.history.fresh(20, 100), "insert", small_files, mode="overwrite")
    writers.apache(writers.history.fresh(20, 110), "insert", small_files)
    inline = {**small_files, "hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "1"}
    writers.apache(
        [writers.history.row(k, 120) for k in writers.stored(6)] + writers.history.fresh(5, 120), "upsert", inline
    )
    assert [i for i in HudiTable(str(path)).timeline.completed() if i.action.value == "replacecommit"], "no clustering"
    assert "record_index" in HudiTable(str(path)).table_config.metadata_partitions
    writers.compare("after Apache Hudi's clustering")

    rows = [writers.history.row(k, 130) for k in writers.stored(8)] + writers.history.fresh(3, 130)
    writers.ours(rows, "upsert", record_index)
    writers.ours([writers.history.row(k, 140) for k in writers.stored(2)], "delete", record_index)
    writers.compare("continued by us after Apache Hudi's clustering")
    writers.apache([writers.history.row(k, 150) for k in writers.stored(6)], "upsert", small_files)
    writers.compare("Apache Hudi after us, looking keys up in our record index")


def test_non_blocking_concurrency_control_tables_are_read_and_continued(
    apache_hudi: ApacheHudi, tmp_path: Path
) -> None:
    path = tmp_path / "table"
    writers = Writers(apache_hudi, path, "nbcc", "MERGE_ON_READ", "nbcc")
    nbcc = {
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.index.type": "BUCKET",
        "hoodie.index.bucket.engine": "SIMPLE",
        "hoodie.bucket.index.num.buckets": "2",
        "hoodie.write.concurrency.mode": "NON_BLOCKING_CONCURRENCY_CONTROL",
        "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
        "hoodie.clean.failed.writes.policy": "LAZY",
    }
    writers.apache(writers.history.fresh(30, 100), "insert", nbcc, mode="overwrite")
    options = {**writers.options, **nbcc, "hoodie.datasource.write.operation": "upsert"}
    requested = str(path / ".hoodie" / "timeline" / "*.deltacommit.requested")
    overlapped = False
    for round_ in range(3):  # until the two writes overlap (the scheduler decides)
        stored = writers.stored(20)
        ts = 110 + 20 * round_
        batches = [
            [writers.history.row(k, ts) for k in stored[:12]] + writers.history.fresh(1000, ts),
            [writers.history.row(k, ts + 10) for k in stored[6:]],
        ]
        # Two writers of one Spark application; the second starts once the first's instant is requested.
        apache_hudi.write_concurrently(
            path, [(pa.Table.from_pylist(rows, schema=SCHEMA), options) for rows in batches], requested
        )
        # Event-time ordering decides every key whatever the commit order, so the model may apply
        # the batches in either order (the instants it records are not compared).
        first, second = [i for i in HudiTable(str(path)).timeline.completed() if i.action.value == "deltacommit"][-2:]
        for instant, rows in zip((first, second), batches, strict=True):
            writers.model.upsert(rows, instant.requested_time, instant.completion_time)
        if second.requested_time < (first.completion_time or ""):
            overlapped = True
            break
    assert overlapped, "the two writers never overlapped"
    writers.compare("two concurrent Spark writers under non-blocking concurrency control")

    with pytest.raises(HudiConfigError, match="non-blocking concurrency control is not supported"):
        writers.ours(writers.history.fresh(2, 130), "upsert", nbcc)
    ours = {k: v for k, v in nbcc.items() if not k.startswith(("hoodie.write.", "hoodie.clean.", "hoodie.table."))}
    writers.ours([writers.history.row(k, 130) for k in writers.stored(5)], "upsert", ours)
    assert HudiTable(str(path)).compact(None, {**ours, "hoodie.compact.inline.max.delta.commits": "1"})
    writers.compare("continued and compacted by us")
    writers.apache([writers.history.row(k, 140) for k in writers.stored(5)], "upsert", nbcc)
    writers.compare("Apache Hudi after us")
