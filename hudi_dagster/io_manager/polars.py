"""Hudi IO manager for Polars DataFrames and LazyFrames (through Arrow, on the Arrow engine)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hudi_core import HudiTable
from hudi_dagster.handler import ArrowTypeHandler, HudiTypeHandler
from hudi_dagster.io_manager.base import HudiIOManager
from hudi_dagster.partitions import Filter

try:
    import polars as pl
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError("HudiPolarsIOManager needs Polars: install hudi-dagster[polars]") from missing


class PolarsTypeHandler(HudiTypeHandler):
    """`polars.DataFrame` and `polars.LazyFrame` (collected before writing)."""

    @property
    def supported_types(self) -> tuple[type, ...]:
        return (pl.DataFrame, pl.LazyFrame)

    def to_writable(self, obj: Any) -> Any:
        if not isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
            return obj  # already converted
        frame = obj.collect() if isinstance(obj, pl.LazyFrame) else obj
        return frame.to_arrow()

    def load(self, uri: str, columns: Sequence[str] | None, filters: Sequence[Filter], load_type: type) -> Any:
        table = HudiTable(uri).read(columns=columns, filters=list(filters) or None)
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        return frame.lazy() if load_type is pl.LazyFrame else frame


class HudiPolarsIOManager(HudiIOManager):
    """Assets as Polars DataFrames (or LazyFrames) stored in Hudi tables; pyarrow Tables also accepted."""

    def type_handlers(self) -> Sequence[HudiTypeHandler]:
        return [PolarsTypeHandler(), ArrowTypeHandler()]

    def default_load_type(self) -> type | None:
        return pl.DataFrame
