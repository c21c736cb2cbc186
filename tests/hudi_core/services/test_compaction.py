"""Compaction and log compaction of Merge-on-Read tables."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable, UnsupportedFeatureError
from hudi_core.file_group.log_file.format import HeaderKey
from hudi_core.file_group.log_file.reader import read_log_blocks
from tests import hudi_rs
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
NO_PACKING = {"hoodie.parquet.small.file.limit": "0"}


def _rows(ids: list[int], ts: int, name: str = "v") -> pa.Table:
    return pa.table(
        {
            "id": ids,
            "name": [f"{name}{i}" for i in ids],
            "ts": [ts] * len(ids),
            "p": ["x" if i % 2 else "y" for i in ids],
        },
        schema=SCHEMA,
    )


def _table(path: Path, options: dict[str, str] | None = None) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "compaction", ["id"], ["p"], ["ts"], "MERGE_ON_READ", options)
    table.insert(_rows(list(range(10)), 1))
    table.upsert(_rows([1, 2, 3], 2, "u"), NO_PACKING)
    table.delete(_rows([4], 3))
    return table


def _content(rows: dict[int, tuple[int, str]]) -> list[tuple[Any, ...]]:
    """Expected rows, id -> (ts, name), in the canonical form of `_rows`' records."""
    return canonical([{"id": i, "name": n, "ts": ts, "p": "x" if i % 2 else "y"} for i, (ts, n) in rows.items()])


# What `_table` writes: ids 0-9 (ts 1), 1-3 updated (ts 2), 4 deleted.
TABLE_CONTENT = {i: (2, f"u{i}") if i in (1, 2, 3) else (1, f"v{i}") for i in range(10) if i != 4}


def _record(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        record: dict[str, Any] = next(iter(fastavro.reader(f)))
    return record


def test_compaction_plan_and_commit_have_hudis_shape(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    before = _content(TABLE_CONTENT)
    assert canonical(table_rows(table.read(), COLUMNS)) == before
    instant = table.schedule_compaction()
    assert instant is not None
    plan = _record(str(tmp_path / f"t/.hoodie/timeline/{instant}.compaction.requested"))
    assert plan["version"] == 2 and plan["strategy"] is None and plan["preserveHoodieMetadata"] is False
    assert plan["extraMetadata"] == {} and plan["missingSchedulePartitions"] == []
    sizes = []
    for op in plan["operations"]:
        assert list(op["metrics"]) == [
            "TOTAL_LOG_FILES",
            "TOTAL_IO_MB",
            "TOTAL_IO_READ_MB",
            "TOTAL_LOG_FILES_SIZE",
            "TOTAL_IO_WRITE_MB",
        ]
        assert "/" not in op["dataFilePath"] and all("/" not in p for p in op["deltaFilePaths"])
        assert op["metrics"]["TOTAL_LOG_FILES"] == len(op["deltaFilePaths"]) > 0
        sizes.append(op["metrics"]["TOTAL_LOG_FILES_SIZE"])
    assert sizes == sorted(sizes, reverse=True)  # LogFileSizeBased: largest logs first

    result = table.compact()
    assert result is not None and result.instant_time == instant
    assert result["file_groups"] == len(plan["operations"])
    commits = glob.glob(str(tmp_path / f"t/.hoodie/timeline/{instant}_*.commit"))
    metadata = _record(commits[0])
    assert metadata["operationType"] == "COMPACT" and metadata["compacted"] is True
    assert set(metadata["extraMetadata"]) == {"schema"}
    for stat in (s for stats in metadata["partitionToWriteStats"].values() for s in stats):
        assert stat["path"].endswith(f"_{instant}.parquet")
        assert stat["totalLogFilesCompacted"] >= 1 and stat["totalLogBlocks"] >= 1
        assert stat["prevBaseFile"] is not None and stat["prevCommit"] != "null"
    assert all(not s.log_files for s in table.file_slices())
    assert canonical(table_rows(table.read(), COLUMNS)) == before
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == before
    assert table.compact() is None  # nothing left to compact


def test_writes_during_a_pending_compaction_land_in_the_next_slice(tmp_path: Path) -> None:
    """Hudi #5110: logs written while a compaction is pending are neither lost nor applied twice."""
    table = _table(tmp_path / "t")
    instant = table.schedule_compaction()
    assert instant is not None
    table.upsert(_rows([1, 5], 9, "late"), NO_PACKING)  # after the plan, before the compaction runs
    expected = _content({**TABLE_CONTENT, 1: (9, "late1"), 5: (9, "late5")})
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    table.compact(instant)
    after = table.read()
    assert canonical(table_rows(after, COLUMNS)) == expected
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == expected
    late = [s for s in table.file_slices() if s.log_files]
    assert late and all(s.base_instant == instant for s in late), "the late logs belong to the new slice"


def test_inline_compaction_after_max_delta_commits(tmp_path: Path) -> None:
    options = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "3", **NO_PACKING}
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "inline", ["id"], ["p"], ["ts"], "MERGE_ON_READ")
    ran = []
    for ts in range(1, 6):
        result = table.upsert(_rows([1, 2, ts + 10], ts), options)
        ran.append([s.action for s in result.table_services if s.action == "compaction"])
    assert ran == [[], [], ["compaction"], [], []]


