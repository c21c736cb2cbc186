"""The metadata table: kept in step by every write operation and service, read by our reader and
by hudi-rs, pruning filtered reads, serving the RECORD_INDEX, and consistent after crashes.

Each history runs once with every metadata partition on (files, column_stats, partition_stats,
bloom_filters, record_index); after each step `validate_metadata()` must find no difference with
a real listing, and our reader and hudi-rs (which lists through the metadata table) must both
return the model's rows.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable, metrics
from hudi_core.errors import MetadataTableError, TimelineChangedError
from hudi_core.file_group.base_file.hfile import read_hfile_cells
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.index.tagger import tag_by_record_index
from hudi_core.lifecycle.metadata_writer import hfile_block
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import METADATA_DIR, MetadataTableReader
from hudi_core.metadata.record import SCHEMA_V8, decode
from hudi_core.table.listing import FileListing, latest_slices
from hudi_core.table.state import load_table_state
from hudi_core.timeline.instant import Action
from tests import hudi_rs
from tests.hudi_core.write.test_crash_safety import OPTIONS, _crash_upsert
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
ALL_PARTITIONS = {
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.index.partition.stats.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.metadata.compact.max.delta.commits": "4",
    "hoodie.clean.commits.retained": "2",
}
CITIES = ("sf", "nyc", "la")
# Two versions: the one before the latest stays, so the latest commit can still be rolled back.
CLEAN_VERSIONS = {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "2"}


def _rows(ids: range | list[int], ts: int, city: str | None = None) -> list[dict[str, Any]]:
    return [{"id": f"id-{i:03d}", "ts": ts, "city": city or CITIES[i % 3], "fare": float(i * ts)} for i in ids]


def _arrow(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


class History:
    """A table, its model, and the checks run after every step."""

    def __init__(self, base: Path, table_type: str, options: dict[str, str] | None = None) -> None:
        self.base = base
        self.options = {**ALL_PARTITIONS, **(options or {})}
        self.model = TableModel("id", lambda row: f"city={row['city']}", "ts")
        self.table = HudiTable.create(
            str(base),
            SCHEMA,
            "mdt_history",
            ["id"],
            ["city"],
            ["ts"],
            table_type,
            {"hoodie.datasource.write.hive_style_partitioning": "true"},
        )

    def upsert(self, rows: list[dict[str, Any]], operation: str = "upsert") -> str:
        result = getattr(self.table, operation)(_arrow(rows), self.options)
        self.model.upsert(rows, result.instant_time, result.completion_time)
        return str(result.instant_time)

    def delete(self, rows: list[dict[str, Any]]) -> None:
        result = self.table.delete(_arrow(rows), self.options)
        self.model.delete(rows, result.instant_time, result.completion_time)

    def check(self, step: str) -> None:
        validation = self.table.validate_metadata()
        assert validation.ok, f"{step}: {validation}"
        expected = canonical(self.model.snapshot(COLUMNS))
        assert canonical(table_rows(HudiTable(str(self.base)).read(), COLUMNS)) == expected, f"{step}: ours"
        assert canonical(table_rows(hudi_rs.snapshot(self.base), COLUMNS)) == expected, f"{step}: hudi-rs"
        published = HudiTable(str(self.base)).table_config.metadata_partitions
        assert sorted(published) == sorted(p.path for p in MetadataPartition), step


def _row_set(table: pa.Table) -> set[tuple[Any, ...]]:
    return {tuple(row[c] for c in COLUMNS) for row in table.select(COLUMNS).to_pylist()}


# ---- every write operation and service ----------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_history_of_every_operation_keeps_metadata_in_sync(table_type: str, tmp_path: Path) -> None:
    history = History(tmp_path / "t", table_type)
    history.upsert(_rows(range(30), 1), "bulk_insert")
    history.check("bulk_insert")
    history.upsert(_rows(range(30, 40), 1), "insert")
    history.check("insert")
    for ts in range(2, 7):  # enough deltacommits for a metadata-table compaction
        history.upsert(_rows(range(ts * 3, ts * 3 + 12), ts))
        history.check(f"upsert {ts}")
    history.delete(_rows([1, 2, 3, 31], 9))
    history.check("delete")
    rows = _rows(range(100, 104), 9, "sf")
    result = history.table.insert_overwrite(_arrow(rows), history.options)
    history.model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=False)
    history.check("insert_overwrite")
    result = history.table.delete_partitions(["city=la"], history.options)
    history.model.delete_partitions(["city=la"], result.instant_time, result.completion_time)
    history.check("delete_partitions")
    mdt = history.base / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert any(p.name.endswith(".commit") for p in mdt.iterdir()), "the metadata table was never compacted"


@pytest.mark.slow
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_history_of_every_service_keeps_metadata_in_sync(table_type: str, tmp_path: Path) -> None:
    history = History(tmp_path / "t", table_type)
    savepoint = history.upsert(_rows(range(24), 1), "bulk_insert")
    history.table.savepoint(savepoint, options=history.options)
    for ts in range(2, 5):
        history.upsert(_rows(range(ts, ts + 8), ts))
    history.check("upserts")
    if table_type == "MERGE_ON_READ":
        assert history.table.log_compact(options=history.options | {"hoodie.log.compaction.blocks.threshold": "2"})
        history.check("log compaction")
        assert history.table.compact(options=history.options | {"hoodie.compact.inline.max.delta.commits": "1"})
        history.check("compaction")
    clustering = {"hoodie.clustering.plan.strategy.small.file.limit": str(10 * 1024 * 1024)}
    assert history.table.cluster(options=history.options | clustering)
    history.check("clustering")
    last = history.upsert(_rows(range(5), 7))
    history.check("upsert after clustering")
    history.table.clean(options=history.options | CLEAN_VERSIONS)  # inline cleaning may have run already
    assert any(i.action.value == "clean" for i in HudiTable(str(history.base)).timeline.completed())
    history.check("clean")
    history.table.archive(options=history.options | {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"})
    history.check("archive")
    assert HudiTable(str(history.base)).timeline.completed_data_instants()[-1].requested_time == last
    history.table.rollback(last)
    history.model.rollback(last)
    history.check("rollback of the latest commit")
    history.table.restore(savepoint, history.options)
    history.model.restore(savepoint)
    history.check("restore")
    history.upsert(_rows(range(50, 55), 9))
    history.check("upsert after restore")


# ---- proof that readers use it ----------------------------------------------------------------


def _drop_listed_file(base: Path, partition: str, file_name: str) -> None:
    """Rewrites the metadata log block that added `file_name` so it no longer lists it."""
    files_dir = base / ".hoodie" / "metadata" / "files"
    for log in sorted(files_dir.glob(".files-*")):
        blocks = read_log_blocks(log.read_bytes(), str(log))
        rewritten = b""
        changed = False
        for block in blocks:
            if block.block_type is not BlockType.HFILE_DATA:
                continue
            schema = block.header[HeaderKey.SCHEMA]
            records = {k.decode(): decode(v, schema) for k, v in read_hfile_cells(bytes(block.content), str(log))}
            listing = records.get(partition, {}).get("filesystemMetadata") or {}
            if file_name in listing:
                del listing[file_name]
                changed = True
            rewritten += hfile_block(block.header[HeaderKey.INSTANT_TIME], records, SCHEMA_V8)
        if changed:
            log.write_bytes(rewritten)
            return
    raise AssertionError(f"{file_name} is not listed by any metadata log block")


def test_file_dropped_from_files_partition_is_missed_by_readers_and_reported(tmp_path: Path) -> None:
    base = tmp_path / "t"
    history = History(base, "COPY_ON_WRITE", {"hoodie.metadata.record.index.enable": "false"})
    history.upsert(_rows(range(12), 1))
    history.upsert(_rows(range(200, 205), 2, "austin"))  # a new partition: its one file group is new
    copy = tmp_path / "copy"
    shutil.copytree(base, copy)
    (dropped,) = [p for p in (copy / "city=austin").iterdir() if p.suffix == ".parquet"]
    _drop_listed_file(copy, "city=austin", dropped.name)

    full = _row_set(hudi_rs.snapshot(base))
    austin = {r for r in full if r[2] == "austin"}
    assert len(austin) == 5
    assert _row_set(hudi_rs.snapshot(copy)) == full - austin, "hudi-rs listed storage"
    assert _row_set(HudiTable(str(copy)).read()) == full - austin, "ours listed storage"
    validation = HudiTable(str(copy)).validate_metadata()
    assert validation.missing_files == [f"city=austin/{dropped.name}"]
    assert not validation.extra_files and not validation.size_mismatches
    # Without the metadata table our reader lists storage and sees the file again.
    assert _row_set(HudiTable(str(copy), {"hoodie.metadata.enable": "false"}).read()) == full


# ---- conformance tables --------------------------------------------------------------------------

CORPUS_WITH_METADATA = [
    "sample_table/cow/v9_txns_nonpart_meta",
    "sample_table/cow/v9_timebasedkeygen_epochmillis",
    "sample_table/mor/avro/v9_txns_complex_meta",
    "sample_table/mor/avro/v9_nonpartitioned_rollback",
    "sample_table/mor/avro/v9_txns_simple_overwrite",
    "sample_table/mor/avro/v9_timebasedkeygen_nonhivestyle",
    "quickstart_trips_table/mor/avro/table_evo_add_col",
]


@pytest.mark.conformance
@pytest.mark.parametrize("name", CORPUS_WITH_METADATA)
def test_corpus_table_with_metadata_table_is_listed_through_it(name: str, corpus_table: Callable[[str], Path]) -> None:
    path = corpus_table(name)
    table = HudiTable(str(path))
    assert FileListing(table.storage, table.timeline).metadata is not None
    with metrics.capture() as through_metadata:
        listed = table.read()
    assert through_metadata.partitions_listed == 0 and through_metadata.metadata_files_read > 0
    from_storage = HudiTable(str(path), {"hoodie.metadata.enable": "false"}).read()
    assert canonical(table_rows(listed, listed.column_names)) == canonical(
        table_rows(from_storage, listed.column_names)
    )
    assert table.validate_metadata().ok


# ---- data skipping -------------------------------------------------------------------------------


def test_filtered_read_skips_files_and_partitions_by_statistics(tmp_path: Path) -> None:
    history = History(tmp_path / "t", "COPY_ON_WRITE", {"hoodie.parquet.small.file.limit": "0"})
    for batch in range(4):  # four file groups per partition with disjoint fare ranges
        history.upsert(_rows(range(batch * 30, batch * 30 + 30), 1), "bulk_insert")
    table = HudiTable(str(history.base))
    everything = table.read()
    with metrics.capture() as pruned:
        narrow = table.read(filters=[("fare", ">=", 95.0), ("fare", "<", 100.0)])
    expected = everything.filter(
        pa.compute.and_(pa.compute.greater_equal(everything["fare"], 95.0), pa.compute.less(everything["fare"], 100.0))
    )
    assert _row_set(narrow) == _row_set(expected)
    assert pruned.files_pruned >= 9 and pruned.base_files_read == 3
    with metrics.capture() as by_partition:
        table.read(filters=[("city", "=", "nowhere")])
    assert by_partition.partitions_pruned == 0  # partition values prune by path before statistics
    with metrics.capture() as by_partition_stats:
        assert table.read(filters=[("fare", ">", 10_000.0)]).num_rows == 0
    assert by_partition_stats.partitions_pruned == 3 and by_partition_stats.base_files_read == 0


# ---- record index ---------------------------------------------------------------------------------


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_record_index_tags_upserts_like_a_global_index(table_type: str, tmp_path: Path) -> None:
    history = History(tmp_path / "t", table_type, {"hoodie.index.type": "RECORD_INDEX"})
    history.upsert(_rows(range(40), 1))
    history.upsert(_rows(range(20, 50), 2))
    history.check("record index upserts")
    reader = MetadataTableReader(history.table.storage, HudiTable(str(history.base)).timeline)
    assert len(reader.records(MetadataPartition.RECORD_INDEX)) == 50
    moved = [{**r, "city": "sf"} for r in _rows([4, 5], 3)]  # a global index moves keys across partitions
    history.model.delete(_rows([4, 5], 2), "0", None)
    history.upsert(moved)
    history.check("partition change")
    with metrics.capture() as tagging:
        history.upsert(_rows([7, 8], 4))
    assert tagging.metadata_files_read > 0


def test_bloom_index_reads_filters_from_the_metadata_table_not_footers(tmp_path: Path) -> None:
    opened = {}
    for label, bloom_partition in (("metadata", "true"), ("footers", "false")):
        options = {"hoodie.index.type": "BLOOM", "hoodie.metadata.index.bloom.filter.enable": bloom_partition}
        history = History(tmp_path / label, "COPY_ON_WRITE", options)
        history.upsert(_rows(range(30), 1))
        history.upsert(_rows(range(30, 60), 1), "bulk_insert")  # six base files in all
        with metrics.capture() as write:
            history.upsert(_rows([3, 4], 2))  # two files hold these keys
        opened[label] = write.footers_read
        assert canonical(table_rows(hudi_rs.snapshot(history.base), COLUMNS)) == canonical(
            history.model.snapshot(COLUMNS)
        )
    # By footers, tagging opens the four files that hold none of the keys too; by the metadata table it
    # opens only the two it then reads keys from.
    assert opened["footers"] - opened["metadata"] == 4


# ---- switching it off and on ---------------------------------------------------------------------


def test_writer_with_metadata_disabled_drops_it_and_indexing_rebuilds_it(tmp_path: Path) -> None:
    history = History(tmp_path / "t", "MERGE_ON_READ")
    history.upsert(_rows(range(20), 1))
    history.upsert(_rows(range(10), 2))
    history.options = {"hoodie.metadata.enable": "false"}
    history.upsert(_rows(range(5), 3))
    assert not (history.base / ".hoodie" / "metadata").exists()
    assert HudiTable(str(history.base)).table_config.metadata_partitions in ([], [""])
    assert canonical(table_rows(hudi_rs.snapshot(history.base), COLUMNS)) == canonical(history.model.snapshot(COLUMNS))
    instant = history.table.build_metadata_index([p.path for p in MetadataPartition], ALL_PARTITIONS)
    assert instant is not None
    timeline = HudiTable(str(history.base)).timeline
    assert any(i.action.value == "indexing" and i.is_completed for i in timeline.instants())
    history.options = dict(ALL_PARTITIONS)
    history.check("after indexing")
    history.upsert(_rows(range(15, 25), 4))
    history.check("write after indexing")


# ---- crashes -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
@pytest.mark.parametrize(
    "point", ["metadata.after_log_files", "metadata.after_deltacommit", "metadata.after_compaction_files"]
)
def test_crash_during_metadata_update_rolls_back_with_the_data(point: str, table_type: str, tmp_path: Path) -> None:
    """Hudi #4896 / #8079: a writer killed between the metadata deltacommit and the data commit
    leaves a metadata deltacommit no reader trusts; the rollback of the data instant removes it.
    A writer killed inside a metadata compaction leaves it pending; the next writer drops it."""
    history = History(tmp_path / "t", table_type, OPTIONS)
    history.upsert(_rows(range(20), 1))
    if point == "metadata.after_compaction_files":  # the crashed write is the one that compacts
        history.options = {**history.options, "hoodie.metadata.compact.max.delta.commits": "10"}
        # Writes after which the next write's sync compacts (measured per table type: their
        # histories leave different numbers of metadata deltacommits).
        for ts in range(2, 6 if table_type == "MERGE_ON_READ" else 5):
            history.upsert(_rows(range(ts), ts))
    before = canonical(history.model.snapshot(COLUMNS))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _crash_upsert(history.base, _rows(range(10, 30), 2), point, scratch)
    assert canonical(table_rows(hudi_rs.snapshot(history.base), COLUMNS)) == before
    assert canonical(table_rows(HudiTable(str(history.base)).read(), COLUMNS)) == before
    history.upsert(_rows(range(25, 35), 3))  # rolls the crashed write back first
    history.check("after recovery")
    timeline = HudiTable(str(history.base)).timeline
    mdt = MetadataTableReader(history.table.storage, timeline).timeline
    data_times = {i.requested_time for i in timeline.instants()}
    orphans = [
        i for i in mdt.instants() if not i.requested_time.startswith("0000") and i.requested_time not in data_times
    ]
    assert orphans == [] or all(i.action.value == "commit" for i in orphans), orphans


# ---- bad input -----------------------------------------------------------------------------------


def test_indexing_an_unknown_partition_raises_and_leaves_the_table_unchanged(tmp_path: Path) -> None:
    history = History(tmp_path / "t", "COPY_ON_WRITE", {"hoodie.metadata.enable": "false"})
    history.upsert(_rows(range(5), 1))
    properties = (history.base / ".hoodie" / "hoodie.properties").read_bytes()
    timeline = sorted(p.name for p in (history.base / ".hoodie" / "timeline").iterdir())
    with pytest.raises(HudiConfigError, match=r"unknown metadata partition 'secondary_index_x'"):
        history.table.build_metadata_index(["files", "secondary_index_x"])
    assert (history.base / ".hoodie" / "hoodie.properties").read_bytes() == properties
    assert sorted(p.name for p in (history.base / ".hoodie" / "timeline").iterdir()) == timeline
    assert not (history.base / ".hoodie" / "metadata").exists()


def test_validating_a_table_without_a_metadata_table_raises(tmp_path: Path) -> None:
    history = History(tmp_path / "t", "COPY_ON_WRITE", {"hoodie.metadata.enable": "false"})
    history.upsert(_rows(range(5), 1))
    with pytest.raises(MetadataTableError, match=r"cannot load the metadata table"):
        history.table.validate_metadata()


def test_record_index_ahead_of_a_writers_snapshot_makes_it_plan_again(tmp_path: Path) -> None:
    """A clustering moves keys, and a metadata compaction folds that move into the index's base
    file: a writer whose snapshot predates the clustering must not take the moved keys for new."""
    options = {"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.compact.max.delta.commits": "1"}
    history = History(tmp_path / "t", "COPY_ON_WRITE", options)
    history.upsert(_rows(range(30), 1))
    history.upsert(_rows(range(30, 60), 2))
    storage = history.table.storage
    snapshot = HudiTable(str(history.base)).timeline
    slices = latest_slices(storage, snapshot)
    assert history.table.cluster(None, {**history.options, **options}) is not None
    history.upsert(_rows([59], 3))  # one more commit: the metadata table compacts again
    metadata_timeline = load_table_state(storage.sub(METADATA_DIR)).timeline
    assert any(i.action is Action.COMMIT for i in metadata_timeline.completed())
    keys = pa.array([f"id-{i:03d}" for i in (0, 31)])
    with pytest.raises(TimelineChangedError, match="completed after this write's snapshot"):
        tag_by_record_index(storage, keys, slices, snapshot)
    # On the current timeline the same keys are found where the clustering put them.
    current = HudiTable(str(history.base)).timeline
    tags = tag_by_record_index(storage, keys, latest_slices(storage, current), current)
    assert tags is not None and None not in tags.file_ids.to_pylist()
    history.upsert(_rows([0, 31], 4))
    history.check("after the clustering")


def test_a_per_read_metadata_option_overrides_the_handles(tmp_path: Path) -> None:
    """Per-call options win over the handle's, which win over the table's: a read that turns the
    metadata table off lists storage, whatever the handle says, and the other way round."""
    path = tmp_path / "t"
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string())])
    HudiTable.create(str(path), schema, "t", ["id"], ["city"], ["ts"]).upsert(
        pa.table({"id": ["a", "b"], "ts": [1, 2], "city": ["sf", "la"]}, schema=schema)
    )
    off = {"hoodie.metadata.enable": "false"}
    on = {"hoodie.metadata.enable": "true"}
    incremental = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": "000"}
    for handle_options, read_options, lists_storage in [({}, off, True), (off, on, False), (off, {}, True)]:
        for query in ({}, incremental):
            with metrics.capture() as read:
                rows = HudiTable(str(path), handle_options).read(options={**read_options, **query})
            assert rows.num_rows == 2
            assert (read.partitions_listed > 0) == lists_storage, (handle_options, read_options, query)
            assert (read.metadata_files_read > 0) != lists_storage, (handle_options, read_options, query)
