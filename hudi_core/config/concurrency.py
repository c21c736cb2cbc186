"""Concurrency-control and lock options (`HoodieWriteConfig`, `HoodieLockConfig`, `LockConfiguration`).

Keys and defaults are Hudi 1.0.2's. Lock providers are named by their Java class names, which map
to the providers in :mod:`hudi_core.concurrency.providers`.
"""

from __future__ import annotations

import enum

from hudi_core.config import int_at_least, int_in_range, java_class_parser, option, parse_bool, parse_str


class ConcurrencyMode(enum.Enum):
    SINGLE_WRITER = "SINGLE_WRITER"
    OPTIMISTIC_CONCURRENCY_CONTROL = "OPTIMISTIC_CONCURRENCY_CONTROL"


def _parse_mode(raw: str) -> ConcurrencyMode:
    value = raw.strip().upper()
    if value == "NON_BLOCKING_CONCURRENCY_CONTROL":
        raise ValueError("non-blocking concurrency control is not supported; use optimistic_concurrency_control")
    try:
        return ConcurrencyMode(value)
    except ValueError:
        raise ValueError(f"expected one of {[m.value.lower() for m in ConcurrencyMode]}") from None


LOCK_PACKAGE = "org.apache.hudi.client.transaction.lock."


class LockProviderKind(enum.Enum):
    """Lock providers this build runs, by the simple name of Hudi's class."""

    IN_PROCESS = "InProcessLockProvider"
    FILE_SYSTEM = "FileSystemBasedLockProvider"
    ZOOKEEPER = "ZookeeperBasedLockProvider"


_DEFAULT_STRATEGY = "SimpleConcurrentFileWritesConflictResolutionStrategy"


def _parse_strategy(raw: str) -> str:
    if raw.strip().rsplit(".", 1)[-1] != _DEFAULT_STRATEGY:
        raise ValueError(f"only org.apache.hudi.client.transaction.{_DEFAULT_STRATEGY} is supported")
    return raw.strip()


class HudiLockConfig:
    """Multi-writer options."""

    CONCURRENCY_MODE = option(
        "hoodie.write.concurrency.mode",
        _parse_mode,
        ConcurrencyMode.SINGLE_WRITER,
        "SINGLE_WRITER (a write holds the table lock throughout) or OPTIMISTIC_CONCURRENCY_CONTROL (the lock "
        "is held only to start and to check conflicts and commit).",
    )
    PROVIDER = option(
        "hoodie.write.lock.provider",
        java_class_parser(LockProviderKind, LOCK_PACKAGE, "lock provider"),
        LockProviderKind.ZOOKEEPER,
        "Lock provider class for optimistic concurrency: InProcessLockProvider, FileSystemBasedLockProvider or "
        "ZookeeperBasedLockProvider (Hudi's default).",
    )
    WAIT_TIME_MS = option(
        "hoodie.write.lock.wait_time_ms", int_at_least(0), 60000, "How long to wait for the lock in all (ms)."
    )
    RETRY_WAIT_MS = option(
        "hoodie.write.lock.wait_time_ms_between_retry", int_at_least(0), 1000, "Pause between lock attempts (ms)."
    )
    NUM_RETRIES = option("hoodie.write.lock.num_retries", int_at_least(0), 15, "Lock attempts before giving up.")
    FILESYSTEM_PATH = option(
        "hoodie.write.lock.filesystem.path",
        parse_str,
        None,
        "Folder of FileSystemBasedLockProvider's `lock` file (default: the table's .hoodie folder).",
    )
    FILESYSTEM_EXPIRE_MINUTES = option(
        "hoodie.write.lock.filesystem.expire",
        int_at_least(0),
        0,
        "Minutes after which a FileSystemBasedLockProvider lock file counts as abandoned (0: never).",
    )
    ZK_URL = option("hoodie.write.lock.zookeeper.url", parse_str, None, "ZooKeeper host (or host:port list).")
    ZK_PORT = option("hoodie.write.lock.zookeeper.port", int_in_range(1, 65535), None, "ZooKeeper port.")
    ZK_BASE_PATH = option(
        "hoodie.write.lock.zookeeper.base_path", parse_str, None, "ZooKeeper folder of the table locks."
    )
    ZK_LOCK_KEY = option(
        "hoodie.write.lock.zookeeper.lock_key", parse_str, None, "Lock node name (default: the table name)."
    )
    ZK_SESSION_TIMEOUT_MS = option(
        "hoodie.write.lock.zookeeper.session_timeout_ms", int_at_least(1), 60000, "ZooKeeper session timeout (ms)."
    )
    ZK_CONNECTION_TIMEOUT_MS = option(
        "hoodie.write.lock.zookeeper.connection_timeout_ms", int_at_least(1), 15000, "ZooKeeper connect timeout (ms)."
    )
    CONFLICT_STRATEGY = option(
        "hoodie.write.lock.conflict.resolution.strategy",
        _parse_strategy,
        f"org.apache.hudi.client.transaction.{_DEFAULT_STRATEGY}",
        "Only the default, SimpleConcurrentFileWritesConflictResolutionStrategy (file-group overlap), is supported.",
    )
    CHECK_KEY_OVERLAP = option(
        "hoodie.write.concurrency.check.key.overlap",
        parse_bool,
        False,
        "hudi-dagster option: under optimistic concurrency, also abort a write when a concurrent commit wrote one "
        "of its record keys (seed 001's optional check; stops concurrent inserts of one new key from duplicating it).",
    )
    RETRIES_ON_CONFLICT = option(
        "hoodie.write.num.retries.on.conflict.failures",
        int_at_least(0),
        0,
        "write_hudi retries a write that lost a conflict this many times (re-planning it each time).",
    )


__all__ = ["ConcurrencyMode", "HudiLockConfig", "LockProviderKind"]
