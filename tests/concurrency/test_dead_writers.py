"""A writer killed with SIGKILL, with the default heartbeat settings (60 s x 2 misses): its lock and
heartbeat name its process, so the next writer on the same machine takes over at once, because the
process is gone, instead of waiting for the heartbeat to expire. The same records naming a process
of another host or boot are respected as Apache Hudi's heartbeat rule says."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import ConcurrentWriteError, HudiTable
from hudi_core.concurrency.storage_lock import LOCK_FILE
from hudi_core.lifecycle.crash import ENV_VAR
from hudi_core.lifecycle.heartbeat import heartbeat_path
from hudi_core.lifecycle.process_identity import ProcessIdentity, this_process
from hudi_core.timeline.instant import Action
from tests.model import canonical, table_rows

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
COLUMNS = SCHEMA.names
KILLED_WRITER = """
import sys
import pyarrow as pa
from hudi_core import HudiTable
schema = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
HudiTable(sys.argv[1]).upsert(pa.Table.from_pylist([{"id": "a", "city": "sf", "fare": 99.0}], schema=schema))
"""


def rows(*items: tuple[str, str, float]) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "city": c, "fare": f} for i, c, f in items], schema=SCHEMA)


def kill_a_writer(path: Path) -> int:
    """Runs an upsert with default options that dies by SIGKILL once its files are written; its pid."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ENV_VAR: "write.after_files"}
    with subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)], env=env) as writer:
        assert writer.wait(timeout=120) == -signal.SIGKILL
    return writer.pid


def named_process(record: object) -> ProcessIdentity:
    identity = ProcessIdentity.from_record(record)
    assert identity is not None, f"{record} names no process"
    return identity


def data_files_of(path: Path, instant: str) -> list[Path]:
    return [f for f in path.rglob("*") if f.is_file() and ".hoodie" not in f.parts and instant in f.name]


@pytest.mark.parametrize(
    "field, foreign", [("host", "another-host"), ("boot_id", "00000000-0000-0000-0000-000000000000")]
)
def test_the_next_writer_takes_over_from_a_killed_one_without_waiting(tmp_path: Path, field: str, foreign: str) -> None:
    path = tmp_path / "t"
    HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "COPY_ON_WRITE").insert(
        rows(("a", "sf", 1.0), ("b", "nyc", 2.0))
    )
    dead_pid = kill_a_writer(path)

    [pending] = HudiTable(str(path)).timeline.pending()
    dead_files = data_files_of(path, pending.requested_time)
    assert dead_files, "the killed writer wrote its files"
    lock_file, beat_file = path / LOCK_FILE, path / heartbeat_path(pending.requested_time)
    lock_record, beat_content = json.loads(lock_file.read_text()), beat_file.read_bytes()
    here = this_process()
    assert here is not None
    for record in (lock_record["holder"], json.loads(beat_content)):
        writer = named_process(record)
        assert writer.pid == dead_pid
        assert (writer.host, writer.boot_id, writer.pid_namespace) == (here.host, here.boot_id, here.pid_namespace)

    # The same records naming a process of another host or boot: the lock (valid 2 minutes) and
    # the heartbeat (fresh) keep the next writer out, and nothing is rolled back.
    lock_file.write_text(json.dumps({**lock_record, "holder": {**lock_record["holder"], field: foreign}}))
    with pytest.raises(ConcurrentWriteError, match="locked by a live writer"):
        HudiTable(str(path)).upsert(rows(("b", "nyc", 20.0)))
    lock_file.write_text(json.dumps(lock_record))
    foreign_writer = dataclasses.replace(named_process(json.loads(beat_content)), **{field: foreign})
    beat_file.write_text(json.dumps(foreign_writer.to_record()))
    with pytest.raises(ConcurrentWriteError, match=f"instant {pending.requested_time}.*live writer"):
        HudiTable(str(path)).upsert(rows(("b", "nyc", 20.0)))
    assert [i.requested_time for i in HudiTable(str(path)).timeline.pending()] == [pending.requested_time]
    assert all(f.exists() for f in dead_files)

    # As the killed writer left them: the next writer rolls its write back at once.
    beat_file.write_bytes(beat_content)
    HudiTable(str(path)).upsert(rows(("b", "nyc", 20.0)))
    timeline = HudiTable(str(path)).timeline
    assert timeline.find(pending.requested_time) is None
    assert [i.action for i in timeline.completed()].count(Action.ROLLBACK) == 1
    assert not data_files_of(path, pending.requested_time)
    assert not beat_file.exists()
    got = canonical(table_rows(HudiTable(str(path)).read(columns=COLUMNS), COLUMNS))
    assert got == canonical([{"id": "a", "city": "sf", "fare": 1.0}, {"id": "b", "city": "nyc", "fare": 20.0}])
