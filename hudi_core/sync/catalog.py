"""What the sync needs of a catalog: the operations the Hive metastore and AWS Glue both offer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from hudi_core.errors import MetaSyncError
from hudi_core.sync.registration import CatalogTable

Client = TypeVar("Client")

PartitionValues = tuple[str, ...]


@dataclass(frozen=True)
class CatalogPartition:
    values: PartitionValues
    location: str


@dataclass(frozen=True)
class RegisteredTable:
    """A table as the catalog has it: its columns and properties, to compare with the registration."""

    columns: tuple[tuple[str, str], ...]
    table_properties: Mapping[str, str]
    serde_properties: Mapping[str, str]
    location: str
    input_format: str


class MetaCatalog(Protocol):
    """A catalog's API, as the sync uses it. `calls` counts the remote calls made, by name."""

    @property
    def name(self) -> str: ...

    @property
    def calls(self) -> Counter[str]: ...

    def database_exists(self, database: str) -> bool: ...

    def create_database(self, database: str) -> None: ...

    def get_table(self, database: str, table: str) -> RegisteredTable | None: ...

    def create_table(self, table: CatalogTable, extra_properties: Mapping[str, str]) -> None: ...

    def update_table(self, table: CatalogTable, extra_properties: Mapping[str, str], cascade: bool) -> None:
        """Replaces the table's definition: columns, formats, serde and table properties."""
        ...

    def all_partitions(self, table: CatalogTable) -> dict[PartitionValues, str]:
        """Every partition of the table: its values and location."""
        ...

    def get_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> dict[PartitionValues, str]:
        """The partitions among `values` that exist, with their locations."""
        ...

    def add_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None: ...

    def update_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None: ...

    def drop_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> None: ...

    def close(self) -> None: ...


@contextmanager
def counted_call(client: Client, calls: Counter[str], catalog: str, name: str, what: str) -> Iterator[Client]:
    """Counts a remote call `name` of `catalog` and yields its `client`; what the call raises
    becomes a MetaSyncError saying what failed (`what`) and why."""
    calls[name] += 1
    try:
        yield client
    except MetaSyncError:
        raise
    except Exception as e:
        detail = getattr(e, "message", None) or str(e) or type(e).__name__  # Thrift errors keep it in .message
        raise MetaSyncError(f"{catalog}: {what} failed: {type(e).__name__}: {detail}") from e
