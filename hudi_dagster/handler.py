"""Type handlers: how one kind of in-memory data is written to and loaded from a Hudi table.

The write path is the same for every type (`hudi_dagster.resource.write_data`: Arrow engine for
Arrow/pandas, Spark engine for Spark DataFrames); handlers only convert data and apply filters.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core import HudiTable
from hudi_dagster.partitions import Filter


class HudiTypeHandler(ABC):
    """Converts one family of types to what the writer takes, and loads a table as that type."""

    @property
    @abstractmethod
    def supported_types(self) -> tuple[type, ...]:
        """The Python types this handler writes and loads."""

    def to_writable(self, obj: Any) -> Any:
        """What `write_data` receives (an Arrow table, or a Spark DataFrame for the Spark handler)."""
        return obj

    def arrow_schema(self, obj: Any) -> pa.Schema:
        """The Arrow schema of `obj`."""
        return pa_table(self.to_writable(obj)).schema

    def rows_outside(self, obj: Any, filters: Sequence[Filter]) -> int:
        """How many rows of `obj` the partition filters reject."""
        return rows_outside(pa_table(self.to_writable(obj)), filters)

    def rows_inside(self, obj: Any, filters_by_key: Mapping[str, Sequence[Filter]]) -> dict[str, int]:
        """Rows of `obj` in each Dagster partition (by the filters selecting its rows)."""
        table = pa_table(self.to_writable(obj))
        return {key: table.num_rows - rows_outside(table, filters) for key, filters in filters_by_key.items()}

    def columns(self, obj: Any, names: Sequence[str], distinct: bool = False) -> pa.Table:
        """Some columns of `obj` as Arrow (their distinct rows with `distinct`)."""
        table = pa_table(self.to_writable(obj)).select(list(names))
        return table.group_by(list(names), use_threads=False).aggregate([]) if distinct and names else table

    def has_rows(self, obj: Any) -> bool:
        return bool(pa_table(self.to_writable(obj)).num_rows)

    def column_lineage(
        self, obj: Any, asset_of_path: Callable[[str], dg.AssetKey | None]
    ) -> dg.TableColumnLineage | None:
        """Each output column's source columns, where the data's own plan tells (Spark)."""
        return None

    @abstractmethod
    def load(self, uri: str, columns: Sequence[str] | None, filters: Sequence[Filter], load_type: type) -> Any:
        """The table's latest snapshot (projected and filtered) as `load_type`."""


def pa_table(obj: Any) -> pa.Table:
    if isinstance(obj, pa.RecordBatchReader):
        return obj.read_all()
    return obj if isinstance(obj, pa.Table) else pa.Table.from_pandas(obj, preserve_index=False)


def rows_outside(table: pa.Table, filters: Sequence[Filter]) -> int:
    if not filters or table.num_rows == 0:
        return 0
    inside = pa.array([True] * table.num_rows)
    for column, op, value in filters:
        values = table.column(column)
        if op == "in":
            test = pc.is_in(pc.cast(values, pa.string()), pa.array([str(v) for v in value], pa.string()))
        else:
            scalar = pa.scalar(value, values.type)
            test = pc.greater_equal(values, scalar) if op == ">=" else pc.less(values, scalar)
        inside = pc.and_(inside, pc.fill_null(test, False))
    return int(table.num_rows - pc.sum(pc.cast(inside, pa.int64())).as_py())


class ArrowTypeHandler(HudiTypeHandler):
    """pyarrow Tables and RecordBatchReaders (read fully before writing)."""

    @property
    def supported_types(self) -> tuple[type, ...]:
        return (pa.Table, pa.RecordBatchReader)

    def to_writable(self, obj: Any) -> Any:
        return pa_table(obj)

    def load(self, uri: str, columns: Sequence[str] | None, filters: Sequence[Filter], load_type: type) -> Any:
        table = HudiTable(uri)
        if load_type is pa.RecordBatchReader:
            return table.read_batches(columns=columns, filters=list(filters) or None)
        return table.read(columns=columns, filters=list(filters) or None)


class PandasTypeHandler(HudiTypeHandler):
    """pandas DataFrames (converted through Arrow)."""

    @property
    def supported_types(self) -> tuple[type, ...]:
        import pandas as pd  # noqa: PLC0415 - pandas comes with the `spark` extra

        return (pd.DataFrame,)

    def to_writable(self, obj: Any) -> Any:
        return pa_table(obj)

    def load(self, uri: str, columns: Sequence[str] | None, filters: Sequence[Filter], load_type: type) -> Any:
        return HudiTable(uri).read(columns=columns, filters=list(filters) or None).to_pandas()
