"""The Hudi IO manager: assets as Hudi tables under `root_uri`, written and loaded by type handlers.

A table lives at `<root_uri>/<asset key path>`. Per-asset settings come from definition metadata,
overridden by output metadata, overriding the IO manager's config: `record_key`, `partition_expr`,
`ordering_field`, `table_type`, `write_mode`, `hudi_options`; inputs honour `columns`.

Without a `write_mode`, a partitioned asset replaces exactly the run's partitions (see
`hudi_dagster.replace`); an unpartitioned one upserts when it has a record key, else (a table
with generated keys) replaces the table with `insert_overwrite_table`.
Every commit records the Dagster run in its extra metadata (`dagster/run_id`).
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dagster as dg
from pydantic import Field

from hudi_core import HudiTable, WriteResult
from hudi_core.hudi_table import table_exists
from hudi_core.orchestration.writes import write_data
from hudi_core.storage import register_storage_options
from hudi_dagster import metadata as md
from hudi_dagster.config import OPERATION_OPTION, TableType, WriteMode, table_write_options
from hudi_dagster.handler import HudiTypeHandler
from hudi_dagster.partitions import Filter, partition_columns, partition_filters
from hudi_dagster.replace import maps_whole_partitions, plan_replace


class HudiIOManager(dg.ConfigurableIOManager):
    """Base of the Hudi IO managers; subclasses choose the type handlers."""

    root_uri: str = Field(description="Directory or file:// URI under which asset tables live.")
    write_mode: WriteMode | None = Field(
        default=None,
        description=(
            "Write mode of every asset (default: partitioned assets replace the run's partitions; others upsert "
            "with a record key, else replace the table, whose keys are generated)."
        ),
    )
    table_type: TableType = Field(default="COPY_ON_WRITE", description="Table type of tables created.")
    hudi_options: dict[str, str] = Field(default_factory=dict, description="Hudi options for every write.")
    row_count: bool = Field(default=True, description="Report dagster/row_count (reads the key column).")
    storage_options: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Object-store settings for the tables under root_uri, by the AWS variable names (AWS_ACCESS_KEY_ID, "
            "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL); default: the environment."
        ),
    )

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        if self.storage_options:
            register_storage_options(self.root_uri, self.storage_options)

    @abstractmethod
    def type_handlers(self) -> Sequence[HudiTypeHandler]:
        """The handlers, by the types they support."""

    def default_load_type(self) -> type | None:
        return None

    # ---- writing --------------------------------------------------------------------------------

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        if obj is None:
            return  # the asset wrote the table itself
        handler = self._handler(type(obj))
        settings = self._settings(context)
        uri = self.table_uri(context.asset_key)
        record_key = _as_list(settings.get(md.RECORD_KEY_KEY))
        chosen = settings.get(md.WRITE_MODE_KEY) or self.write_mode
        partition_expr = settings.get(md.PARTITION_EXPR_KEY)
        writable = handler.to_writable(obj)

        def options(mode: WriteMode) -> dict[str, str]:
            return table_write_options(
                uri,
                context.asset_key.path[-1],
                record_key,
                list(partition_columns(partition_expr).values()),
                settings.get(md.ORDERING_FIELD_KEY),
                str(settings.get(md.TABLE_TYPE_KEY) or self.table_type),
                md.with_run_id(context, {**self.hudi_options, **dict(settings.get(md.HUDI_OPTIONS_KEY) or {})}),
                mode,
            )

        if context.has_asset_partitions:
            run_filters = self._check_partitions(context, handler, obj, partition_expr)
            if chosen is None:
                expr_columns = list(partition_columns(partition_expr).values())
                result = self._replace_partitions(
                    context, handler, writable, uri, record_key, expr_columns, run_filters, options
                )
            else:
                result = write_data(uri, writable, options(WriteMode(chosen)))
        else:
            # Without a record key the table's keys are generated: a re-run replaces the table
            # rather than appending every row again.
            mode = WriteMode(chosen or ("upsert" if record_key else "insert_overwrite_table"))
            result = write_data(uri, writable, options(mode))
        if result is None:
            context.log.info(f"{context.asset_key.to_user_string()}: nothing written and nothing to replace")
            return
        rows = md.table_row_count(uri) if self.row_count else None
        metadata = md.write_metadata(uri, context.asset_key.to_user_string(), result, rows)
        lineage = handler.column_lineage(writable, self.asset_key_of)
        if lineage is not None:
            metadata["dagster/column_lineage"] = lineage
        context.add_output_metadata(metadata)
        if context.has_asset_key:
            # The commit instant is the asset's data version: downstream staleness follows commits.
            context.step_context.set_data_version(context.asset_key, md.data_version(result))

    def _replace_partitions(
        self,
        context: dg.OutputContext,
        handler: HudiTypeHandler,
        writable: Any,
        uri: str,
        record_key: list[str],
        expr_columns: list[str],
        run_filters: list[Filter],
        options: Callable[[WriteMode], dict[str, str]],
    ) -> WriteResult | None:
        """Replaces the run's partitions with the output (`hudi_dagster.replace`)."""
        whole = maps_whole_partitions(uri, expr_columns)
        fields = list(HudiTable(uri).table_config.partition_fields) if table_exists(uri) else expr_columns
        plan = plan_replace(
            uri,
            whole,
            [run_filters],
            record_key,
            handler.columns(writable, fields, distinct=True),
            None if whole else handler.columns(writable, list(dict.fromkeys([*record_key, *fields]))),
            handler.has_rows(writable),
        )
        result = None
        if plan.mode is not None:
            result = write_data(uri, writable, options(plan.mode), deletes=plan.deletes)
        if plan.emptied:
            context.log.info(f"dropping partitions the run left empty: {', '.join(plan.emptied)}")
            drop = {k: v for k, v in options(WriteMode.DELETE).items() if k != OPERATION_OPTION}
            result = HudiTable(uri).delete_partitions(plan.emptied, drop)
        return result

    def _check_partitions(
        self, context: dg.OutputContext, handler: HudiTypeHandler, obj: Any, expr: Any
    ) -> list[Filter]:
        """The filters selecting the run's partitions; refuses rows outside them, and records each
        partition's row count (`dagster/partition_row_count`)."""
        if expr is None:
            raise ValueError(f"partitioned asset {context.asset_key.to_user_string()} needs partition_expr metadata")
        schema = handler.arrow_schema(obj)
        keys = list(context.asset_partition_keys)
        filters = partition_filters(expr, context.asset_partitions_def, keys, schema)
        outside = handler.rows_outside(obj, filters)
        if outside:
            raise ValueError(
                f"{outside} output row(s) of {context.asset_key.to_user_string()} fall outside the run's "
                f"partition(s) {keys} (partition_expr {expr!r})"
            )
        per_key = (
            {key: partition_filters(expr, context.asset_partitions_def, [key], schema) for key in keys}
            if len(keys) > 1
            else {key: filters for key in keys}
        )
        for key, rows in handler.rows_inside(obj, per_key).items():
            context.step_context.add_asset_metadata(
                {md.PARTITION_ROW_COUNT_KEY: rows}, asset_key=context.asset_key, partition_key=key
            )
        return filters

    # ---- loading --------------------------------------------------------------------------------

    def load_input(self, context: dg.InputContext) -> Any:
        load_type = context.dagster_type.typing_type
        if load_type is Any or load_type is object or load_type is None:
            load_type = self.default_load_type()
        handler = self._handler(load_type)
        key = context.upstream_output.asset_key if context.upstream_output is not None else context.asset_key
        uri = self.table_uri(key)
        if not table_exists(uri):
            raise dg.DagsterInvariantViolationError(f"no Hudi table for {key.to_user_string()} at {uri}")
        metadata = dict(context.definition_metadata or {})
        columns = metadata.get(md.COLUMNS_KEY)
        filters: list[Filter] = []
        upstream = context.upstream_output
        expr = (upstream.definition_metadata or {}).get(md.PARTITION_EXPR_KEY) if upstream is not None else None
        if context.has_asset_partitions and expr is not None:
            schema = HudiTable(uri).schema
            filters = partition_filters(expr, context.asset_partitions_def, context.asset_partition_keys, schema)
        return handler.load(uri, columns, filters, load_type)

    # ---- helpers --------------------------------------------------------------------------------

    def table_uri(self, asset_key: dg.AssetKey) -> str:
        return "/".join([self.root_uri.rstrip("/"), *asset_key.path])

    def asset_key_of(self, path: str) -> dg.AssetKey | None:
        """The asset whose table is at `path` under root_uri (None elsewhere)."""
        root = self.root_uri.rstrip("/")
        local = "://" not in root and "://" not in path
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root)) if local else None
        if relative is None:
            relative = path.rstrip("/")[len(root) + 1 :] if path.startswith(root + "/") else ".."
        if relative == "." or relative.startswith(".."):
            return None
        return dg.AssetKey(relative.replace(os.sep, "/").split("/"))

    def _handler(self, kind: type | None) -> HudiTypeHandler:
        for handler in self.type_handlers():
            if kind is not None and isinstance(kind, type) and issubclass(kind, handler.supported_types):
                return handler
        supported = ", ".join(t.__name__ for h in self.type_handlers() for t in h.supported_types)
        raise dg.DagsterInvariantViolationError(
            f"{type(self).__name__} cannot handle {getattr(kind, '__name__', kind)}; it handles {supported}"
        )

    @staticmethod
    def _settings(context: dg.OutputContext) -> Mapping[str, Any]:
        merged = {**(context.definition_metadata or {}), **(context.output_metadata or {})}
        # Output metadata arrives wrapped (TextMetadataValue, JsonMetadataValue, ...).
        return {k: v.value if isinstance(v, dg.MetadataValue) else v for k, v in merged.items()}


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]
