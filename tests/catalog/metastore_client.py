"""What the tests read back from a Hive metastore: raw Thrift objects, independent of the sync's own
catalog code."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from pymetastore.hive_metastore import ThriftHiveMetastore, ttypes
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport


class MetastoreClient:
    """A Thrift connection to the metastore at `uri` (thrift://host:port)."""

    def __init__(self, uri: str) -> None:
        host, _, port = uri.removeprefix("thrift://").rpartition(":")
        sock = TSocket.TSocket(host, int(port))
        sock.setTimeout(30_000)
        self._transport = TTransport.TBufferedTransport(sock)
        self.client = ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(self._transport))

    def __enter__(self) -> MetastoreClient:
        self._transport.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._transport.close()

    def table(self, database: str, name: str) -> Any:
        return self.client.get_table_req(ttypes.GetTableRequest(dbName=database, tblName=name)).table

    def tables(self, database: str) -> list[str]:
        return sorted(self.client.get_all_tables(database))

    def partitions(self, database: str, name: str) -> dict[tuple[str, ...], str]:
        return {tuple(p.values): p.sd.location for p in self.client.get_partitions(database, name, -1)}

    def partition(self, database: str, name: str, values: tuple[str, ...]) -> Any:
        return self.client.get_partition(database, name, list(values))
