"""Heartbeats: how writers show they are alive (Hudi's `HoodieHeartbeatClient`).

A writer refreshes `.hoodie/.heartbeat/<instant>` every `hoodie.client.heartbeat.interval_in_ms`
while it works on that instant. A pending instant whose heartbeat is older than interval x
`hoodie.client.heartbeat.tolerable.misses` (or missing) belongs to a dead writer and may be rolled
back; a fresh one must never be.
"""

from __future__ import annotations

import posixpath
import threading
import time
from collections.abc import Callable

from hudi_core.errors import HudiStorageError
from hudi_core.storage import Storage

HEARTBEAT_DIR = ".hoodie/.heartbeat"


def heartbeat_path(instant_time: str) -> str:
    return posixpath.join(HEARTBEAT_DIR, instant_time)


def last_heartbeat_ms(storage: Storage, instant_time: str) -> int | None:
    """When the instant's writer last beat (epoch ms), or None if it never did or finished."""
    try:
        text = storage.read_bytes(heartbeat_path(instant_time)).decode("ascii").strip()
    except HudiStorageError:
        return None
    return int(text) if text.isdigit() else None


def heartbeat_expired(storage: Storage, instant_time: str, interval_ms: int, tolerable_misses: int) -> bool:
    beat = last_heartbeat_ms(storage, instant_time)
    return beat is None or time.time() * 1000 - beat > interval_ms * max(tolerable_misses, 1)


def touch_heartbeat(storage: Storage, instant_time: str) -> None:
    """Records a heartbeat of `instant_time` now (tasks in other processes call this as they work)."""
    storage.write_atomic(heartbeat_path(instant_time), str(int(time.time() * 1000)).encode("ascii"))


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
    """Keeps one instant's heartbeat file fresh while its writer runs."""

    def __init__(self, storage: Storage, instant_time: str, interval_ms: int) -> None:
        self._storage = storage
        self._instant_time = instant_time
        self._path = heartbeat_path(instant_time)
        self._refresher = Refresher(self._beat, interval_ms / 1000)

    def _beat(self) -> None:
        touch_heartbeat(self._storage, self._instant_time)

    def __enter__(self) -> InstantHeartbeat:
        self._refresher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._refresher.stop()
        self._storage.delete(self._path)
