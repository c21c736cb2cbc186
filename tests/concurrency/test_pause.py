"""The pause of `tests.concurrency.pause`: an interleaving a test claims happens, or the test fails."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.write.client import WriteResult
from tests.concurrency.pause import paused

SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])


def table(path: Path) -> HudiTable:
    created = HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "COPY_ON_WRITE")
    created.insert(pa.Table.from_pylist([{"id": "a", "city": "sf", "fare": 1.0}], schema=SCHEMA))
    return created


def test_a_write_that_ends_without_pausing_fails_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = table(tmp_path / "t")
    rows = pa.Table.from_pylist([{"id": "a", "city": "sf", "fare": 2.0}], schema=SCHEMA)
    with ThreadPoolExecutor(1) as pool:

        def elsewhere() -> WriteResult:
            return pool.submit(written.upsert, rows).result()  # its crash points pass on the pool's thread

        with (
            pytest.raises(AssertionError, match=r"ended without pausing at write\.after_files"),
            paused(monkeypatch, elsewhere),
        ):
            pass


def test_a_paused_write_waits_until_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = table(tmp_path / "t")
    rows = pa.Table.from_pylist([{"id": "a", "city": "sf", "fare": 2.0}], schema=SCHEMA)
    with paused(monkeypatch, lambda: written.upsert(rows)) as writer:
        assert writer.paused and writer.thread.is_alive() and writer.result is None
        assert [i.requested_time for i in HudiTable(str(tmp_path / "t")).timeline.pending()]
    assert writer.result is not None and writer.error is None
    assert not any(t.name == writer.thread.name for t in threading.enumerate())
