"""`HudiHook`: a Hudi table by its path and Hudi options, with object-store settings taken from an
Airflow `aws` connection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from airflow.sdk import BaseHook

from hudi_core import HudiTable, WriteResult
from hudi_core.config.write import HudiWriteConfig
from hudi_core.hudi_table import table_exists
from hudi_core.orchestration.writes import write_data
from hudi_core.storage import register_storage_options


class HudiHookError(ValueError):
    """A connection the hook cannot use."""


def storage_options_of(connection: Any) -> dict[str, str]:
    """Object-store settings from an Airflow `aws` connection, under the AWS variable names
    `hudi_core.storage` takes. Fields as the Amazon provider reads them: login and password are the
    key pair (or `aws_access_key_id` / `aws_secret_access_key` in extra); extra `region_name`,
    `aws_session_token`, `endpoint_url` (or `service_config.s3.endpoint_url`)."""
    if connection.conn_type != "aws":
        raise HudiHookError(
            f"connection {connection.conn_id!r} is of type {connection.conn_type!r}; HudiHook takes an 'aws' connection"
        )
    extra: Mapping[str, Any] = connection.extra_dejson or {}
    s3_config = (extra.get("service_config") or {}).get("s3") or {}
    found = {
        "AWS_ACCESS_KEY_ID": connection.login or extra.get("aws_access_key_id"),
        "AWS_SECRET_ACCESS_KEY": connection.password or extra.get("aws_secret_access_key"),
        "AWS_SESSION_TOKEN": extra.get("aws_session_token"),
        "AWS_REGION": extra.get("region_name"),
        "AWS_ENDPOINT_URL": s3_config.get("endpoint_url") or extra.get("endpoint_url"),
    }
    return {name: str(value) for name, value in found.items() if value}


def glue_settings_of(connection: Any) -> dict[str, str]:
    """AWS Glue's credentials, region and endpoint from an `aws` connection, under the AWS variable
    names `hudi_core.sync` takes: the keys and region as for S3; the endpoint from extra
    `service_config.glue.endpoint_url`, else the connection-wide `endpoint_url` (as the Amazon
    provider reads them), never S3's own."""
    settings = storage_options_of(connection)
    settings.pop("AWS_ENDPOINT_URL", None)
    extra: Mapping[str, Any] = connection.extra_dejson or {}
    glue_config = (extra.get("service_config") or {}).get("glue") or {}
    endpoint = glue_config.get("endpoint_url") or extra.get("endpoint_url")
    if endpoint:
        settings["AWS_ENDPOINT_URL_GLUE"] = str(endpoint)
    return settings


class HudiHook(BaseHook):
    """A Hudi table at `table_path` (a local path, `file://` or `s3://` URI).

    `hudi_options`: Hudi's datasource options (`hoodie.*`) for every write and service through
    this hook. `aws_conn_id`: an `aws` connection whose keys, region and endpoint the table's
    storage uses in this process (default: the AWS environment variables).
    """

    conn_name_attr = "aws_conn_id"
    default_conn_name = "aws_default"
    conn_type = "aws"
    hook_name = "Apache Hudi"

    def __init__(
        self, table_path: str, hudi_options: Mapping[str, str] | None = None, aws_conn_id: str | None = None
    ) -> None:
        super().__init__()
        self.table_path = table_path
        self.hudi_options = dict(hudi_options or {})
        self.aws_conn_id = aws_conn_id
        self._storage_options: dict[str, str] | None = None

    def storage_options(self) -> dict[str, str]:
        """The table's object-store settings: from the connection, else none (the environment's)."""
        if self._storage_options is None:
            connection = self.get_connection(self.aws_conn_id) if self.aws_conn_id else None
            self._storage_options = storage_options_of(connection) if connection is not None else {}
            if self._storage_options:
                register_storage_options(self.table_path, self._storage_options)
        return self._storage_options

    def glue_settings(self) -> dict[str, str]:
        """AWS Glue's settings from the connection (`glue_settings_of`), else none (boto3's own)."""
        connection = self.get_connection(self.aws_conn_id) if self.aws_conn_id else None
        return glue_settings_of(connection) if connection is not None else {}

    def exists(self) -> bool:
        """Whether a Hudi table is at the path."""
        self.storage_options()
        return table_exists(self.table_path)

    def table(self) -> HudiTable:
        """The table (it must exist)."""
        self.storage_options()
        return HudiTable(self.table_path, self.hudi_options)

    def write(
        self,
        data: Any,
        operation: str,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
        deletes: Any = None,
        options: Mapping[str, str] | None = None,
    ) -> WriteResult:
        """Writes Arrow data (Arrow engine) or a Spark DataFrame (Spark engine) with `operation`;
        creates the table on its first write. `checkpoint` commits with the data."""
        self.storage_options()
        chosen = {**self.hudi_options, **dict(options or {}), HudiWriteConfig.OPERATION.key: operation}
        return write_data(self.table_path, data, chosen, checkpoint, checkpoint_identifier, deletes)
