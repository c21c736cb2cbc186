"""The Hive metastore over its Thrift API (Hudi's `hoodie.datasource.hive_sync.mode=hms`).

Bindings come from `pymetastore` (the `hive` extra), generated from the metastore's Thrift IDL.
Calls are the ones both Hive 3.1 and Hive 4 serve: `get_table_req`, not `get_table`, which Hive 4
removed. Partition names are built as Hive builds them (`FileUtils.makePartName`), with its escaping.
"""

from __future__ import annotations

import getpass
import logging
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

from hudi_core.errors import HudiNotInstalledError, MetaSyncError
from hudi_core.sync.catalog import CatalogPartition, PartitionValues, RegisteredTable, counted_call
from hudi_core.sync.registration import CatalogTable

_SOCKET_TIMEOUT_MS = 60_000
_DATABASE_DESCRIPTION = "automatically created by hoodie"

# Characters Hive escapes in partition names (`FileUtils.charToEscape`).
_ESCAPED = {chr(c) for c in range(0x01, 0x20)} | set("\"#%'*/:=?\\\x7f{[]^")


def escape_path_name(value: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


def partition_name(keys: Sequence[str], values: PartitionValues) -> str:
    """Hive's name of a partition: `k1=v1/k2=v2`, keys and values escaped."""
    return "/".join(f"{escape_path_name(k)}={escape_path_name(v)}" for k, v in zip(keys, values, strict=True))


@contextmanager
def _quiet_thrift_logs() -> Iterator[None]:
    # Thrift logs every refused connection at ERROR; the sync reports it once, in its own error.
    thrift_logger = logging.getLogger("thrift.transport.TSocket")
    level = thrift_logger.level
    thrift_logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        thrift_logger.setLevel(level)


def _bindings() -> tuple[Any, Any, Any, Any, Any]:
    try:
        from pymetastore.hive_metastore import ThriftHiveMetastore, ttypes  # noqa: PLC0415
        from thrift.protocol import TBinaryProtocol  # noqa: PLC0415
        from thrift.transport import TSocket, TTransport  # noqa: PLC0415
    except ImportError as e:
        raise HudiNotInstalledError(
            "syncing to a Hive metastore needs the hive extra: pip install 'hudi-dagster[hive]'"
        ) from e
    return ThriftHiveMetastore, ttypes, TBinaryProtocol, TSocket, TTransport


class HiveMetastoreCatalog:
    """A Hive metastore reached at the first of `uris` that answers (`thrift://host:port`)."""

    def __init__(self, uris: Sequence[str]) -> None:
        service, self._types, protocol, socket_module, transport_module = _bindings()
        self._calls: Counter[str] = Counter()
        errors = []
        for uri in uris:
            host, _, port = uri.removeprefix("thrift://").rpartition(":")
            sock = socket_module.TSocket(host, int(port))
            sock.setTimeout(_SOCKET_TIMEOUT_MS)
            transport = transport_module.TBufferedTransport(sock)
            try:
                with _quiet_thrift_logs():
                    transport.open()
            except Exception as e:  # the next address, if any
                errors.append(f"{uri}: {e}")
                continue
            self._transport = transport
            self._client = service.Client(protocol.TBinaryProtocol(transport))
            self._uri = uri
            return
        raise MetaSyncError(f"no Hive metastore answered at {', '.join(uris)} ({'; '.join(errors)})")

    @property
    def name(self) -> str:
        return f"the Hive metastore at {self._uri}"

    @property
    def calls(self) -> Counter[str]:
        return self._calls

    def _call(self, name: str, what: str) -> AbstractContextManager[Any]:
        return counted_call(self._client, self._calls, self.name, name, what)

    def close(self) -> None:
        self._transport.close()

    # ---- databases and tables -----------------------------------------------------------------

    def database_exists(self, database: str) -> bool:
        with self._call("get_database", f"looking up database {database}") as client:
            try:
                client.get_database(database)
            except self._types.NoSuchObjectException:
                return False
        return True

    def create_database(self, database: str) -> None:
        with (
            self._call("create_database", f"creating database {database}") as client,
            suppress(self._types.AlreadyExistsException),  # created meanwhile by another sync
        ):
            client.create_database(self._types.Database(name=database, description=_DATABASE_DESCRIPTION))

    def get_table(self, database: str, table: str) -> RegisteredTable | None:
        t = self._types
        with self._call("get_table_req", f"looking up table {database}.{table}") as client:
            try:
                found = client.get_table_req(t.GetTableRequest(dbName=database, tblName=table)).table
            except t.NoSuchObjectException:
                return None
        sd = found.sd
        return RegisteredTable(
            columns=tuple((c.name, c.type) for c in sd.cols or ()),
            table_properties=dict(found.parameters or {}),
            serde_properties=dict(sd.serdeInfo.parameters or {}) if sd.serdeInfo else {},
            location=sd.location or "",
            input_format=sd.inputFormat or "",
        )

    def _storage_descriptor(self, table: CatalogTable, location: str) -> Any:
        t = self._types
        return t.StorageDescriptor(
            cols=[t.FieldSchema(c.name, c.type, c.comment) for c in table.columns],
            location=location,
            inputFormat=table.input_format,
            outputFormat=table.output_format,
            compressed=False,
            numBuckets=0,
            serdeInfo=t.SerDeInfo(
                name=None, serializationLib=table.serde_library, parameters=dict(table.serde_properties)
            ),
            bucketCols=[],
            sortCols=[],
            parameters={},
        )

    def _table(self, table: CatalogTable, extra_properties: Mapping[str, str]) -> Any:
        t = self._types
        return t.Table(
            tableName=table.name,
            dbName=table.database,
            owner=getpass.getuser(),  # as Hudi's sync registers it: the user running it
            createTime=int(time.time()),
            lastAccessTime=0,
            retention=0,
            sd=self._storage_descriptor(table, table.location),
            partitionKeys=[t.FieldSchema(c.name, c.type, c.comment) for c in table.partition_keys],
            parameters={**table.table_properties, **extra_properties},
            tableType="EXTERNAL_TABLE",
        )

    def create_table(self, table: CatalogTable, extra_properties: Mapping[str, str]) -> None:
        with self._call("create_table", f"creating table {table.qualified_name}") as client:
            client.create_table(self._table(table, extra_properties))

    def update_table(self, table: CatalogTable, extra_properties: Mapping[str, str], cascade: bool) -> None:
        t = self._types
        # Properties other syncs or users set on the table (e.g. comments, statistics) are kept;
        # the sync owns its own keys only.
        current = self._raw_table(table)
        updated = self._table(table, extra_properties)
        updated.parameters = {**(current.parameters or {}), **updated.parameters}
        updated.createTime = current.createTime
        updated.owner = current.owner
        context = t.EnvironmentContext(properties={"CASCADE": "true"}) if cascade else None
        with self._call("alter_table_with_environment_context", f"altering table {table.qualified_name}") as client:
            client.alter_table_with_environment_context(table.database, table.name, updated, context)

    def _raw_table(self, table: CatalogTable) -> Any:
        t = self._types
        with self._call("get_table_req", f"looking up table {table.qualified_name}") as client:
            return client.get_table_req(t.GetTableRequest(dbName=table.database, tblName=table.name)).table

    # ---- partitions ---------------------------------------------------------------------------

    def _keys(self, table: CatalogTable) -> list[str]:
        return [c.name for c in table.partition_keys]

    def all_partitions(self, table: CatalogTable) -> dict[PartitionValues, str]:
        with self._call("get_partitions", f"listing the partitions of {table.qualified_name}") as client:
            found = client.get_partitions(table.database, table.name, -1)
        return {tuple(p.values): p.sd.location for p in found}

    def get_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> dict[PartitionValues, str]:
        names = [partition_name(self._keys(table), v) for v in values]
        with self._call("get_partitions_by_names", f"looking up partitions of {table.qualified_name}") as client:
            found = client.get_partitions_by_names(table.database, table.name, names)
        return {tuple(p.values): p.sd.location for p in found}

    def _partition(self, table: CatalogTable, partition: CatalogPartition) -> Any:
        now = int(time.time())
        return self._types.Partition(
            values=list(partition.values),
            dbName=table.database,
            tableName=table.name,
            createTime=now,
            lastAccessTime=now,
            sd=self._storage_descriptor(table, partition.location),
            parameters={},
        )

    def add_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None:
        t = self._types
        request = t.AddPartitionsRequest(
            dbName=table.database,
            tblName=table.name,
            parts=[self._partition(table, p) for p in partitions],
            ifNotExists=True,
            needResult=False,
        )
        with self._call("add_partitions_req", f"adding partitions to {table.qualified_name}") as client:
            client.add_partitions_req(request)

    def update_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None:
        with self._call("alter_partitions", f"moving partitions of {table.qualified_name}") as client:
            client.alter_partitions(table.database, table.name, [self._partition(table, p) for p in partitions])

    def drop_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> None:
        t = self._types
        names = [partition_name(self._keys(table), v) for v in values]
        request = t.DropPartitionsRequest(
            dbName=table.database,
            tblName=table.name,
            parts=t.RequestPartsSpec(names=names),
            deleteData=False,  # the files are the Hudi table's: never the catalog's to delete
            ifExists=True,
            needResult=False,
        )
        with self._call("drop_partitions_req", f"dropping partitions of {table.qualified_name}") as client:
            client.drop_partitions_req(request)
