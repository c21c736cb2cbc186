"""Ops for the data path of op-based jobs: write a table, read its changes (incremental or CDC).

The asset factories cover the asset graph (and keep their checkpoints); these are the same
operations as plain ops. Reads take their window as run config (`start`, `end`: completion times,
`earliest` allowed).
"""

# No postponed annotations here: Dagster reads the op's config annotation at runtime.

from typing import Any

import dagster as dg
from pydantic import Field

from hudi_core import HudiTable
from hudi_core.orchestration.writes import write_data
from hudi_dagster import metadata as md
from hudi_dagster.config import HudiTableConfig, WriteMode
from hudi_dagster.factories import pool_for, table_slug


class ChangeWindowConfig(dg.Config):
    """The commits to read: those completed in (start, end]."""

    start: str = Field(default="earliest", description="Completion time, or 'earliest'.")
    end: str | None = Field(default=None, description="Completion time (default: the latest commit).")


def hudi_write_op(
    table: HudiTableConfig, mode: WriteMode = WriteMode.UPSERT, name: str | None = None
) -> dg.OpDefinition:
    """An op writing its input (Arrow, pandas, Polars through Arrow, or a Spark DataFrame) into
    `table` in `mode`; it returns the commit's instant and reports the write as output metadata."""

    @dg.op(name=name or f"{_slug(table)}_{mode.value}", pool=pool_for(table), tags={"kind": "hudi"})
    def _write(context: dg.OpExecutionContext, data: Any) -> str:
        options = md.with_run_id(context, table.write_options(mode))
        result = write_data(table.path, data, options)
        context.add_output_metadata(md.write_metadata(table.path, table_slug(table), result, None))
        return result.instant_time

    return _write


def hudi_incremental_read_op(table_path: str, name: str | None = None) -> dg.OpDefinition:
    """An op returning the records changed by the commits of a window (an Arrow table with meta
    columns, as `HudiTable.read_incremental`)."""
    return _read_op(table_path, name or "hudi_incremental_read", cdc=False)


def hudi_cdc_read_op(table_path: str, name: str | None = None) -> dg.OpDefinition:
    """An op returning the change feed of a window (`op`, `ts_ms`, `before`, `after` as structs)."""
    return _read_op(table_path, name or "hudi_cdc_read", cdc=True)


def _read_op(table_path: str, name: str, cdc: bool) -> dg.OpDefinition:
    @dg.op(name=name, tags={"kind": "hudi"})
    def _read(context: dg.OpExecutionContext, config: ChangeWindowConfig) -> Any:
        table = HudiTable(table_path)
        rows = (
            table.read_cdc(config.start, config.end, images="struct")
            if cdc
            else table.read_incremental(config.start, config.end)
        )
        context.add_output_metadata(
            {"hudi/window_start": config.start, "hudi/window_end": config.end or "latest", "rows": rows.num_rows}
        )
        return rows

    return _read


def _slug(table: HudiTableConfig) -> str:
    return table_slug(table).replace("-", "_").replace(".", "_")
