"""Clustering: fewer, ordered files; space-filling curves prune on every sort column."""

from __future__ import annotations

import glob
import random
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, WriteConflictError, metrics
from tests import hudi_rs
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.int64()), ("a", pa.int64()), ("b", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names


def _batch(rng: random.Random, first: int, count: int) -> pa.Table:
    return pa.table(
        {
            "id": list(range(first, first + count)),
            "a": [rng.randrange(10_000) for _ in range(count)],
            "b": [rng.randrange(10_000) for _ in range(count)],
            "p": ["x"] * count,
        },
        schema=SCHEMA,
    )


def _initial_batches(files: int) -> list[pa.Table]:
    rng = random.Random(7)
    return [_batch(rng, n * 2000, 2000) for n in range(files)]


def _loaded(path: Path, table_type: str = "COPY_ON_WRITE", files: int = 12) -> HudiTable:
    table = HudiTable.create(str(path), SCHEMA, "clustering", ["id"], ["p"], None, table_type)
    for batch in _initial_batches(files):
        table.bulk_insert(batch)
    return table


def _content(batches: list[pa.Table]) -> list[tuple[Any, ...]]:
    """The rows the batches leave, written in order (no ordering field: the latest write of an id wins)."""
    rows = {row["id"]: row for batch in batches for row in batch.to_pylist()}
    return canonical(list(rows.values()))


def _options(layout: str, target_bytes: int) -> dict[str, str]:
    return {
        "hoodie.clustering.plan.strategy.sort.columns": "a,b",
        "hoodie.layout.optimize.strategy": layout,
        "hoodie.clustering.plan.strategy.target.file.max.bytes": str(target_bytes),
    }


def test_clustering_plan_commit_and_content(tmp_path: Path) -> None:
    table = _loaded(tmp_path / "t", "MERGE_ON_READ", files=4)
    updates = _batch(random.Random(1), 0, 50)
    table.upsert(updates)  # logs on one file group: clustering merges them
    assert canonical(table_rows(table.read(), COLUMNS)) == _content([*_initial_batches(4), updates])
    sizes = {s.file_id: s.base_file_size for s in table.file_slices()}
    target = sum(sizes.values()) // 2 + 1
    instant = table.schedule_clustering(_options("linear", target))
    assert instant is not None
    with open(tmp_path / f"t/.hoodie/timeline/{instant}.clustering.requested", "rb") as f:
        requested: dict[str, Any] = next(iter(fastavro.reader(f)))
    plan = requested["clusteringPlan"]
    assert requested["operationType"] == "CLUSTER" and plan["preserveHoodieMetadata"] is True
    assert plan["strategy"]["strategyClassName"].endswith("SparkSortAndSizeExecutionStrategy")
    assert plan["strategy"]["strategyParams"]["hoodie.clustering.plan.strategy.sort.columns"] == "a,b"
    (group,) = plan["inputGroups"]
    assert group["numOutputFileGroups"] == 2
    assert all(s["dataFilePath"].startswith("file:/") and s["bootstrapFilePath"] == "" for s in group["slices"])
    slice_sizes = [sizes[s["fileId"]] for s in group["slices"]]
    assert slice_sizes == sorted(slice_sizes, reverse=True)

    # Updates to file groups under the pending clustering are rejected; inserts go elsewhere.
    clustered = group["slices"][0]["fileId"]
    with pytest.raises(WriteConflictError, match=clustered):
        table.upsert(table.read(filters=[("_hoodie_file_name", ">=", clustered)]).select(COLUMNS).slice(0, 1))
    inserts = _batch(random.Random(2), 90_000, 10)
    table.insert(inserts)
    before = _content([*_initial_batches(4), updates, inserts])
    assert canonical(table_rows(table.read(), COLUMNS)) == before

    result = table.cluster(instant)
    assert result is not None and result["file_groups_replaced"] == 4 and result["files_written"] == 2
    (completed,) = glob.glob(str(tmp_path / f"t/.hoodie/timeline/{instant}_*.replacecommit"))
    with open(completed, "rb") as f:
        metadata: dict[str, Any] = next(iter(fastavro.reader(f)))
    assert metadata["operationType"] == "CLUSTER"
    assert sorted(metadata["partitionToReplaceFileIds"]["x"]) == sorted(s["fileId"] for s in group["slices"])
    assert canonical(table_rows(table.read(), COLUMNS)) == before
    assert canonical(table_rows(hudi_rs.snapshot(table.base_uri), COLUMNS)) == before
    # Clustering changes no record: the records keep their commit times, incremental reads see nothing.
    assert table.read_incremental(table.timeline.completed()[-2].completion_time or "").num_rows == 0
    new_files = [s for s in table.file_slices() if s.base_instant == instant]
    assert len(new_files) == 2
    for file_slice in new_files:
        rows = pq.read_table(tmp_path / "t" / (file_slice.base_file_path or ""), columns=["a"])
        values = rows.column("a").to_pylist()
        assert values == sorted(values), "linear clustering sorts each file by the first sort column"
    table.upsert(_batch(random.Random(3), 0, 5))  # the clustered file groups take updates again


def _files_opened(table: HudiTable, filters: list[tuple[str, str, Any]]) -> tuple[int, int]:
    with metrics.capture() as m:
        rows = table.read(filters=filters)
    return m.base_files_read, rows.num_rows


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_space_filling_curves_prune_on_the_second_column(table_type: str, tmp_path: Path) -> None:
    opened = {}
    for layout in ("linear", "z-order", "hilbert"):
        table = _loaded(tmp_path / layout, table_type)
        files_before = len(table.file_slices())
        total = sum(s.base_file_size for s in table.file_slices())
        result = table.cluster(options=_options(layout, total // 8 + 1))
        assert result is not None
        assert len(table.file_slices()) == 8 < files_before
        opened[layout] = _files_opened(table, [("b", "<", 1000)])
        assert opened[layout][1] == pc.sum(pc.less(table.read(columns=["b"]).column("b"), 1000)).as_py()
    assert opened["z-order"][0] < opened["linear"][0]
    assert opened["hilbert"][0] < opened["linear"][0]
