"""The Hudi IO manager: assets as Hudi tables under `root_uri`, written and loaded by type handlers.

A table lives at `<root_uri>/<asset key path>`. Per-asset settings come from definition metadata,
overridden by output metadata, overriding the IO manager's config: `record_key`, `partition_expr`,
`ordering_field`, `table_type`, `write_mode`, `hudi_options`; inputs honour `columns`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
from pydantic import Field

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_dagster import metadata as md
from hudi_dagster.config import TableType, WriteMode, table_write_options
from hudi_dagster.handler import HudiTypeHandler
from hudi_dagster.partitions import Filter, partition_columns, partition_filters
from hudi_dagster.resource import write_data


class HudiIOManager(dg.ConfigurableIOManager):
    """Base of the Hudi IO managers; subclasses choose the type handlers."""

    root_uri: str = Field(description="Directory or file:// URI under which asset tables live.")
    write_mode: WriteMode | None = Field(
        default=None, description="Default write mode (default: upsert when a record key is set, else insert)."
    )
    table_type: TableType = Field(default="COPY_ON_WRITE", description="Table type of tables created.")
    hudi_options: dict[str, str] = Field(default_factory=dict, description="Hudi options for every write.")
    row_count: bool = Field(default=True, description="Report dagster/row_count (reads the key column).")

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
        mode = WriteMode(settings.get(md.WRITE_MODE_KEY) or self.write_mode or ("upsert" if record_key else "insert"))
        partition_expr = settings.get(md.PARTITION_EXPR_KEY)
        writable = handler.to_writable(obj)
        if context.has_asset_partitions:
            self._check_partitions(context, handler, obj, partition_expr)
        options = table_write_options(
            uri,
            context.asset_key.path[-1],
            record_key,
            list(partition_columns(partition_expr).values()),
            settings.get(md.ORDERING_FIELD_KEY),
            str(settings.get(md.TABLE_TYPE_KEY) or self.table_type),
            {**self.hudi_options, **dict(settings.get(md.HUDI_OPTIONS_KEY) or {})},
            mode,
        )
        result = write_data(uri, writable, options)
        rows = md.table_row_count(uri) if self.row_count else None
        context.add_output_metadata(md.write_metadata(uri, context.asset_key.to_user_string(), result, rows))
        if context.has_asset_key:
            # The commit instant is the asset's data version: downstream staleness follows commits.
            context.step_context.set_data_version(context.asset_key, md.data_version(result))

    def _check_partitions(self, context: dg.OutputContext, handler: HudiTypeHandler, obj: Any, expr: Any) -> None:
        if expr is None:
            raise ValueError(f"partitioned asset {context.asset_key.to_user_string()} needs partition_expr metadata")
        filters = self._filters_for(context, expr, handler, obj)
        outside = handler.rows_outside(obj, filters)
        if outside:
            raise ValueError(
                f"{outside} output row(s) of {context.asset_key.to_user_string()} fall outside the run's "
                f"partition(s) {list(context.asset_partition_keys)} (partition_expr {expr!r})"
            )

    def _filters_for(self, context: dg.OutputContext, expr: Any, handler: HudiTypeHandler, obj: Any) -> list[Filter]:
        schema = handler.arrow_schema(obj)
        return partition_filters(expr, context.asset_partitions_def, context.asset_partition_keys, schema)

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
