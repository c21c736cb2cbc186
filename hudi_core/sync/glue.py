"""AWS Glue Data Catalog through boto3 (Hudi's `org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool`).

The registration is the Hive metastore's (Glue is Hive-compatible), with Glue's batch partition
APIs: at most 100 partitions per create, update or get call, and 25 per delete. Locations use the
`s3://` scheme Athena reads, as Hudi's Glue sync writes them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from typing import Any

from hudi_core.errors import HudiNotInstalledError, MetaSyncError
from hudi_core.sync.catalog import CatalogPartition, PartitionValues, RegisteredTable, counted_call
from hudi_core.sync.registration import CatalogTable

_CREATE_BATCH = 100
_GET_BATCH = 1000
_DELETE_BATCH = 25
_DATABASE_DESCRIPTION = "automatically created by hoodie"


def glue_location(location: str) -> str:
    return "s3://" + location[len("s3a://") :] if location.startswith("s3a://") else location


def _client(endpoint: str | None, region: str | None, aws: Mapping[str, str]) -> Any:
    try:
        import boto3  # noqa: PLC0415
    except ImportError as e:
        raise HudiNotInstalledError("syncing to AWS Glue needs boto3: pip install 'hudi-dagster[s3]'") from e
    return boto3.client(
        "glue",
        endpoint_url=endpoint or aws.get("AWS_ENDPOINT_URL_GLUE"),
        # boto3 reads AWS_DEFAULT_REGION only; AWS_REGION is what S3 tables are configured by here.
        region_name=region or aws.get("AWS_REGION") or os.environ.get("AWS_REGION"),
        aws_access_key_id=aws.get("AWS_ACCESS_KEY_ID"),
        aws_secret_access_key=aws.get("AWS_SECRET_ACCESS_KEY"),
        aws_session_token=aws.get("AWS_SESSION_TOKEN"),
    )


class GlueCatalog:
    """The Glue Data Catalog of the account and region boto3 resolves, or the endpoint and region
    given; `aws`: credentials and region under the AWS variable names (default: boto3's own chain)."""

    def __init__(
        self, endpoint: str | None = None, region: str | None = None, aws: Mapping[str, str] | None = None
    ) -> None:
        self._glue = _client(endpoint, region, aws or {})
        self._calls: Counter[str] = Counter()

    @property
    def name(self) -> str:
        return f"AWS Glue ({self._glue.meta.region_name})"

    @property
    def calls(self) -> Counter[str]:
        return self._calls

    def close(self) -> None:
        self._glue.close()

    def _call(self, name: str, what: str) -> AbstractContextManager[Any]:
        return counted_call(self._glue, self._calls, self.name, name, what)

    def _not_found(self) -> type[Exception]:
        return self._glue.exceptions.EntityNotFoundException  # type: ignore[no-any-return]

    # ---- databases and tables -----------------------------------------------------------------

    def database_exists(self, database: str) -> bool:
        with self._call("get_database", f"looking up database {database}") as glue:
            try:
                glue.get_database(Name=database)
            except self._not_found():
                return False
        return True

    def create_database(self, database: str) -> None:
        with (
            self._call("create_database", f"creating database {database}") as glue,
            suppress(glue.exceptions.AlreadyExistsException),  # created meanwhile by another sync
        ):
            glue.create_database(DatabaseInput={"Name": database, "Description": _DATABASE_DESCRIPTION})

    def get_table(self, database: str, table: str) -> RegisteredTable | None:
        with self._call("get_table", f"looking up table {database}.{table}") as glue:
            try:
                found = glue.get_table(DatabaseName=database, Name=table)["Table"]
            except self._not_found():
                return None
        sd = found.get("StorageDescriptor", {})
        return RegisteredTable(
            columns=tuple((c["Name"], c["Type"]) for c in sd.get("Columns", [])),
            table_properties=dict(found.get("Parameters", {})),
            serde_properties=dict(sd.get("SerdeInfo", {}).get("Parameters", {})),
            location=sd.get("Location", ""),
            input_format=sd.get("InputFormat", ""),
        )

    def _storage_descriptor(self, table: CatalogTable, location: str) -> dict[str, Any]:
        serde = dict(table.serde_properties)
        if "path" in serde:
            serde["path"] = glue_location(serde["path"])
        return {
            "Columns": [{"Name": c.name, "Type": c.type, "Comment": c.comment} for c in table.columns],
            "Location": glue_location(location),
            "InputFormat": table.input_format,
            "OutputFormat": table.output_format,
            "Compressed": False,
            "SerdeInfo": {"SerializationLibrary": table.serde_library, "Parameters": serde},
            "BucketColumns": [],
            "SortColumns": [],
            "Parameters": {},
        }

    def _table_input(self, table: CatalogTable, properties: Mapping[str, str]) -> dict[str, Any]:
        return {
            "Name": table.name,
            "TableType": "EXTERNAL_TABLE",
            "StorageDescriptor": self._storage_descriptor(table, table.location),
            "PartitionKeys": [{"Name": c.name, "Type": c.type, "Comment": c.comment} for c in table.partition_keys],
            "Parameters": dict(properties),
        }

    def create_table(self, table: CatalogTable, extra_properties: Mapping[str, str]) -> None:
        table_input = self._table_input(table, {**table.table_properties, **extra_properties})
        with self._call("create_table", f"creating table {table.qualified_name}") as glue:
            glue.create_table(DatabaseName=table.database, TableInput=table_input)

    def update_table(self, table: CatalogTable, extra_properties: Mapping[str, str], cascade: bool) -> None:
        # Glue keeps each partition's own storage descriptor: like Hudi's Glue sync, only the
        # table's is replaced, whatever `cascade` says. Properties set by others are kept.
        current = self.get_table(table.database, table.name)
        kept = dict(current.table_properties) if current is not None else {}
        table_input = self._table_input(table, {**kept, **table.table_properties, **extra_properties})
        with self._call("update_table", f"updating table {table.qualified_name}") as glue:
            glue.update_table(DatabaseName=table.database, TableInput=table_input, SkipArchive=True)

    # ---- partitions ---------------------------------------------------------------------------

    def all_partitions(self, table: CatalogTable) -> dict[PartitionValues, str]:
        found: dict[PartitionValues, str] = {}
        token: str | None = None
        while True:
            arguments: dict[str, Any] = {"DatabaseName": table.database, "TableName": table.name}
            if token:
                arguments["NextToken"] = token
            with self._call("get_partitions", f"listing the partitions of {table.qualified_name}") as glue:
                page = glue.get_partitions(**arguments)
            for p in page.get("Partitions", []):
                found[tuple(p["Values"])] = p["StorageDescriptor"]["Location"]
            token = page.get("NextToken")
            if not token:
                return found

    def get_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> dict[PartitionValues, str]:
        found: dict[PartitionValues, str] = {}
        for start in range(0, len(values), _GET_BATCH):
            batch = [{"Values": list(v)} for v in values[start : start + _GET_BATCH]]
            with self._call("batch_get_partition", f"looking up partitions of {table.qualified_name}") as glue:
                page = glue.batch_get_partition(
                    DatabaseName=table.database, TableName=table.name, PartitionsToGet=batch
                )
            for p in page.get("Partitions", []):
                found[tuple(p["Values"])] = p["StorageDescriptor"]["Location"]
        return found

    def _partition_input(self, table: CatalogTable, partition: CatalogPartition) -> dict[str, Any]:
        return {
            "Values": list(partition.values),
            "StorageDescriptor": self._storage_descriptor(table, partition.location),
            "Parameters": {},
        }

    def _check(self, response: Mapping[str, Any], what: str) -> None:
        errors = [e for e in response.get("Errors", []) if e.get("ErrorDetail", {}).get("ErrorCode")]
        # Adding a partition that exists, or dropping one that is gone, is what a rerun does.
        harmless = {"AlreadyExistsException", "EntityNotFoundException"}
        real = [e for e in errors if e["ErrorDetail"]["ErrorCode"] not in harmless]
        if real:
            detail = real[0]["ErrorDetail"]
            raise MetaSyncError(
                f"{self.name}: {what} failed for {len(real)} partition(s), e.g. {real[0].get('PartitionValues')}: "
                f"{detail.get('ErrorCode')}: {detail.get('ErrorMessage')}"
            )

    def _batched(
        self, table: CatalogTable, api: str, argument: str, entries: Sequence[dict[str, Any]], size: int, what: str
    ) -> None:
        """Sends `entries` to the batch `api` as its `argument`, `size` at a time, checking each
        response's per-partition errors."""
        for start in range(0, len(entries), size):
            with self._call(api, what) as glue:
                response = getattr(glue, api)(
                    DatabaseName=table.database, TableName=table.name, **{argument: entries[start : start + size]}
                )
            self._check(response, what)

    def add_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None:
        entries = [self._partition_input(table, p) for p in partitions]
        what = f"adding partitions to {table.qualified_name}"
        self._batched(table, "batch_create_partition", "PartitionInputList", entries, _CREATE_BATCH, what)

    def update_partitions(self, table: CatalogTable, partitions: Sequence[CatalogPartition]) -> None:
        entries = [
            {"PartitionValueList": list(p.values), "PartitionInput": self._partition_input(table, p)}
            for p in partitions
        ]
        what = f"moving partitions of {table.qualified_name}"
        self._batched(table, "batch_update_partition", "Entries", entries, _CREATE_BATCH, what)

    def drop_partitions(self, table: CatalogTable, values: Sequence[PartitionValues]) -> None:
        entries = [{"Values": list(v)} for v in values]
        what = f"dropping partitions of {table.qualified_name}"
        self._batched(table, "batch_delete_partition", "PartitionsToDelete", entries, _DELETE_BATCH, what)
