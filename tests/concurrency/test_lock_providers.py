"""Lock providers of optimistic concurrency: exclusion, waiting and retrying, abandoned locks."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from hudi_core.concurrency.lock_manager import lock_provider, provider_lock
from hudi_core.concurrency.providers import FileSystemLockProvider, InProcessLockProvider
from hudi_core.config import HudiConfigs
from hudi_core.errors import ConcurrentWriteError
from hudi_core.storage import Storage
from tests.concurrency.options import LOCK_PACKAGE
from tests.processes import identity_of_a_finished_process

QUICK = {
    "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
    "hoodie.write.lock.wait_time_ms": "100",
    "hoodie.write.lock.num_retries": "2",
    "hoodie.write.lock.wait_time_ms_between_retry": "50",
}


def exclusive_sections(make_lock: object, threads: int = 4, rounds: int = 5) -> int:
    """Runs critical sections on threads; returns the most holders seen at once."""
    holders = 0
    most = 0
    guard = threading.Lock()

    def work() -> None:
        nonlocal holders, most
        for _ in range(rounds):
            with make_lock():  # type: ignore[operator]
                with guard:
                    holders += 1
                    most = max(most, holders)
                time.sleep(0.005)
                with guard:
                    holders -= 1

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return most


def test_in_process_provider_is_shared_per_table(tmp_path: Path) -> None:
    configs = HudiConfigs({**QUICK, "hoodie.write.lock.wait_time_ms": "10000"})
    storage = Storage(str(tmp_path / "t"))
    assert exclusive_sections(lambda: provider_lock(InProcessLockProvider(storage.base_uri), configs, "test")) == 1
    other = InProcessLockProvider(str(tmp_path / "other"))
    held = InProcessLockProvider(storage.base_uri)
    assert held.try_lock(1)
    assert other.try_lock(0), "another table's lock is independent"
    assert not InProcessLockProvider(storage.base_uri).try_lock(0.05)
    held.unlock()
    other.unlock()


def test_file_system_provider_excludes_threads_and_gives_up_after_its_retries(tmp_path: Path) -> None:
    configs = HudiConfigs({**QUICK, "hoodie.write.lock.wait_time_ms": "10000"})
    lock_dir = Storage(str(tmp_path / ".hoodie"))
    assert exclusive_sections(lambda: provider_lock(FileSystemLockProvider(lock_dir, 0), configs, "test")) == 1
    holder = FileSystemLockProvider(lock_dir, 0)
    assert holder.try_lock(0)
    record = json.loads((tmp_path / ".hoodie" / "lock").read_text())
    assert record["holder"]["pid"] == os.getpid()
    start = time.monotonic()
    with (
        pytest.raises(ConcurrentWriteError, match=r"3 attempt\(s\)"),
        provider_lock(FileSystemLockProvider(lock_dir, 0), HudiConfigs(QUICK), "commit"),
    ):
        pass
    assert time.monotonic() - start >= 0.3  # 3 attempts of 100 ms, 2 pauses of 50 ms
    holder.unlock()
    assert not (tmp_path / ".hoodie" / "lock").exists()


def test_file_system_provider_path_and_option_mapping(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "t"))
    default = lock_provider(
        storage, HudiConfigs({**QUICK, "hoodie.write.lock.provider": LOCK_PACKAGE + "FileSystemBasedLockProvider"}), "t"
    )
    assert default.describe().endswith("/t/.hoodie/lock")
    elsewhere = lock_provider(
        storage,
        HudiConfigs(
            {
                **QUICK,
                "hoodie.write.lock.provider": LOCK_PACKAGE + "FileSystemBasedLockProvider",
                "hoodie.write.lock.filesystem.path": str(tmp_path / "locks"),
            }
        ),
        "t",
    )
    assert elsewhere.try_lock(0)
    assert (tmp_path / "locks" / "lock").exists()
    elsewhere.unlock()


def test_a_lock_file_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    lock_dir = Storage(str(tmp_path))
    dead = identity_of_a_finished_process().to_record()
    foreign = {**dead, "boot_id": "00000000-0000-0000-0000-000000000000"}  # a machine (or boot) of its own
    for holder in (foreign, {"host": dead["host"], "pid": dead["pid"]}):
        (tmp_path / "lock").write_text(json.dumps({"owner": "x", "created": 0, "holder": holder}))
        assert not FileSystemLockProvider(lock_dir, 0).try_lock(0), f"{holder} may be alive: never abandoned"
    (tmp_path / "lock").write_text(json.dumps({"owner": "x", "created": 0, "holder": dead}))
    provider = FileSystemLockProvider(lock_dir, 0)
    assert provider.try_lock(0)
    provider.unlock()


def test_a_foreign_lock_file_is_respected_until_it_expires(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock"
    lock_file.write_text("LockInfo{lockCreateTime=2026-11-22 00:00:00.000, lockThreadName=main}")  # Java's format
    assert not FileSystemLockProvider(Storage(str(tmp_path)), 0).try_lock(0.1), "expire=0: never abandoned"
    assert not FileSystemLockProvider(Storage(str(tmp_path)), 1).try_lock(0.1), "younger than a minute"
    old = time.time() - 120
    os.utime(lock_file, (old, old))
    provider = FileSystemLockProvider(Storage(str(tmp_path)), 1)
    assert provider.try_lock(0), "older than hoodie.write.lock.filesystem.expire minutes"
    assert json.loads(lock_file.read_text())["owner"]
    provider.unlock()
