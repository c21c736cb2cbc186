"""Table services hand their file-group work to the engine's task runner: here a pool of spawned
processes, which shares no memory with the planning process, so every task must carry what it
needs (as on Spark executors)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.services import clean, clustering, compaction
from hudi_core.services.base import ServiceContext

T = TypeVar("T")
R = TypeVar("R")

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
MANUAL = {"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _in_child(job: tuple[Callable[[Any], Any], Any]) -> tuple[int, Any]:
    func, task = job
    return os.getpid(), func(task)


class ProcessRunner:
    """A TaskRunner on spawned processes; records which functions ran where."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.ran: list[tuple[str, int]] = []

    def __call__(self, func: Callable[[T], R], tasks: Sequence[T], /) -> list[R]:
        results = []
        for pid, result in self.pool.map(_in_child, [(func, task) for task in tasks]):
            self.ran.append((func.__name__, pid))
            results.append(result)
        return results


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table(
        {"id": ids, "v": [f"v{ts}"] * len(ids), "ts": [ts] * len(ids), "p": ["a" if i % 2 else "b" for i in ids]}
    )


def _rows_of(table: HudiTable) -> list[tuple[int, str]]:
    return sorted(zip(*table.read(["id", "v"]).to_pydict().values(), strict=True))


def _services(table: HudiTable, runner: ProcessRunner, options: dict[str, str] | None = None) -> ServiceContext:
    return ServiceContext(table.storage, {**MANUAL, **(options or {})}, runner)


def test_compaction_and_log_compaction_run_their_file_groups_in_other_processes(
    tmp_path: Path, pool: ProcessPoolExecutor
) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "runner", ["id"], ["p"], ["ts"], "MERGE_ON_READ", MANUAL)
    table.insert(_rows(list(range(20)), 1))
    for ts in (2, 3):
        table.upsert(_rows([1, 2, 3, 4], ts))
    expected = _rows_of(table)
    runner = ProcessRunner(pool)
    logged = compaction.run_compaction(
        _services(table, runner, {"hoodie.log.compaction.blocks.threshold": "1"}), kind=compaction.LOG_COMPACTION
    )
    assert logged is not None and _rows_of(table) == expected
    compacted = compaction.run_compaction(_services(table, runner))
    assert compacted is not None and _rows_of(table) == expected
    assert {name for name, _ in runner.ran} == {"log_compact_file_group", "compact_file_group"}
    assert os.getpid() not in {pid for _, pid in runner.ran}
    assert all(not s.log_files for s in table.file_slices())


def test_clustering_and_clean_run_their_tasks_in_other_processes(tmp_path: Path, pool: ProcessPoolExecutor) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "runner", ["id"], ["p"], ["ts"], "COPY_ON_WRITE", MANUAL)
    no_packing = {"hoodie.parquet.small.file.limit": "0"}
    for batch in range(3):
        table.insert(_rows(list(range(batch * 10, batch * 10 + 10)), 1), no_packing)
    expected = _rows_of(table)
    runner = ProcessRunner(pool)
    clustered = clustering.run_clustering(
        _services(table, runner, {"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)})
    )
    assert clustered is not None and _rows_of(table) == expected
    assert len(table.file_slices()) == 2  # one file group per partition
    table.insert(_rows([100, 101], 2), no_packing)  # the clustering is no longer the commit retained
    expected = _rows_of(table)
    cleaned = clean.run_clean(_services(table, runner, {"hoodie.clean.commits.retained": "1"}), force=True)
    assert cleaned is not None and cleaned.counts["files_deleted"] == 6  # the replaced groups' files
    assert _rows_of(table) == expected
    assert {name for name, _ in runner.ran} == {"cluster_group", "delete_files"}
    assert os.getpid() not in {pid for _, pid in runner.ran}
