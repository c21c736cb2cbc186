"""The tests' Hive metastore itself (``hive_metastore.py``): a Thrift client's round trip, and a
restart that keeps the database."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from pymetastore.hive_metastore import ThriftHiveMetastore, ttypes
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from tests.catalog.hive_metastore import HiveMetastoreServer

_CLIENT_TIMEOUT_MS = 30_000


@contextlib.contextmanager
def connect(server: HiveMetastoreServer) -> Iterator[Any]:
    """A plain Thrift client (binary protocol, no SASL), as Hive's own client talks to it."""
    socket = TSocket.TSocket("127.0.0.1", server.port)
    socket.setTimeout(_CLIENT_TIMEOUT_MS)
    transport = TTransport.TBufferedTransport(socket)
    transport.open()
    try:
        yield ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
    finally:
        transport.close()


def create_database(server: HiveMetastoreServer, name: str) -> None:
    location = (server.warehouse / f"{name}.db").as_uri()
    with connect(server) as client:
        client.create_database(ttypes.Database(name=name, description="made by a test", locationUri=location))


def test_database_round_trip(hive_metastore: HiveMetastoreServer) -> None:
    assert hive_metastore.uri == f"thrift://127.0.0.1:{hive_metastore.port}"
    create_database(hive_metastore, "round_trip")

    with connect(hive_metastore) as client:
        database = client.get_database("round_trip")
        names = client.get_all_databases()

    assert database.name == "round_trip"
    assert database.description == "made by a test"
    # The metastore stores `file:///x` as `file:/x`.
    assert database.locationUri == f"file:{hive_metastore.warehouse / 'round_trip.db'}"
    assert {"default", "round_trip"} <= set(names)


def test_restart_keeps_the_database(restartable_hive_metastore: HiveMetastoreServer) -> None:
    server = restartable_hive_metastore
    create_database(server, "survives_restart")
    port = server.port

    server.stop()
    with pytest.raises(TTransport.TTransportException), connect(server):
        pass
    server.start()

    assert server.port == port
    with connect(server) as client:
        assert client.get_database("survives_restart").name == "survives_restart"
