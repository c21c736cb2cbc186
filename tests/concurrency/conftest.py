"""Fixtures for concurrency tests: a real ZooKeeper server on loopback (see ``zookeeper_server.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.concurrency.zookeeper_server import zookeeper_server, zookeeper_unavailable_reason


@pytest.fixture(scope="session")
def zookeeper_url() -> Iterator[str]:
    """``"127.0.0.1:<port>"`` of a standalone ZooKeeper server shared by the test session.

    Fails (never skips: CI must run these tests) when the server cannot be provided (no ``apt-get``,
    Java 17+ or ``kazoo``, or the Debian mirror is unreachable on first use).
    """
    reason = zookeeper_unavailable_reason()
    if reason is not None:
        pytest.fail(f"cannot start a ZooKeeper server for the tests: {reason}")
    with zookeeper_server() as hosts:
        yield hosts