def test_log_file_num_strategy_and_copy_on_write_refusal(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    strict = {
        "hoodie.compaction.strategy": "org.apache.hudi.table.action.compact.strategy.LogFileNumBasedCompactionStrategy",
        "hoodie.compaction.logfile.num.threshold": "5",
    }
    assert table.schedule_compaction(strict) is None
    cow = HudiTable.create(str(tmp_path / "cow"), SCHEMA, "cow", ["id"], ["p"], ["ts"])
    with pytest.raises(UnsupportedFeatureError, match="Copy-on-Write"):
        cow.compact()


def test_compaction_writes_cdc_logs_and_keeps_change_data(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", {"hoodie.table.cdc.enabled": "true"})
    changes = table.read_cdc("earliest").to_pylist()
    result = table.compact()
    assert result is not None
    cdc_files = glob.glob(str(tmp_path / f"t/*/.*_{result.instant_time}.log.*.cdc"))
    assert cdc_files, "compaction of a CDC table writes .cdc logs"
    assert table.read_cdc("earliest").to_pylist() == changes  # compaction adds no change rows


def test_log_compaction_merges_blocks_and_readers_agree(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "logc", ["id"], ["p"], ["ts"], "MERGE_ON_READ")
    table.insert(_rows([1, 3, 5, 7], 1))
    for ts in range(2, 7):
        table.upsert(_rows([1, 3], ts, f"u{ts}"), NO_PACKING)
    table.delete(_rows([5], 10))
    expected = _content({1: (6, "u61"), 3: (6, "u63"), 7: (1, "v7")})
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    result = table.log_compact(options={"hoodie.log.compaction.blocks.threshold": "4"})
    assert result is not None and result.action == "logcompaction"
    completed = glob.glob(str(tmp_path / f"t/.hoodie/timeline/{result.instant_time}_*.deltacommit"))
    assert _record(completed[0])["operationType"] == "LOG_COMPACT"
    (log,) = glob.glob(str(tmp_path / f"t/x/.*_{result.instant_time}.log.1_*"))
    blocks = read_log_blocks(Path(log).read_bytes(), log)
    compacted = {t for b in blocks for t in b.header[HeaderKey.COMPACTED_BLOCK_TIMES].split(",")}
    upserts = [i.requested_time for i in table.timeline.completed() if i.action.value == "deltacommit"]
    assert compacted and compacted <= set(upserts)
    assert [b.block_type.name for b in blocks] == ["AVRO_DATA", "DELETE"]
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == expected
    table.compact()
    assert canonical(table_rows(table.read(), COLUMNS)) == expected
