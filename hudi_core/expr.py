"""Read filters: `[(column, op, value), ...]`, all of which must hold.

Operators: `=` `!=` `<` `<=` `>` `>=` `in` `not in`, with SQL null semantics (a null column value
satisfies none of them). Values are coerced to the column's type up front, so a bad filter fails
before any file is opened. The same filter drives three steps: partition pruning (values parsed
from partition paths), file and row-group pruning (Parquet statistics), and row filtering.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.errors import FilterError

OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "not in")
_ALIASES = {"==": "=", "<>": "!=", "not_in": "not in", "notin": "not in"}
_KERNELS: dict[str, Callable[..., Any]] = {
    "=": pc.equal,
    "!=": pc.not_equal,
    "<": pc.less,
    "<=": pc.less_equal,
    ">": pc.greater,
    ">=": pc.greater_equal,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class Filter:
    """One validated filter; `values` holds one value, or the set for `in` / `not in`."""

    column: str
    op: str
    values: tuple[pa.Scalar, ...]

    @property
    def python_values(self) -> list[Any]:
        return [v.as_py() for v in self.values]

    def mask(self, column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
        """Which values of `column` satisfy the filter (SQL semantics: null never does)."""
        if self.op in ("in", "not in"):
            value_set = pa.concat_arrays([pa.repeat(value, 1) for value in self.values])
            found = pc.is_in(column, value_set=value_set)
            if self.op == "not in":
                found = pc.and_(pc.is_valid(column), pc.invert(found))
            return pc.fill_null(found, False)
        return pc.fill_null(_KERNELS[self.op](column, self.values[0]), False)

    def matches_value(self, value: Any) -> bool:
        """Whether one (Python) column value satisfies the filter."""
        if value is None:
            return False
        if self.op == "in":
            return value in self.python_values
        if self.op == "not in":
            return value not in self.python_values
        return bool(_COMPARE[self.op](value, self.python_values[0]))

    def may_match_range(self, low: Any, high: Any, has_non_null: bool) -> bool:
        """Whether any value in [low, high] (inclusive, from statistics) may satisfy the filter.

        Returns True whenever the statistics cannot tell (missing, NaN, incomparable types).
        """
        if not has_non_null:
            return False  # only nulls, which satisfy no filter
        if low is None or high is None or _is_nan(low) or _is_nan(high):
            return True
        values = self.python_values
        if any(_is_nan(v) for v in values):
            return True
        try:
            if self.op == "=":
                return bool(low <= values[0] <= high)
            if self.op == "!=":
                return not (low == high == values[0])
            if self.op == "<":
                return bool(low < values[0])
            if self.op == "<=":
                return bool(low <= values[0])
            if self.op == ">":
                return bool(high > values[0])
            if self.op == ">=":
                return bool(high >= values[0])
            if self.op == "in":
                return any(low <= v <= high for v in values)
            return not (low == high and low in values)
        except TypeError:
            return True


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def parse_filters(filters: Sequence[Sequence[Any]] | None, schema: pa.Schema) -> list[Filter]:
    """Validates `filters` against `schema` and coerces their values to the column types."""
    parsed: list[Filter] = []
    for entry in filters or ():
        if isinstance(entry, Filter):
            parsed.append(entry)
            continue
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise FilterError(f"a filter is a (column, op, value) triple, got {entry!r}")
        column, raw_op, value = entry
        op = _ALIASES.get(str(raw_op).strip().lower(), str(raw_op).strip().lower())
        if op not in OPERATORS:
            raise FilterError(
                f"unknown filter operator {raw_op!r} on column {column!r}; use one of {', '.join(OPERATORS)}"
            )
        index = schema.get_field_index(column)
        if index < 0:
            raise FilterError(f"filter on unknown column {column!r}; columns: {', '.join(schema.names)}")
        column_type = schema.field(index).type
        if pa.types.is_nested(column_type):
            raise FilterError(f"filters on nested column {column!r} ({column_type}) are not supported")
        if op in ("in", "not in"):
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
                raise FilterError(f"filter {column} {op} needs a list of values, got {value!r}")
            if not value:
                raise FilterError(f"filter {column} {op} needs at least one value")
            values = tuple(_coerce(v, column_type, column) for v in value)
        else:
            values = (_coerce(value, column_type, column),)
        parsed.append(Filter(column, op, values))
    return parsed


def _coerce(value: Any, column_type: pa.DataType, column: str) -> pa.Scalar:
    if value is None:
        raise FilterError(f"filter value for column {column!r} is None; null never matches a comparison")
    if isinstance(value, pa.Scalar):
        scalar = value
    else:
        try:
            return pa.scalar(value, type=column_type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
            pass
        try:
            scalar = pa.scalar(value)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as e:
            raise FilterError(f"filter value {value!r} does not fit column {column!r} ({column_type})") from e
    try:
        return scalar.cast(column_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        raise FilterError(f"filter value {value!r} does not fit column {column!r} ({column_type}): {e}") from e


def passing_rows(table: pa.Table, filters: Sequence[Filter]) -> npt.NDArray[np.int64]:
    """Ascending positions of the rows of `table` that pass every filter (only the filtered columns
    are touched; no row of the other columns is copied)."""
    passing: pa.Array | pa.ChunkedArray | None = None
    for f in filters:
        mask = f.mask(table.column(f.column))
        passing = mask if passing is None else pc.and_(passing, mask)
    if passing is None:
        return np.arange(table.num_rows, dtype=np.int64)
    if isinstance(passing, pa.ChunkedArray):
        passing = passing.combine_chunks()
    return np.flatnonzero(passing.to_numpy(zero_copy_only=False)).astype(np.int64)
