"""The table lock a single writer holds for a whole write (or a service for plan and finalize).

The lock is the file `.hoodie/.locks/table_lock.json` (Hudi 1.0.2's storage-based lock layout)
created with create-if-absent and holding its owner and an expiration the holder keeps pushing
forward, and naming the process that holds it (:mod:`hudi_core.lifecycle.process_identity`). A lock
whose expiration passed belongs to a dead process, and so does one whose holder was a process of
this machine that no longer runs: the next writer takes it over by renaming it aside (only one
renamer can win) before creating its own. Object stores cannot rename atomically: there the
takeover, the refresh and the release are conditional on the ETag the lock had when it was read
(`If-Match`), so of two writers taking over one expired lock only one succeeds, and a holder whose
lock was taken over cannot refresh or delete the new holder's lock.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from typing import Any

from hudi_core.errors import ConcurrentWriteError, HudiStorageError
from hudi_core.lifecycle.heartbeat import Refresher
from hudi_core.lifecycle.process_identity import ProcessIdentity, has_exited, this_process
from hudi_core.storage import Storage

LOCK_FILE = ".hoodie/.locks/table_lock.json"


class TableLock:
    """An exclusive table lock (context manager).

    Args:
        storage: the table storage.
        validity_ms: how long the lock stays valid without a refresh; refreshed every third of it.
        purpose: recorded in the lock file, for operators.
    """

    def __init__(self, storage: Storage, validity_ms: int, purpose: str) -> None:
        self._storage = storage
        self._validity_ms = validity_ms
        self._owner = uuid.uuid4().hex
        self._purpose = purpose
        self._refresher = Refresher(self._refresh, validity_ms / 3000)

    def _content(self) -> bytes:
        record: dict[str, Any] = {
            "owner": self._owner,
            "expiration": int(time.time() * 1000) + self._validity_ms,
            "expired": False,
            "holder": {**holder_record(), "purpose": self._purpose},
        }
        return json.dumps(record).encode("utf-8")

    def _read(self) -> dict[str, Any] | None:
        holder, _ = self._read_tagged()
        return holder

    def _read_tagged(self) -> tuple[dict[str, Any] | None, str]:
        """The lock record and its version tag (the ETag on object stores)."""
        found = self._storage.read_tagged(LOCK_FILE)
        if found is None:
            return None, ""
        content, tag = found
        try:
            data: dict[str, Any] = json.loads(content)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return {"owner": None, "expiration": 0}, tag  # a torn lock file: its writer died mid-write
        return data, tag

    def acquire(self) -> None:
        for _ in range(3):
            if self._storage.create_exclusive(LOCK_FILE, self._content()):
                self._keep_fresh()
                return
            holder, tag = self._read_tagged()
            if holder is None:
                continue  # released between our attempts
            dead = self._storage.is_local and holder_died(holder)  # object stores: expiry alone
            if holder.get("expiration", 0) > time.time() * 1000 and not dead:
                raise ConcurrentWriteError(
                    f"table {self._storage.base_uri} is locked by a live writer "
                    f"({holder.get('holder', {})}); retry after it finishes"
                )
            if self._take_over(holder, tag):
                self._keep_fresh()
                return
        raise ConcurrentWriteError(f"could not acquire the lock of {self._storage.base_uri}")

    def _keep_fresh(self) -> None:
        """Starts refreshing the lock just taken; one that cannot be refreshed (a full disk) is given back."""
        try:
            self._refresher.start()
        except BaseException:
            self.release()
            raise

    def _take_over(self, expired: dict[str, Any], tag: str) -> bool:
        """Removes (locally) or replaces (object stores: True, the lock is ours) an expired lock."""
        if self._storage.is_s3:
            if self._storage.replace_if_unchanged(LOCK_FILE, self._content(), tag):
                return True
        elif remove_stale_lock(self._storage, LOCK_FILE, expired.get("owner")):
            return False
        raise ConcurrentWriteError(f"table {self._storage.base_uri} was locked by another writer meanwhile")

    def _refresh(self) -> None:
        holder, tag = self._read_tagged()
        if holder is None or holder.get("owner") != self._owner:
            return
        if self._storage.is_s3:
            self._storage.replace_if_unchanged(LOCK_FILE, self._content(), tag)
        else:
            self._storage.write_atomic(LOCK_FILE, self._content())

    def release(self) -> None:
        self._refresher.stop()
        holder, tag = self._read_tagged()
        if holder is None or holder.get("owner") != self._owner:
            return
        if self._storage.is_s3:
            self._storage.delete_if_unchanged(LOCK_FILE, tag)
        else:
            self._storage.delete(LOCK_FILE)

    def __enter__(self) -> TableLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_owner(content: bytes) -> str | None:
    """The owner recorded in a lock file (None for a torn file or one in another format)."""
    try:
        record = json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    owner = record.get("owner") if isinstance(record, dict) else None
    return owner if isinstance(owner, str) else None


def remove_stale_lock(storage: Storage, name: str, stale_owner: str | None) -> bool:
    """Removes the lock file `name` if it still belongs to `stale_owner`.

    The file is renamed aside first (only one process can win that race) and checked there; a lock
    taken meanwhile by someone else is given back. Returns False in that case. On object stores the
    delete is conditional on the ETag of the stale lock instead.
    """
    if storage.is_s3:
        found = storage.read_tagged(name)
        if found is None:
            return True
        content, tag = found
        return lock_owner(content) == stale_owner and storage.delete_if_unchanged(name, tag)
    aside = f"{name}.stale-{uuid.uuid4().hex}"
    try:
        storage.rename(name, aside)
    except HudiStorageError:
        return True  # another process removed it first
    moved = storage.read_bytes(aside)
    stale = lock_owner(moved) == stale_owner
    if not stale:
        storage.create_exclusive(name, moved)
    storage.delete(aside)
    return stale


def holder_record() -> dict[str, Any]:
    """Who holds a lock: this process's identity (host and pid alone where it has none)."""
    identity = this_process()
    return identity.to_record() if identity is not None else {"host": socket.gethostname(), "pid": os.getpid()}


def holder_died(lock: dict[str, Any]) -> bool:
    """Whether the lock's holder was a process of this machine that no longer runs (a crashed writer
    need not be waited out until its lock expires)."""
    holder = ProcessIdentity.from_record(lock.get("holder"))
    return holder is not None and has_exited(holder)
