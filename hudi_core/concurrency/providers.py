"""Lock providers for optimistic concurrency, by Hudi's class names (`hoodie.write.lock.provider`).

A provider guards one table. `try_lock(timeout_s)` waits at most that long; the lock manager
(:mod:`hudi_core.concurrency.lock_manager`) retries per Hudi's retry options.

* `InProcessLockProvider`: a lock per table path shared by every writer of this process (threads).
* `FileSystemBasedLockProvider`: the file `<hoodie.write.lock.filesystem.path or .hoodie>/lock`
  created atomically, as Hudi's provider does; it counts as abandoned once older than
  `hoodie.write.lock.filesystem.expire` minutes (0: never) or, when it names a process of this
  machine that no longer runs (:mod:`hudi_core.lifecycle.process_identity`), at once. Needs a file
  system with atomic create (local here).
* `ZookeeperBasedLockProvider`: see :mod:`hudi_core.concurrency.zookeeper`.
"""

from __future__ import annotations

import json
import posixpath
import threading
import time
import uuid
from abc import ABC, abstractmethod
from typing import Any

from hudi_core.concurrency.storage_lock import holder_died, holder_record, remove_stale_lock
from hudi_core.config.concurrency import HudiLockConfig
from hudi_core.errors import HudiStorageError
from hudi_core.storage import Storage


class LockProvider(ABC):
    """An exclusive lock on one table."""

    @abstractmethod
    def try_lock(self, timeout_s: float) -> bool:
        """Takes the lock within `timeout_s`; False if another holder kept it."""

    @abstractmethod
    def unlock(self) -> None:
        """Releases the lock this provider holds."""

    @abstractmethod
    def describe(self) -> str:
        """Where the lock lives, for error messages."""

    def close(self) -> None:  # noqa: B027 - most providers hold no connection
        """Frees connections (the lock must not be held)."""


_IN_PROCESS_GUARD = threading.Lock()
_IN_PROCESS_LOCKS: dict[str, threading.Lock] = {}


class InProcessLockProvider(LockProvider):
    """Threads of one process writing the same table (Hudi's `InProcessLockProvider`)."""

    def __init__(self, table_uri: str) -> None:
        self._table_uri = table_uri
        with _IN_PROCESS_GUARD:
            self._lock = _IN_PROCESS_LOCKS.setdefault(table_uri, threading.Lock())

    def try_lock(self, timeout_s: float) -> bool:
        return self._lock.acquire(timeout=max(timeout_s, 0.0))

    def unlock(self) -> None:
        if self._lock.locked():
            self._lock.release()

    def describe(self) -> str:
        return f"in-process lock of {self._table_uri}"


LOCK_FILE_NAME = "lock"
_POLL_S = 0.05


class FileSystemLockProvider(LockProvider):
    """Hudi's `FileSystemBasedLockProvider`: an atomically created `lock` file.

    Args:
        lock_dir: the folder of the lock file.
        expire_minutes: age after which a lock file counts as abandoned (0: never).
    """

    def __init__(self, lock_dir: Storage, expire_minutes: int) -> None:
        if expire_minutes < 0:
            raise ValueError(f"{HudiLockConfig.FILESYSTEM_EXPIRE_MINUTES.key} must be >= 0")
        self._dir = lock_dir
        self._expire_ms = expire_minutes * 60_000
        self._owner = uuid.uuid4().hex
        self._held = False

    def _content(self) -> bytes:
        holder = {**holder_record(), "thread": threading.current_thread().name}
        record = {"owner": self._owner, "created": int(time.time() * 1000), "holder": holder}
        return json.dumps(record).encode("utf-8")

    def _current(self) -> dict[str, Any] | None:
        """The lock file's record, {} when it is not ours to parse (e.g. Java's lock info), None if absent."""
        try:
            data = self._dir.read_bytes(LOCK_FILE_NAME)
        except HudiStorageError:
            return None
        try:
            parsed = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return {}
        return parsed if isinstance(parsed, dict) else {}

    def _abandoned(self, record: dict[str, Any]) -> bool:
        if self._dir.is_local and record.get("holder") and holder_died(record):
            return True
        if self._expire_ms == 0:
            return False
        modified = self._dir.modified_ms(LOCK_FILE_NAME)
        return modified is not None and time.time() * 1000 - modified > self._expire_ms

    def try_lock(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + max(timeout_s, 0.0)
        while True:
            if self._dir.create_exclusive(LOCK_FILE_NAME, self._content()):
                self._held = True
                return True
            record = self._current()
            if record is not None and self._abandoned(record):
                remove_stale_lock(self._dir, LOCK_FILE_NAME, record.get("owner"))
                continue
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)

    def unlock(self) -> None:
        if not self._held:
            return
        self._held = False
        record = self._current()
        if record is not None and record.get("owner") == self._owner:
            self._dir.delete(LOCK_FILE_NAME)

    def describe(self) -> str:
        return posixpath.join(self._dir.base_uri, LOCK_FILE_NAME)
