"""Hudi IO managers for pyarrow Tables and pandas DataFrames (the in-process Arrow engine)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from hudi_dagster.handler import ArrowTypeHandler, HudiTypeHandler, PandasTypeHandler
from hudi_dagster.io_manager.base import HudiIOManager


class HudiPyArrowIOManager(HudiIOManager):
    """Assets as pyarrow Tables (or RecordBatchReaders) stored in Hudi tables."""

    def type_handlers(self) -> Sequence[HudiTypeHandler]:
        return [ArrowTypeHandler()]

    def default_load_type(self) -> type | None:
        return pa.Table  # type: ignore[no-any-return]  # pyarrow is untyped


class HudiPandasIOManager(HudiIOManager):
    """Assets as pandas DataFrames stored in Hudi tables (pyarrow Tables also accepted)."""

    def type_handlers(self) -> Sequence[HudiTypeHandler]:
        return [PandasTypeHandler(), ArrowTypeHandler()]

    def default_load_type(self) -> type | None:
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame  # type: ignore[no-any-return]  # pandas is untyped here
