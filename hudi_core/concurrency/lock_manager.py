"""The table lock of a write or service, by `hoodie.write.concurrency.mode`.

* SINGLE_WRITER: the storage lock (:mod:`hudi_core.concurrency.storage_lock`), held for a whole
  write; a second writer fails at once with ConcurrentWriteError.
* OPTIMISTIC_CONCURRENCY_CONTROL: the configured provider's lock, held only for short critical
  sections (start, conflict check + commit, service planning and finalizing); contenders wait and
  retry as Hudi's `LockManager` does (`hoodie.write.lock.wait_time_ms` per attempt,
  `hoodie.write.lock.num_retries`, `hoodie.write.lock.wait_time_ms_between_retry`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from hudi_core.concurrency.providers import FileSystemLockProvider, InProcessLockProvider, LockProvider
from hudi_core.concurrency.storage_lock import TableLock
from hudi_core.concurrency.zookeeper import ZookeeperLockProvider, connect_string
from hudi_core.config import HudiConfigs
from hudi_core.config.concurrency import ConcurrencyMode, HudiLockConfig, LockProviderKind
from hudi_core.config.write import FailedWritesCleanPolicy, HudiWriteConfig
from hudi_core.errors import ConcurrentWriteError, HudiConfigError
from hudi_core.storage import Storage
from hudi_core.table.state import load_table_config


def is_optimistic(configs: HudiConfigs) -> bool:
    """Whether writes run under optimistic concurrency control."""
    return configs.value(HudiLockConfig.CONCURRENCY_MODE) is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL


def failed_writes_policy(configs: HudiConfigs) -> FailedWritesCleanPolicy:
    """The failed-writes policy; optimistic concurrency needs LAZY (Hudi sets it when unset)."""
    policy = configs.value(HudiWriteConfig.FAILED_WRITES_CLEAN_POLICY)
    if not is_optimistic(configs):
        return policy
    explicit = configs.contains(HudiWriteConfig.FAILED_WRITES_CLEAN_POLICY)
    if explicit and policy is not FailedWritesCleanPolicy.LAZY:
        raise HudiConfigError(
            f"{HudiLockConfig.CONCURRENCY_MODE.key}=optimistic_concurrency_control needs "
            f"{HudiWriteConfig.FAILED_WRITES_CLEAN_POLICY.key}=LAZY, got {policy.value}"
        )
    return FailedWritesCleanPolicy.LAZY


def lock_provider(storage: Storage, configs: HudiConfigs, table_name: str | None = None) -> LockProvider:
    """The provider `hoodie.write.lock.provider` names, for this table (`table_name`: the default
    ZooKeeper lock key; read from hoodie.properties when not given)."""
    kind = configs.value(HudiLockConfig.PROVIDER)
    if kind is LockProviderKind.IN_PROCESS:
        return InProcessLockProvider(storage.base_uri)
    if kind is LockProviderKind.FILE_SYSTEM:
        folder = configs.get(HudiLockConfig.FILESYSTEM_PATH)
        lock_dir = Storage(folder) if folder else storage.sub(".hoodie")
        return FileSystemLockProvider(lock_dir, configs.value(HudiLockConfig.FILESYSTEM_EXPIRE_MINUTES))
    url, base_path = configs.get(HudiLockConfig.ZK_URL), configs.get(HudiLockConfig.ZK_BASE_PATH)
    if not url or not base_path:
        raise HudiConfigError(
            f"ZookeeperBasedLockProvider needs {HudiLockConfig.ZK_URL.key} and "
            f"{HudiLockConfig.ZK_BASE_PATH.key} (and usually {HudiLockConfig.ZK_PORT.key})"
        )
    key = configs.get(HudiLockConfig.ZK_LOCK_KEY) or table_name or load_table_config(storage).name
    return ZookeeperLockProvider(
        connect_string(url, configs.get(HudiLockConfig.ZK_PORT)),
        f"{base_path.rstrip('/')}/{key}",
        configs.value(HudiLockConfig.ZK_SESSION_TIMEOUT_MS),
        configs.value(HudiLockConfig.ZK_CONNECTION_TIMEOUT_MS),
        f"{os.getpid()}:{threading.current_thread().name}",
    )


@contextmanager
def provider_lock(provider: LockProvider, configs: HudiConfigs, purpose: str) -> Iterator[None]:
    """Holds `provider`'s lock, waiting and retrying per Hudi's options; closes the provider after."""
    wait_s = configs.value(HudiLockConfig.WAIT_TIME_MS) / 1000
    pause_s = configs.value(HudiLockConfig.RETRY_WAIT_MS) / 1000
    attempts = max(configs.value(HudiLockConfig.NUM_RETRIES), 0) + 1
    try:
        for attempt in range(attempts):
            if provider.try_lock(wait_s):
                break
            if attempt + 1 < attempts:
                time.sleep(pause_s)
        else:
            raise ConcurrentWriteError(
                f"could not take {provider.describe()} for {purpose} in {attempts} attempt(s) of {wait_s:g} s"
            )
        try:
            yield
        finally:
            provider.unlock()
    finally:
        provider.close()


def table_lock(storage: Storage, configs: HudiConfigs, purpose: str) -> AbstractContextManager[object]:
    """The lock a write or service holds for `purpose` under the configured concurrency mode."""
    if is_optimistic(configs):
        return provider_lock(lock_provider(storage, configs), configs, purpose)
    heartbeat_ms = configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
    misses = configs.value(HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES)
    return TableLock(storage, validity_ms=heartbeat_ms * max(misses, 1), purpose=purpose)
