"""Heartbeats: how writers show they are alive (Hudi's `HoodieHeartbeatClient`).

A writer refreshes `.hoodie/.heartbeat/<instant>` every `hoodie.client.heartbeat.interval_in_ms`
while it works on that instant. As in Apache Hudi (`HoodieHeartbeatUtils.getLastHeartbeatTime`),
the last beat is the file's modification time, whatever it holds: Apache Hudi's are empty. A pending
instant whose heartbeat is older than interval x `hoodie.client.heartbeat.tolerable.misses` (or
missing) belongs to a dead writer and may be rolled back; a fresh one must never be.

A process that runs a whole write or service writes its identity into the file (Apache Hudi ignores
the content): when it ran on this machine and is gone, its heartbeat on a table on the local file
system is stale at once rather than after the misses (:mod:`hudi_core.lifecycle.process_identity`);
tables on object stores keep Hudi's rule alone. Tasks beating for a write that another
process runs leave the file empty: they may come and go while the write lives on.
"""

from __future__ import annotations

import json
import posixpath
import threading
import time
from collections.abc import Callable

from hudi_core.errors import HudiStorageError
from hudi_core.lifecycle.process_identity import ProcessIdentity, has_exited, this_process
from hudi_core.storage import Storage

HEARTBEAT_DIR = ".hoodie/.heartbeat"


def heartbeat_path(instant_time: str) -> str:
    return posixpath.join(HEARTBEAT_DIR, instant_time)


def last_heartbeat_ms(storage: Storage, instant_time: str) -> int | None:
    """When the instant's writer last beat (epoch ms), or None if it never did or finished.

    A modification time on a whole second may have been truncated to it (S3's Last-Modified, coarse
    file systems): the beat is then taken to be as late as it can have been, never too early.
    """
    modified = storage.modified_ms(heartbeat_path(instant_time))
    if modified is not None and modified % 1000 == 0:
        return modified + 999
    return modified


def heartbeat_writer(storage: Storage, instant_time: str) -> ProcessIdentity | None:
    """The process a heartbeat names, or None (an empty heartbeat, as Apache Hudi's, or an unreadable one)."""
    try:
        record = json.loads(storage.read_bytes(heartbeat_path(instant_time)))
    except (HudiStorageError, ValueError):
        return None
    return ProcessIdentity.from_record(record)


def heartbeat_expired(storage: Storage, instant_time: str, interval_ms: int, tolerable_misses: int) -> bool:
    """Whether the instant's writer is dead: it missed too many beats, or (a table on this machine's
    file system) it was a process of this machine that no longer runs. A table on an object store
    is shared by writers anywhere: its heartbeats are judged by age alone, as Apache Hudi judges them."""
    beat = last_heartbeat_ms(storage, instant_time)
    if beat is None or time.time() * 1000 - beat > interval_ms * max(tolerable_misses, 1):
        return True
    if not storage.is_local:
        return False
    writer = heartbeat_writer(storage, instant_time)
    return writer is not None and has_exited(writer)


def touch_heartbeat(storage: Storage, instant_time: str, writer: ProcessIdentity | None = None) -> None:
    """Records a heartbeat of `instant_time` now (rewriting the file moves its modification time).

    `writer`: the process running the whole write, which beats until the write ends; tasks that beat
    for a write run by another process (in other processes) pass None.
    """
    content = json.dumps(writer.to_record()).encode("utf-8") if writer is not None else b""
    storage.write_atomic(heartbeat_path(instant_time), content)


class Refresher:
    """Calls `beat` now and then every `interval_s` on a daemon thread until stopped."""

    def __init__(self, beat: Callable[[], None], interval_s: float) -> None:
        self._beat = beat
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._beat()
        self._thread = threading.Thread(target=self._run, name="hudi-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._beat()
            except HudiStorageError:
                continue  # a missed beat; the next one may succeed

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


class InstantHeartbeat:
    """Keeps one instant's heartbeat file fresh, naming this process, while it runs the instant."""

    def __init__(self, storage: Storage, instant_time: str, interval_ms: int) -> None:
        self._storage = storage
        self._instant_time = instant_time
        self._path = heartbeat_path(instant_time)
        self._refresher = Refresher(self._beat, interval_ms / 1000)

    def _beat(self) -> None:
        touch_heartbeat(self._storage, self._instant_time, this_process())

    def __enter__(self) -> InstantHeartbeat:
        self._refresher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._refresher.stop()
        self._storage.delete(self._path)
