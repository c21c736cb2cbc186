"""The ZooKeeper test server accepts kazoo clients: nodes, ephemeral nodes and the lock recipe work."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.slow


def test_kazoo_round_trip_and_lock(zookeeper_url: str) -> None:
    from kazoo.client import KazooClient  # noqa: PLC0415 - optional dependency, checked by the fixture
    from kazoo.recipe.lock import Lock  # noqa: PLC0415

    root = f"/hudi-test-{uuid.uuid4().hex}"
    client = KazooClient(hosts=zookeeper_url, timeout=10)
    client.start(timeout=30)
    try:
        path = client.create(f"{root}/ephemeral", b"hello", ephemeral=True, makepath=True)
        data, stat = client.get(path)
        assert data == b"hello"
        assert stat.ephemeralOwner == client.client_id[0]

        lock = Lock(client, f"{root}/lock", identifier="test")
        assert lock.acquire(timeout=10)
        assert lock.is_acquired
        assert client.get_children(f"{root}/lock")  # the lock's sequential node exists
        lock.release()
        assert not lock.is_acquired
        assert client.get_children(f"{root}/lock") == []
    finally:
        client.stop()
        client.close()
