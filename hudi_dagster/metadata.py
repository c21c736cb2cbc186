"""Materialization metadata of Hudi writes, and the asset-metadata keys hudi_dagster reads."""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import dagster as dg
import pyarrow as pa

from hudi_core import HudiTable, WriteResult
from hudi_core.config.write import HudiWriteConfig
from hudi_core.schema.meta_fields import META_FIELDS

COMMIT_META_PREFIX_OPTION = HudiWriteConfig.COMMIT_METADATA_KEY_PREFIX.key
DAGSTER_PREFIX = "dagster/"

# Asset (definition) or output metadata keys; output metadata overrides definition metadata.
WRITE_MODE_KEY = "write_mode"
PARTITION_EXPR_KEY = "partition_expr"
RECORD_KEY_KEY = "record_key"
ORDERING_FIELD_KEY = "ordering_field"
TABLE_TYPE_KEY = "table_type"
HUDI_OPTIONS_KEY = "hudi_options"
COLUMNS_KEY = "columns"
COMMIT_INSTANT_KEY = "hudi/commit_instant"
PARTITION_ROW_COUNT_KEY = "dagster/partition_row_count"
# Definition metadata of the incremental and CDC assets: the table they consume, and the identifier
# their target commits store that table's checkpoint under.
SOURCE_KEY = "hudi/source"
CHECKPOINT_IDENTIFIER_KEY = "hudi/checkpoint_identifier"
# Extra-metadata key of commits made by Dagster runs; commits without it were made elsewhere.
RUN_ID_COMMIT_KEY = "dagster/run_id"
SERVICE_WARNINGS_KEY = "hudi/service_warnings"


def column_schema(schema: pa.Schema) -> dg.TableSchema:
    """The data columns (no _hoodie_* meta columns) as a Dagster table schema."""
    return dg.TableSchema(
        columns=[
            dg.TableColumn(name=field.name, type=str(field.type), description=None)
            for field in schema
            if field.name not in META_FIELDS
        ]
    )


def code_reference(function: Callable[..., Any]) -> dg.CodeReferencesMetadataValue | None:
    """`dagster/code_references` to where `function` is defined (None when Python cannot tell)."""
    try:
        source = inspect.getsourcefile(function)
        _, line = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return None
    if source is None:
        return None
    with warnings.catch_warnings():  # code references are a Dagster beta API we choose to use
        warnings.simplefilter("ignore", dg.BetaWarning)
        return dg.CodeReferencesMetadataValue(
            code_references=[dg.LocalFileCodeReference(file_path=os.path.abspath(source), line_number=line)]
        )


def copied_columns(schema: dg.TableSchema, upstream: dg.AssetKey) -> dg.TableColumnLineage:
    """Column lineage of a table whose every column is the same-named column of `upstream`."""
    return dg.TableColumnLineage(
        deps_by_column={
            column.name: [dg.TableColumnDep(asset_key=upstream, column_name=column.name)] for column in schema.columns
        }
    )


def write_metadata(table_uri: str, table_name: str, result: WriteResult, row_count: int | None) -> dict[str, Any]:
    """What a write did: the commit, record counts, files, schema and size of the table, and the
    warnings of inline services that failed after the commit."""
    table = HudiTable(table_uri)
    metadata: dict[str, Any] = {
        "dagster/uri": dg.MetadataValue.path(table_uri),
        "dagster/table_name": table_name,
        "dagster/column_schema": column_schema(table.schema),
        COMMIT_INSTANT_KEY: result.instant_time,
        "hudi/completion_time": result.completion_time or "",
        "hudi/operation": result.operation.value,
        "hudi/rows_inserted": result.inserts,
        "hudi/rows_updated": result.updates,
        "hudi/rows_deleted": result.deletes,
        "hudi/files_written": result.files_written,
        "hudi/table_type": table.table_config.table_type.value,
    }
    if row_count is not None:
        metadata["dagster/row_count"] = row_count
    if result.table_services:
        metadata["hudi/inline_services"] = ", ".join(s.action for s in result.table_services)
    if result.service_warnings:  # the write committed; an inline service after it failed
        metadata[SERVICE_WARNINGS_KEY] = "\n".join(result.service_warnings)
    return metadata


def with_run_id(
    context: dg.OutputContext | dg.AssetExecutionContext | dg.OpExecutionContext, options: Mapping[str, str]
) -> dict[str, str]:
    """`options` plus the Dagster run recorded in the commit's extra metadata: Hudi's
    `hoodie.datasource.write.commitmeta.key.prefix` passes options under the prefix through. Our
    prefix is `dagster/` (key `dagster/run_id`); a prefix the user chose stays, the key under it."""
    run_id = context.step_context.run_id if isinstance(context, dg.OutputContext) else context.run.run_id
    prefix = options.get(COMMIT_META_PREFIX_OPTION)
    if prefix is None:
        return {**options, COMMIT_META_PREFIX_OPTION: DAGSTER_PREFIX, RUN_ID_COMMIT_KEY: run_id}
    return {**options, f"{prefix}{RUN_ID_COMMIT_KEY}": run_id}


def run_id_of(extra_metadata: Mapping[str, str]) -> str | None:
    """The Dagster run a commit records (under whatever prefix it was written), if any."""
    return next((v for k, v in extra_metadata.items() if k.endswith(RUN_ID_COMMIT_KEY)), None)


def table_row_count(table_uri: str) -> int:
    """Rows in the table's latest snapshot (reads only the record-key meta column)."""
    return int(HudiTable(table_uri).read(columns=["_hoodie_record_key"]).num_rows)


def data_version(result: WriteResult) -> dg.DataVersion:
    """A write's data version: its commit instant."""
    return dg.DataVersion(result.instant_time)
