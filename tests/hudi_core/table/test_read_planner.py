"""The read planner the engines call: the same plans as the façade's reads, one option precedence,
and the façade's old engine hooks kept as deprecated aliases."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.engine.arrow import iter_plan, read_plan
from hudi_core.errors import HudiConfigError
from hudi_core.table.read_planner import ReadPlanner
from tests.model import canonical as canonical_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
CDC = {"hoodie.table.cdc.enabled": "true"}


def canonical(table: pa.Table) -> list[tuple[object, ...]]:
    return canonical_rows(table.to_pylist())


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table({"id": ids, "v": [f"v{ts}"] * len(ids), "ts": [ts] * len(ids), "p": ["a", "b"] * (len(ids) // 2)})


@pytest.fixture
def table(tmp_path: Path) -> HudiTable:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "planned", ["id"], ["p"], ["ts"], "MERGE_ON_READ", CDC)
    table.insert(_rows([1, 2, 3, 4], 1))
    table.upsert(_rows([3, 4], 2))
    return table


def test_planner_plans_what_the_facade_reads(table: HudiTable) -> None:
    planner = ReadPlanner(table.storage)
    storage = table.storage
    assert canonical(read_plan(storage, planner.plan())) == canonical(table.read())
    filters = [("p", "=", "a")]
    assert canonical(read_plan(storage, planner.plan(["id", "v"], filters))) == canonical(
        table.read(["id", "v"], filters)
    )
    first, second = [i.requested_time for i in table.timeline.completed()]
    completed = {i.requested_time: i.completion_time for i in table.timeline.completed()}
    incremental = planner.plan_incremental(str(completed[first]))
    assert canonical(read_plan(storage, incremental)) == canonical(table.read_incremental(str(completed[first])))
    as_option = planner.plan(
        options={
            "hoodie.datasource.query.type": "incremental",
            "hoodie.datasource.read.begin.instanttime": str(completed[first]),
        }
    )
    assert canonical(read_plan(storage, as_option)) == canonical(read_plan(storage, incremental))
    assert canonical(read_plan(storage, planner.plan(as_of=first))) == canonical(table.read(as_of=first))
    assert second


def test_planner_reads_the_change_feed_as_the_facade_does(table: HudiTable) -> None:
    planner = ReadPlanner(table.storage)
    options = {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.query.incremental.format": "cdc",
        "hoodie.datasource.read.begin.instanttime": "earliest",
    }
    assert planner.is_cdc_query(options) and not planner.is_cdc_query()
    start, end = planner.cdc_window(options)
    assert (start, end) == (None, None)
    feed = planner.cdc_reader(lambda plan: iter_plan(table.storage, plan)).read(start, end)
    assert feed.to_pylist() == table.read_cdc("earliest").to_pylist() == table.read(options=options).to_pylist()
    with pytest.raises(HudiConfigError, match="CDC queries are not planned"):
        planner.plan(options=options)


def test_call_options_override_the_planners_and_both_are_validated(table: HudiTable) -> None:
    handle = ReadPlanner(table.storage, {"hoodie.datasource.query.type": "read_optimized"})
    read_optimized = canonical(read_plan(table.storage, handle.plan()))
    snapshot = canonical(read_plan(table.storage, handle.plan(options={"hoodie.datasource.query.type": "snapshot"})))
    assert snapshot == canonical(table.read()) != read_optimized  # the upsert sits in a log file
    with pytest.raises(HudiConfigError, match=r"hoodie\.datasource\.query\.type"):
        handle.plan(options={"hoodie.datasource.query.type": "sideways"})
    with pytest.raises(HudiConfigError, match=r"hoodie\.datasource\.query\.type"):
        ReadPlanner(table.storage, {"hoodie.datasource.query.type": "sideways"})


def test_the_facades_old_engine_hooks_warn_and_still_work(table: HudiTable) -> None:
    options = {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.query.incremental.format": "cdc",
        "hoodie.datasource.read.begin.instanttime": "earliest",
    }
    with pytest.warns(DeprecationWarning, match=r"planner\.state\(\)"):
        assert table.state().timeline.completed() == table.planner.state().timeline.completed()
    with pytest.warns(DeprecationWarning, match=r"planner\.is_cdc_query"):
        assert table.is_cdc_query(options)
    with pytest.warns(DeprecationWarning, match=r"planner\.cdc_window"):
        assert table.cdc_window(options) == (None, None)
    with pytest.warns(DeprecationWarning, match=r"planner\.cdc_reader"):
        assert table.cdc_reader().read(None, None).num_rows == table.read_cdc("earliest").num_rows
