"""Heartbeats on S3: their age is the object's Last-Modified, which S3 gives to the second; a beat
is never taken to be older than it is, so a live writer with short heartbeats is never judged dead."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time

from hudi_core.lifecycle.heartbeat import heartbeat_expired, heartbeat_writer, last_heartbeat_ms, touch_heartbeat
from hudi_core.lifecycle.process_identity import this_process
from hudi_core.storage import Storage


def test_a_heartbeat_on_s3_is_as_recent_as_it_was_written(bucket: str) -> None:
    storage = Storage(f"s3://{bucket}/table")
    for _ in range(3):
        before_ms = int(time.time() * 1000)
        touch_heartbeat(storage, "20250101000000000", this_process())
        beat = last_heartbeat_ms(storage, "20250101000000000")
        assert beat is not None and beat >= before_ms, f"a beat at {before_ms} read as {beat}"
        assert not heartbeat_expired(storage, "20250101000000000", 100, 2)
        assert heartbeat_writer(storage, "20250101000000000") == this_process()
        time.sleep(0.3)
    touch_heartbeat(storage, "20250101000000001")  # a task's beat: empty, as Apache Hudi's
    assert not heartbeat_expired(storage, "20250101000000001", 100, 2)
    assert heartbeat_writer(storage, "20250101000000001") is None


def test_a_dead_local_writer_on_s3_is_judged_by_age_alone(bucket: str) -> None:
    """A table on an object store is shared by writers anywhere: only the heartbeat's age counts
    there, even for a record naming a process of this machine that is gone."""
    storage = Storage(f"s3://{bucket}/table")
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    identity = this_process()
    assert identity is not None
    gone = dataclasses.replace(identity, pid=process.pid)
    touch_heartbeat(storage, "20250101000000002", gone)
    assert not heartbeat_expired(storage, "20250101000000002", 60_000, 2)
    local = Storage(f"{tempfile.mkdtemp()}/table")
    touch_heartbeat(local, "20250101000000002", gone)
    assert heartbeat_expired(local, "20250101000000002", 60_000, 2)  # the same record on local disk
