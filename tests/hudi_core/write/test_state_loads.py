"""A write loads the table state a bounded number of times: once to plan, once under the lock (the
metadata table's sync at completion uses it), once for the inline services (shared by them all)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.table import state
from hudi_core.timeline import Timeline

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table({"id": ids, "v": ["x"] * len(ids), "ts": [ts] * len(ids), "p": ["a"] * len(ids)})


def test_a_one_row_merge_on_read_upsert_loads_the_data_table_state_three_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "loads", ["id"], ["p"], ["ts"], "MERGE_ON_READ")
    table.insert(_rows(list(range(100)), 1))
    table.upsert(_rows([1], 2))
    counts = {"states": 0, "timelines": 0}
    load_config, timeline_init = state.load_table_config, Timeline.__init__

    def counted_config(*args: Any) -> Any:
        counts["states"] += 1
        return load_config(*args)

    def counted_timeline(self: Timeline, *args: Any, **kwargs: Any) -> None:
        counts["timelines"] += 1
        timeline_init(self, *args, **kwargs)

    monkeypatch.setattr(state, "load_table_config", counted_config)  # what load_table_state calls
    monkeypatch.setattr(Timeline, "__init__", counted_timeline)
    result = table.upsert(_rows([2], 3))
    assert result.updates == 1 and not result.service_warnings
    # Three data-table states; the metadata table's state as the file listing reads it; the metadata
    # timeline its writer loads once for the sync (it was loaded three times, the data state seven).
    assert counts == {"states": 4, "timelines": 5}
