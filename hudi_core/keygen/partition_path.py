"""Partition path segments: value strings, Hive-style naming, null markers and escaping (notes §7).

A null or empty value becomes `__HIVE_DEFAULT_PARTITION__` (`default` before 0.12). With
`hoodie.datasource.write.partitionpath.urlencode` values are escaped as Hive's
`FileUtils.escapePathName` does: `%XX` (uppercase hex) for control characters and
`" # % ' * / : = ? \\ {  [ ] ^` and DEL.
"""

from __future__ import annotations

import decimal
import math
import unicodedata
import urllib.parse
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
LEGACY_DEFAULT_PARTITION = "default"

_ESCAPED = frozenset(chr(c) for c in range(1, 0x20)) | frozenset("\"#%'*/:=?\\\x7f{[]^")
METAFOLDER_PREFIX = ".hoodie"
MAX_SEGMENT_BYTES = 255  # the longest file name local file systems take


def segment_problem(segment: str) -> str | None:
    """Why `segment` cannot be a folder of a partition path inside the table, or None.

    These are paths no writer may produce and no reader may follow: an empty segment (`a//b`, a
    leading or trailing `/`), `.` or `..` (they name another folder), and names starting with
    `.hoodie` (the table's metadata folder and partition metafiles).
    """
    if segment in ("", ".", ".."):
        return f"a path segment {segment!r}" if segment else "an empty path segment"
    if segment.startswith(METAFOLDER_PREFIX):
        return f"a path segment {segment!r} starting with {METAFOLDER_PREFIX!r} (Hudi's metadata)"
    return None


def written_segment_problem(segment: str) -> str | None:
    """Why a writer must not create `segment`: :func:`segment_problem`, `.hoodie` anywhere in it
    (Hudi's storage listing skips every such path), a control character (readers and file systems
    treat NUL, newlines and the like differently), or more than 255 bytes."""
    problem = segment_problem(segment)
    if problem is not None:
        return problem
    if METAFOLDER_PREFIX in segment:
        return f"a path segment {segment!r} containing {METAFOLDER_PREFIX!r} (Hudi's listing skips it)"
    control = next((ch for ch in segment if unicodedata.category(ch) == "Cc"), None)
    if control is not None:
        return f"a control character (U+{ord(control):04X}) in a path segment"
    size = len(segment.encode("utf-8"))
    if size > MAX_SEGMENT_BYTES:
        return f"a path segment of {size} bytes (file systems take {MAX_SEGMENT_BYTES})"
    return None


def partition_path_problem(path: str) -> str | None:
    """Why `path` cannot be a partition path inside the table ("" is the root), or None."""
    if not path:
        return None
    return next((p for p in map(segment_problem, path.split("/")) if p is not None), None)


def escape_path_name(value: str) -> str:
    """Hive's `escapePathName`."""
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def unescape_path_name(value: str) -> str:
    return urllib.parse.unquote(value)


def java_double_string(value: float) -> str:
    """Java's `Double.toString`: the shortest digits, at least one after the point, and scientific
    notation (`1.0E10`) below 1e-3 and from 1e7."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text else text + ".0"
    sign, digits, exponent = decimal.Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digits))
    return f"{'-' if sign else ''}{mantissa[0]}.{mantissa[1:] or '0'}E{len(mantissa) - 1 + exponent}"


def value_strings(column: Any, field: str) -> pa.Array | pa.ChunkedArray:
    """A column's values as Hudi's key generators print them (dates ISO, times as epoch numbers).

    Timestamps print as their epoch-microsecond number, as Hudi's Avro key generators do without
    `consistent.logical.timestamp.enabled`; floating-point values as Java prints them (`1.0`).
    """
    if pa.types.is_floating(column.type):
        uniques = pc.unique(column)
        texts = pa.array([None if v is None else java_double_string(v) for v in uniques.to_pylist()], pa.string())
        return pc.take(texts, pc.index_in(column, value_set=uniques))
    if pa.types.is_timestamp(column.type):
        column = pc.cast(pc.cast(column, pa.timestamp("us", tz=getattr(column.type, "tz", None))), pa.int64())
    elif pa.types.is_boolean(column.type):
        return pc.if_else(column, "true", "false")
    return pc.cast(column, pa.string())


def segments(values: Any, field: str, hive_style: bool, url_encode: bool) -> pa.Array | pa.ChunkedArray:
    """The partition path segment of each value (`field=value` when Hive style)."""
    text = pc.if_else(pc.fill_null(pc.equal(values, ""), True), HIVE_DEFAULT_PARTITION, values)
    if url_encode:
        uniques = pc.unique(text)
        escaped = pa.array([escape_path_name(v) for v in uniques.to_pylist()], pa.string())
        text = pc.take(escaped, pc.index_in(text, value_set=uniques))
    if hive_style:
        text = pc.binary_join_element_wise(f"{field}=", text, "")
    return text
