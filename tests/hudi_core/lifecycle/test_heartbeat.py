"""Heartbeats are judged as Apache Hudi judges them, by the file's modification time (Apache Hudi's
are empty files), and ours name their process so that a dead writer of this machine is known at once."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import ConcurrentWriteError, HudiTable
from hudi_core.lifecycle.heartbeat import (
    InstantHeartbeat,
    heartbeat_expired,
    heartbeat_path,
    heartbeat_writer,
    last_heartbeat_ms,
    touch_heartbeat,
)
from hudi_core.lifecycle.process_identity import ProcessIdentity, this_process
from hudi_core.storage import Storage
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from tests.processes import identity_of_a_finished_process

MINUTE_MS = 60_000  # the default interval: only the mechanism can make a heartbeat stale at once
SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])


def age_file(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_an_empty_heartbeat_is_judged_by_its_modification_time(tmp_path: Path) -> None:
    """Apache Hudi's heartbeat: an empty file rewritten every interval."""
    storage = Storage(str(tmp_path))
    beat = tmp_path / heartbeat_path("20250101000000000")
    beat.parent.mkdir(parents=True)
    beat.write_bytes(b"")
    assert not heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), "a fresh empty heartbeat is live"
    assert heartbeat_writer(storage, "20250101000000000") is None
    age_file(beat, 119)
    assert not heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2)
    age_file(beat, 121)
    assert heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), "two missed beats"
    assert heartbeat_expired(storage, "20250101000000001", MINUTE_MS, 2), "no heartbeat at all"


def test_unparseable_content_falls_back_to_the_modification_time(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    for content in (b"1700000000000", b"{not json", b'{"pid": 1}', b"\xff\xfe"):
        storage.write_bytes(heartbeat_path("20250101000000000"), content)
        assert not heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), content
        age_file(tmp_path / heartbeat_path("20250101000000000"), 121)
        assert heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), content


def test_a_whole_second_modification_time_counts_as_the_latest_it_can_stand_for(tmp_path: Path) -> None:
    """S3's Last-Modified is truncated to the second: a beat at .9 s must not look 0.9 s older."""
    storage = Storage(str(tmp_path))
    storage.write_bytes(heartbeat_path("20250101000000000"), b"")
    path = tmp_path / heartbeat_path("20250101000000000")
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    assert last_heartbeat_ms(storage, "20250101000000000") == 1_700_000_000_999
    os.utime(path, ns=(1_700_000_000_250_000_000, 1_700_000_000_250_000_000))
    assert last_heartbeat_ms(storage, "20250101000000000") == 1_700_000_000_250


def test_our_heartbeat_names_this_process_and_moves_its_modification_time(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    with InstantHeartbeat(storage, "20250101000000000", interval_ms=50):
        assert heartbeat_writer(storage, "20250101000000000") == this_process()
        first = storage.modified_ms(heartbeat_path("20250101000000000"))
        deadline = time.monotonic() + 30
        while storage.modified_ms(heartbeat_path("20250101000000000")) == first:
            assert time.monotonic() < deadline, "the heartbeat's modification time never moved"
            time.sleep(0.02)
        assert not heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2)
    assert not (tmp_path / heartbeat_path("20250101000000000")).exists()


def test_tasks_beating_for_a_write_of_another_process_name_no_process(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    touch_heartbeat(storage, "20250101000000000")
    assert (tmp_path / heartbeat_path("20250101000000000")).read_bytes() == b""


def test_a_dead_writer_of_this_machine_is_stale_at_once_and_a_foreign_one_is_not(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    dead = identity_of_a_finished_process()
    touch_heartbeat(storage, "20250101000000000", dead)
    assert heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2)
    for field, foreign in (("host", "another-host"), ("boot_id", "00000000-0000-0000-0000-000000000000")):
        touch_heartbeat(storage, "20250101000000000", dataclasses.replace(dead, **{field: foreign}))
        assert not heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), field
        age_file(tmp_path / heartbeat_path("20250101000000000"), 121)
        assert heartbeat_expired(storage, "20250101000000000", MINUTE_MS, 2), f"{field}: Hudi's rule still holds"


def test_a_live_apache_hudi_write_is_not_rolled_back(tmp_path: Path) -> None:
    """A pending instant of a Java writer, whose heartbeat is an empty file it keeps rewriting."""
    path = tmp_path / "t"
    table = HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "COPY_ON_WRITE")
    table.insert(pa.Table.from_pylist([{"id": "a", "city": "sf", "fare": 1.0}], schema=SCHEMA))
    instant = new_instant_time(after=latest_time_on(table.timeline))
    (path / ".hoodie" / "timeline" / f"{instant}.commit.requested").write_bytes(b"")
    (path / heartbeat_path(instant)).parent.mkdir(parents=True, exist_ok=True)
    (path / heartbeat_path(instant)).write_bytes(b"")
    with pytest.raises(ConcurrentWriteError, match=f"instant {instant}.*live writer"):
        HudiTable(str(path)).upsert(pa.Table.from_pylist([{"id": "b", "city": "sf", "fare": 2.0}], schema=SCHEMA))
    assert [i.requested_time for i in HudiTable(str(path)).timeline.pending()] == [instant]
    assert (path / heartbeat_path(instant)).exists()


def test_heartbeat_records_are_json_identities(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    identity = this_process()
    assert identity is not None
    touch_heartbeat(storage, "20250101000000000", identity)
    record = json.loads((tmp_path / heartbeat_path("20250101000000000")).read_text())
    assert ProcessIdentity.from_record(record) == identity
    assert set(record) == {"host", "boot_id", "pid_namespace", "pid", "start_ticks"}
