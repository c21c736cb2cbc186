"""Dagster config naming a Hudi table, and the write modes; mapped to Hudi's datasource option names."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

import dagster as dg
from pydantic import Field

from hudi_core.config.table import HudiTableConfig as TableOptions
from hudi_core.config.write import HudiWriteConfig
from hudi_core.storage import register_storage_options

RECORD_KEY_OPTION = HudiWriteConfig.RECORD_KEY_FIELD.key
PARTITION_OPTION = HudiWriteConfig.PARTITION_PATH_FIELD.key
ORDERING_OPTION = HudiWriteConfig.PRECOMBINE_FIELD.key
TABLE_TYPE_OPTION = HudiWriteConfig.TABLE_TYPE.key
TABLE_NAME_OPTION = TableOptions.NAME.key
OPERATION_OPTION = HudiWriteConfig.OPERATION.key


class WriteMode(StrEnum):
    """How an IO manager or asset writes its data (Hudi's `hoodie.datasource.write.operation`)."""

    UPSERT = "upsert"
    INSERT = "insert"
    BULK_INSERT = "bulk_insert"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE = "delete"


TableType = Literal["COPY_ON_WRITE", "MERGE_ON_READ"]


class HudiTableConfig(dg.Config):
    """A Hudi table: where it lives and how its records are keyed, partitioned and ordered."""

    path: str = Field(description="Base path or file:// URI of the table.")
    table_name: str | None = Field(default=None, description=f"{TABLE_NAME_OPTION} (default: the last path part).")
    record_key: list[str] = Field(default_factory=list, description="Record key field(s).")
    partition_fields: list[str] = Field(default_factory=list, description="Partition path field(s).")
    ordering_field: str | None = Field(default=None, description="Ordering (precombine) field.")
    table_type: TableType = Field(default="COPY_ON_WRITE", description="COPY_ON_WRITE or MERGE_ON_READ.")
    hudi_options: dict[str, str] = Field(
        default_factory=dict, description="More Hudi options by their own names (hoodie.*), passed through."
    )
    storage_options: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Object-store settings for the table, by the AWS variable names (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, "
            "AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL); default: the environment."
        ),
    )

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        if self.storage_options:  # every process that builds the config (code server, run worker)
            register_storage_options(self.path, self.storage_options)

    def write_options(self, mode: WriteMode | str) -> dict[str, str]:
        """Hudi datasource write options for one write in `mode`."""
        return table_write_options(
            self.path,
            self.table_name,
            self.record_key,
            self.partition_fields,
            self.ordering_field,
            self.table_type,
            self.hudi_options,
            WriteMode(mode),
        )


def table_write_options(
    path: str,
    table_name: str | None,
    record_key: list[str],
    partition_fields: list[str],
    ordering_field: str | None,
    table_type: str,
    hudi_options: dict[str, str],
    mode: WriteMode,
) -> dict[str, str]:
    """The one place Dagster-side table settings become Hudi option names (user options win)."""
    options = {
        TABLE_NAME_OPTION: table_name or path.rstrip("/").rsplit("/", 1)[-1],
        TABLE_TYPE_OPTION: table_type,
        OPERATION_OPTION: mode.value,
    }
    if record_key:
        options[RECORD_KEY_OPTION] = ",".join(record_key)
    if partition_fields:
        options[PARTITION_OPTION] = ",".join(partition_fields)
    if ordering_field:
        options[ORDERING_OPTION] = ordering_field
    return {**options, **hudi_options}
