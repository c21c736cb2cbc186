"""A task still writing when its write failed and was rolled back (a Spark task the failed job did
not wait for) leaves no file behind: the rollback fences the instant's markers before listing them,
and a task checks the fence and its own marker after closing its file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import CommitError
from hudi_core.lifecycle.markers import Markers
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.write.client import WriteClient
from hudi_core.write.handles import FileGroupWrite, WriteContext, write_file_group
from hudi_core.write.operation import WriteOperation
from tests.model import TRIPS_SCHEMA


class _LateTasks:
    """An engine whose job fails at once, keeping its tasks to run them after the rollback."""

    def __init__(self) -> None:
        self.context: WriteContext | None = None
        self.tasks: list[FileGroupWrite] = []

    def __call__(self, context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[WriteStat]:
        self.context, self.tasks = context, list(tasks)
        raise RuntimeError("the job failed while these tasks were still to run")


def _rows(ids: range, city: str) -> pa.Table:
    return pa.table(
        {"id": [f"k{i}" for i in ids], "ts": [1] * len(ids), "city": [city] * len(ids), "fare": [1.0] * len(ids)},
        schema=TRIPS_SCHEMA,
    )


def _data_files(base: Path) -> set[str]:
    return {str(p.relative_to(base)) for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}


@pytest.mark.parametrize("when", ["after the rollback", "during the rollback"])
def test_a_task_finishing_after_its_write_was_rolled_back_removes_its_file(when: str, tmp_path: Path) -> None:
    table = HudiTable.create(
        str(tmp_path / "t"), TRIPS_SCHEMA, "t", record_key_fields=["id"], partition_fields=["city"]
    )
    table.upsert(_rows(range(4), "sf"))
    before = _data_files(tmp_path / "t")
    late = _LateTasks()
    with pytest.raises(RuntimeError, match="job failed"):
        WriteClient(table.storage, {}, engine=late).write(WriteOperation.UPSERT, _rows(range(2, 8), "nyc"))
    assert late.context is not None and late.tasks
    assert table.timeline.pending() == []  # rolled back
    if when == "during the rollback":
        Markers(Storage(late.context.base_uri), late.context.instant_time).fence()
    for task in late.tasks:
        with pytest.raises(CommitError, match="was rolled back while file group"):
            write_file_group(late.context, task)
    assert _data_files(tmp_path / "t") == before
    assert table.orphan_files() == []
    assert sorted(table.read(columns=["id"]).column("id").to_pylist()) == ["k0", "k1", "k2", "k3"]


def test_a_task_of_a_live_write_passes_the_check(tmp_path: Path) -> None:
    table = HudiTable.create(
        str(tmp_path / "t"), TRIPS_SCHEMA, "t", record_key_fields=["id"], partition_fields=["city"]
    )
    result = table.upsert(_rows(range(3), "sf"))
    assert result.inserts == 3 and table.orphan_files() == []
