"""Before and after images of CDC rows: JSON strings (as Spark's Hudi CDC query returns them) or structs.

Hudi's Spark CDC reader renders an image with Jackson over Spark's internal row values, so the JSON
holds dates as days since the epoch, timestamps and times as microseconds, decimals as strings of
their exact digits, binary as base64 and text as raw UTF-8; NaN and infinities are the strings
Jackson writes ("NaN", "Infinity", "-Infinity"). Field order follows the table schema. Flat columns
are rendered with Arrow kernels, a column at a time; nested columns go through Python's json.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.file_group.log_file.cdc import struct_images

__all__ = ["json_images", "struct_images"]

_CONTROL = "[\\x00-\\x1f]"


def json_images(rows: pa.Table, present: np.ndarray) -> pa.Array:
    """Each row's columns as one JSON object; null where `present` is False."""
    if rows.num_rows == 0:
        return pa.array([], pa.string())
    members = [
        pc.binary_join_element_wise(pa.scalar(json.dumps(name, ensure_ascii=False) + ":"), _values(column), "")
        for name, column in zip(rows.column_names, rows.columns, strict=True)
    ]
    body = pc.binary_join_element_wise(*members, ",") if members else pa.repeat(pa.scalar(""), rows.num_rows)
    objects = pc.binary_join_element_wise("{", body, "}", "")
    result = pc.if_else(pa.array(present, pa.bool_()), objects, pa.scalar(None, pa.string()))
    return result.combine_chunks() if isinstance(result, pa.ChunkedArray) else result


def _values(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    """One column's values as JSON text ("null" for nulls)."""
    kind = column.type
    if pa.types.is_null(kind):
        return pa.repeat(pa.scalar("null"), len(column))
    if pa.types.is_boolean(kind) or pa.types.is_integer(kind):
        text = pc.cast(column, pa.string())
    elif pa.types.is_floating(kind):
        text = _floats(column)
    elif pa.types.is_date(kind):
        text = pc.cast(pc.cast(pc.cast(column, pa.date32()), pa.int32()), pa.string())
    elif pa.types.is_timestamp(kind):
        text = pc.cast(pc.cast(pc.cast(column, pa.timestamp("us", tz=kind.tz)), pa.int64()), pa.string())
    elif pa.types.is_time(kind):
        text = pc.cast(pc.cast(pc.cast(column, pa.time64("us")), pa.int64()), pa.string())
    elif pa.types.is_decimal(kind):
        text = _quoted(pc.cast(column, pa.string()))
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        text = _strings(pc.cast(column, pa.string()))
    else:  # binary and nested values
        text = pa.array(
            [None if v is None else _dumps(_json_value(v)) for v in column.to_pylist(maps_as_pydicts="strict")],
            pa.string(),
        )
    return pc.fill_null(text, "null")


def _floats(column: pa.ChunkedArray) -> pa.ChunkedArray:
    text = pc.cast(column, pa.string())
    text = pc.replace_substring_regex(text, r"^(-?\d+)$", r"\1.0")  # 10 -> 10.0: stays a float
    text = pc.replace_substring_regex(text, r"^(-?\d+)e", r"\1.0e")  # 1e+22 -> 1.0e+22
    for arrow_text, jackson_text in (("nan", '"NaN"'), ("inf", '"Infinity"'), ("-inf", '"-Infinity"')):
        text = pc.if_else(pc.equal(text, arrow_text), pa.scalar(jackson_text), text)
    return text


def _strings(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    escaped = pc.replace_substring(pc.replace_substring(column, "\\", "\\\\"), '"', '\\"')
    quoted = _quoted(escaped)
    has_control = pc.fill_null(pc.match_substring_regex(column, _CONTROL), False)
    if not pc.any(has_control).as_py():
        return quoted
    # Control characters need \uXXXX escapes: rare, so those values go through json.
    exact = pa.array([None if v is None else _dumps(v) for v in column.to_pylist()], pa.string())
    return pc.if_else(has_control, exact, quoted)


def _quoted(text: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    return pc.binary_join_element_wise('"', text, '"', "")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _json_value(value: Any) -> Any:
    """A Python value (from to_pylist) in the form Spark holds it internally."""
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
        delta = moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, datetime.date):
        return (value - datetime.date(1970, 1, 1)).days
    if isinstance(value, datetime.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    if isinstance(value, float) and not np.isfinite(value):
        return "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value
