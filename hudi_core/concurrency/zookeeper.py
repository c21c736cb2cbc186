"""Hudi's `ZookeeperBasedLockProvider`, over kazoo (the `zookeeper` extra).

Hudi takes a Curator `InterProcessMutex` at `<hoodie.write.lock.zookeeper.base_path>/<lock_key>`:
contenders create ephemeral sequential children whose names end in `lock-<10 digits>` and the
lowest sequence holds the lock. kazoo's lock recipe works the same way; naming our nodes
`<uuid>-lock-<sequence>` (instead of kazoo's `__lock__`) puts them in one queue with Java writers'
Curator nodes, in both recipes' ordering.
"""

from __future__ import annotations

from typing import Any

from hudi_core.concurrency.providers import LockProvider
from hudi_core.config.concurrency import HudiLockConfig
from hudi_core.errors import HudiConfigError, HudiError


def _curator_compatible_lock(client: Any, path: str, identifier: str) -> Any:
    from kazoo.recipe.lock import Lock  # noqa: PLC0415 - optional dependency (the `zookeeper` extra)

    class CuratorCompatibleLock(Lock):  # type: ignore[misc]
        _NODE_NAME = "-lock-"
        _EXCLUDE_NAMES = ["-lock-", "__lock__"]

    return CuratorCompatibleLock(client, path, identifier)


def connect_string(url: str, port: int | None) -> str:
    """`host:port[,host:port...]` from Hudi's url and port options."""
    hosts = [h.strip() for h in url.split(",") if h.strip()]
    if not hosts:
        raise HudiConfigError(f"{HudiLockConfig.ZK_URL.key} is empty")
    return ",".join(h if ":" in h or port is None else f"{h}:{port}" for h in hosts)


class ZookeeperLockProvider(LockProvider):
    """An exclusive lock node queue in ZooKeeper.

    Args:
        hosts: the connect string (`host:port,...`).
        lock_path: `<base_path>/<lock_key>`.
        session_timeout_ms / connection_timeout_ms: Hudi's ZooKeeper timeouts.
        identifier: stored in our lock node, for operators.
    """

    def __init__(
        self, hosts: str, lock_path: str, session_timeout_ms: int, connection_timeout_ms: int, identifier: str
    ) -> None:
        try:
            from kazoo.client import KazooClient  # noqa: PLC0415 - optional dependency (the `zookeeper` extra)
            from kazoo.handlers.threading import KazooTimeoutError  # noqa: PLC0415
        except ImportError as e:
            raise HudiConfigError(
                "ZookeeperBasedLockProvider needs kazoo: pip install 'hudi-dagster[zookeeper]'"
            ) from e
        if not lock_path.startswith("/"):
            raise HudiConfigError(f"{HudiLockConfig.ZK_BASE_PATH.key} must be absolute, got {lock_path!r}")
        self._hosts = hosts
        self._path = lock_path
        self._client = KazooClient(hosts=hosts, timeout=session_timeout_ms / 1000)
        try:
            self._client.start(timeout=connection_timeout_ms / 1000)
        except KazooTimeoutError as e:
            self._client.close()
            raise HudiError(f"cannot reach ZooKeeper at {hosts} for lock {lock_path}: {e}") from e
        self._lock = _curator_compatible_lock(self._client, lock_path, identifier)

    def try_lock(self, timeout_s: float) -> bool:
        from kazoo.exceptions import LockTimeout  # noqa: PLC0415 - optional dependency

        try:
            return bool(self._lock.acquire(blocking=True, timeout=max(timeout_s, 0.001)))
        except LockTimeout:
            return False  # kazoo removed our queued node

    def unlock(self) -> None:
        self._lock.release()

    def describe(self) -> str:
        return f"zookeeper://{self._hosts}{self._path}"

    def close(self) -> None:
        self._client.stop()
        self._client.close()
