"""Work racing another writer's archival: a service executing a plan reads what it needs of the
timeline under the lock it took to start, and a read whose instants leave the active timeline while
it plans plans again on the reloaded timeline; neither fails nor changes what it returns."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.lifecycle import crash
from hudi_core.table.read_planner import ReadPlanner
from hudi_core.table.state import TableState
from tests.concurrency.options import occ
from tests.model import TRIPS_SCHEMA, canonical, table_rows

OPTIONS = occ(
    "InProcessLockProvider",
    **{
        "hoodie.clean.commits.retained": "1",
        "hoodie.keep.min.commits": "2",
        "hoodie.keep.max.commits": "3",
        "hoodie.archive.automatic": "false",
        "hoodie.clean.automatic": "false",
    },
)


def _rows(start: int, count: int, ts: int) -> pa.Table:
    keys = range(start, start + count)
    rows = [{"id": f"k{i}", "ts": ts, "city": ["sf", "nyc"][i % 2], "fare": float(i)} for i in keys]
    return pa.Table.from_pylist(rows, schema=TRIPS_SCHEMA)


@pytest.mark.parametrize("service", ["compaction", "clustering"])
def test_an_archival_while_a_service_executes_does_not_fail_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: str
) -> None:
    path = str(tmp_path / "t")
    table = HudiTable.create(path, TRIPS_SCHEMA, "t", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OPTIONS)
    table.insert(_rows(0, 10, 1))
    overwrite = table.insert_overwrite(_rows(0, 6, 2))  # a replacecommit, archived mid-execution
    for ts in range(3, 9):
        table.upsert(_rows(ts, 3, ts))
    table.clean(OPTIONS)
    schedule = table.schedule_compaction if service == "compaction" else table.schedule_clustering
    scheduled = schedule(OPTIONS)
    assert scheduled is not None
    expected = canonical(table_rows(HudiTable(path).read(), TRIPS_SCHEMA.names))
    archived: list[object] = []
    real_crash_point = crash.crash_point

    def archive_at_inflight(name: str) -> None:
        real_crash_point(name)
        if name.endswith(".after_inflight"):
            archived.append(HudiTable(path).archive(OPTIONS))

    monkeypatch.setattr(crash, "crash_point", archive_at_inflight)
    execute = table.compact if service == "compaction" else table.cluster
    assert execute(scheduled, OPTIONS) is not None
    assert archived and archived[0] is not None
    active = {i.requested_time for i in HudiTable(path).timeline.completed()}
    assert overwrite.instant_time not in active
    assert canonical(table_rows(HudiTable(path).read(), TRIPS_SCHEMA.names)) == expected


def test_a_read_planned_while_an_archival_removes_its_instants_plans_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "t")
    table = HudiTable.create(path, TRIPS_SCHEMA, "t", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OPTIONS)
    first = table.insert(_rows(0, 10, 1))
    overwrite = table.insert_overwrite(_rows(0, 6, 2))
    for ts in range(3, 9):
        table.upsert(_rows(ts, 3, ts))
    table.clean(OPTIONS)
    expected = canonical(table_rows(HudiTable(path).read(), TRIPS_SCHEMA.names))
    changes = canonical(table_rows(HudiTable(path).read_incremental(first.instant_time), TRIPS_SCHEMA.names))
    loads: list[str] = []
    real_state = ReadPlanner.state

    def archive_after_the_first_load(planner: ReadPlanner) -> TableState:
        state = real_state(planner)
        loads.append(state.timeline.completed()[-1].requested_time)
        if len(loads) == 1:  # the instants this state lists leave the active timeline
            assert HudiTable(path).archive(OPTIONS) is not None
        return state

    monkeypatch.setattr(ReadPlanner, "state", archive_after_the_first_load)
    assert canonical(table_rows(HudiTable(path).read(), TRIPS_SCHEMA.names)) == expected
    assert len(loads) == 2
    assert overwrite.instant_time not in {i.requested_time for i in HudiTable(path).timeline.completed()}
    assert canonical(table_rows(HudiTable(path).read_incremental(first.instant_time), TRIPS_SCHEMA.names)) == changes
