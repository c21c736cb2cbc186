"""Merge-on-Read upserts record where their records sit in the base file (RECORD_POSITIONS), as
Apache Hudi 1.x writers do, and readers merge such slices by position without reading base keys."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core import HudiTable, write_hudi
from hudi_core.file_group.log_file.blocks import decode_data_block, decode_delete_block
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.positions import decode_record_positions
from hudi_core.file_group.log_file.reader import read_log_blocks

OPTIONS = {
    "hoodie.table.name": "positions",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "p",
}


def rows(ids: list[int], ts: int, value: str) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i:03d}" for i in ids],
            "ts": [ts] * len(ids),
            "p": ["a" if i % 2 else "b" for i in ids],
            "v": [value] * len(ids),
        }
    )


def blocks(path: Path) -> list[tuple[str, BlockType, dict[HeaderKey, str], list[str]]]:
    """(log file, block type, header, record keys) of every log block of the table."""
    found = []
    for log in sorted(path.glob("*/.*.log.*")):
        relative = str(log.relative_to(path))
        for block in read_log_blocks(log.read_bytes(), relative):
            if block.block_type is BlockType.DELETE:
                keys = decode_delete_block(block).keys.to_pylist()
            else:
                keys = decode_data_block(block).column("_hoodie_record_key").to_pylist()
            found.append((relative, block.block_type, block.header, keys))
    return found


def test_updates_and_deletes_record_the_rows_they_replace(tmp_path: Path) -> None:
    write_hudi(
        str(tmp_path), rows(list(range(40)), 1, "v1"), {**OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"}
    )
    # Keys are given out of base order: the block lists them by position.
    write_hudi(str(tmp_path), rows([31, 7, 12, 3, 40], 2, "v2"), OPTIONS)
    write_hudi(str(tmp_path), rows([12, 8], 3, "gone"), {**OPTIONS, "hoodie.datasource.write.operation": "delete"})
    assert_blocks_name_their_rows(tmp_path)


def assert_blocks_name_their_rows(tmp_path: Path) -> None:
    """The table written by `test_updates_and_deletes_record_the_rows_they_replace` (by any engine):
    each block lists the rows it replaces in base-file order, and the table reads as merged."""
    found = blocks(tmp_path)
    assert {kind for _, kind, _, _ in found} == {BlockType.AVRO_DATA, BlockType.DELETE}
    for log, kind, header, keys in found:
        partition = log.split("/")[0]
        base = next(p for p in (tmp_path / partition).glob("*.parquet") if p.name.split("_")[0] in log)
        stored = pq.read_table(base, columns=["_hoodie_record_key"]).column(0).to_pylist()
        positions = decode_record_positions(header[HeaderKey.RECORD_POSITIONS]).tolist()
        assert header[HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS] == base.stem.rsplit("_", 1)[1]
        assert positions == sorted(positions)
        assert [stored[p] for p in positions] == keys, kind
    result = {r["id"]: r["v"] for r in HudiTable(str(tmp_path)).read().to_pylist()}
    assert len(result) == 39  # k040 is new, k008 and k012 deleted
    assert result["k031"] == "v2" and result["k007"] == "v2" and result["k040"] == "v2"
    assert "k012" not in result and "k008" not in result and result["k013"] == "v1"


def test_a_filtered_read_of_a_positional_slice_merges_like_a_full_one(tmp_path: Path) -> None:
    write_hudi(
        str(tmp_path), rows(list(range(60)), 5, "v1"), {**OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"}
    )
    write_hudi(str(tmp_path), rows([1, 2, 3, 4], 9, "new"), OPTIONS)
    write_hudi(str(tmp_path), rows([2, 5], 1, "late"), OPTIONS)  # loses to the stored ts under event time
    table = HudiTable(str(tmp_path))
    instants = [table.timeline.completion_order_key(i) for i in table.timeline.completed()]
    snapshot = {r["id"]: r["v"] for r in table.read().to_pylist()}
    assert snapshot["k002"] == "new" and snapshot["k005"] == "v1" and snapshot["k001"] == "new"
    second = {r["id"]: r["v"] for r in table.read_incremental(instants[0], instants[1]).to_pylist()}
    assert second == {"k001": "new", "k002": "new", "k003": "new", "k004": "new"}
    third = table.read_incremental(instants[1], instants[2]).to_pylist()
    assert third == []  # both late records lost their merge
    filtered = {r["id"] for r in table.read(filters=[("v", "=", "new")]).to_pylist()}
    assert filtered == {"k001", "k002", "k003", "k004"}


def test_row_group_maxima_stand_in_only_for_records_newer_than_their_row_group(tmp_path: Path) -> None:
    # Small row groups: each holds a few rows, with their own ts range.
    options = {**OPTIONS, "hoodie.parquet.block.size": "2048"}
    base = rows(list(range(200)), 0, "v1")
    base = base.set_column(1, "ts", pa.array([i * 10 for i in range(200)], pa.int64()))
    write_hudi(str(tmp_path), base, {**options, "hoodie.datasource.write.operation": "bulk_insert"})
    stored = next((tmp_path / "b").glob("*.parquet"))
    assert pq.ParquetFile(stored).metadata.num_row_groups > 2
    # k010 (ts 100) and k190 (ts 1900) get ts 1000: newer than k010's whole row group, older than
    # k190's stored value; k100 gets an equal ts (ties go to the log).
    update = rows([10, 190, 100], 0, "upd").set_column(1, "ts", pa.array([1000, 1000, 1000], pa.int64()))
    write_hudi(str(tmp_path), update, options)
    table = HudiTable(str(tmp_path))
    first, second = (table.timeline.completion_order_key(i) for i in table.timeline.completed())
    changed = {r["id"]: r["v"] for r in table.read_incremental(first, second).to_pylist()}
    assert changed == {"k010": "upd", "k100": "upd"}
    snapshot = {r["id"]: r["v"] for r in table.read().to_pylist()}
    assert snapshot["k190"] == "v1" and snapshot["k010"] == "upd" and len(snapshot) == 200
