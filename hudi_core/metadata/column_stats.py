"""Column statistics of data files: computed from Parquet footers or Arrow data, kept in the
`column_stats` and `partition_stats` partitions, and used to skip files and partitions.

A statistics entry holds min/max as Hudi's wrapper records (`{"value": ...}` in the branch of the
column's type), so comparing two entries or a filter with an entry goes through `unwrap`, which
turns the wrapped value back into the Python value pyarrow gives for that column type.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_core.expr import Filter
from hudi_core.metadata.keys import column_stats_key, partition_stats_key
from hudi_core.metadata.record import MetadataRecord, RecordType, new_record, partition_name
from hudi_core.schema.meta_fields import COMMIT_TIME, PARTITION_PATH, RECORD_KEY
from hudi_core.schema.wrappers import NAMESPACE, raw_values, wrap_value

# Meta columns Hudi indexes along with the data columns.
INDEXED_META_COLUMNS = (COMMIT_TIME, RECORD_KEY, PARTITION_PATH)


@dataclass(frozen=True)
class ColumnRange:
    """One column's statistics in one file (or, for partition stats, one partition)."""

    column: str
    min_value: Any  # Python value, None when the column has only nulls
    max_value: Any
    value_count: int
    null_count: int
    total_size: int = 0
    total_uncompressed_size: int = 0

    def may_match(self, filter_: Filter) -> bool:
        return filter_.may_match_range(self.min_value, self.max_value, self.value_count > self.null_count)


def indexable_columns(schema: pa.Schema, wanted: Sequence[str] = (), limit: int = 32) -> list[str]:
    """The columns whose statistics are kept: `wanted`, or the meta and top-level primitive columns."""
    primitive = [f.name for f in schema if _is_orderable(f.type)]
    if wanted:
        return [c for c in wanted if c in primitive]
    data = [c for c in primitive if c not in INDEXED_META_COLUMNS and not c.startswith("_hoodie_")]
    return [c for c in INDEXED_META_COLUMNS if c in primitive] + data[:limit]


def _is_orderable(kind: pa.DataType) -> bool:
    return not (
        pa.types.is_nested(kind) or pa.types.is_null(kind) or pa.types.is_dictionary(kind) or pa.types.is_map(kind)
    )


def parquet_ranges(metadata: pq.FileMetaData, columns: Iterable[str]) -> list[ColumnRange]:
    """Column ranges of a Parquet file from its footer: row-group statistics combined."""
    schema = metadata.schema.to_arrow_schema()
    wanted = set(columns)
    ranges: list[ColumnRange] = []
    for index in range(metadata.num_columns):
        path = metadata.schema.column(index).path
        if path not in wanted:
            continue
        arrow_type = schema.field(path).type
        low: Any = None
        high: Any = None
        nulls = size = uncompressed = 0
        known = True
        for group in range(metadata.num_row_groups):
            chunk = metadata.row_group(group).column(index)
            size += chunk.total_compressed_size
            uncompressed += chunk.total_uncompressed_size
            stats = chunk.statistics
            if stats is None or not stats.has_null_count:
                known = False
                continue
            nulls += stats.null_count
            if stats.has_min_max:
                low = stats.min if low is None else min(low, stats.min)
                high = stats.max if high is None else max(high, stats.max)
            elif stats.null_count < chunk.num_values:
                known = False
        if not known:
            continue
        low, high = _as_column_value(low, arrow_type), _as_column_value(high, arrow_type)
        ranges.append(ColumnRange(path, low, high, metadata.num_rows, nulls, size, uncompressed))
    return ranges


def _as_column_value(value: Any, arrow_type: pa.DataType) -> Any:
    """A footer statistic as the Python value of its column type (footers give naive datetimes)."""
    if value is None:
        return None
    try:
        return pa.scalar(value, type=arrow_type).as_py()
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return value


def arrow_ranges(table: pa.Table, columns: Iterable[str]) -> list[ColumnRange]:
    """Column ranges of records held in memory (log blocks)."""
    ranges: list[ColumnRange] = []
    for column in columns:
        if column not in table.column_names:
            continue
        values = table.column(column)
        bounds = pc.min_max(values)
        size = values.nbytes
        ranges.append(
            ColumnRange(
                column,
                bounds["min"].as_py(),
                bounds["max"].as_py(),
                len(values),
                values.null_count,
                size,
                size,
            )
        )
    return ranges


def _wrapped(value: Any, arrow_type: pa.DataType, typed: bool) -> Any:
    if value is None:
        return None
    raw = raw_values(pa.array([value], type=arrow_type))[0]
    if not typed:
        return wrap_value(raw, arrow_type)
    info = value_type(arrow_type)
    if info is None:
        return None
    if pa.types.is_decimal(arrow_type):
        unscaled = int(decimal.Decimal(raw).scaleb(arrow_type.scale))
        width = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1  # Java BigInteger.toByteArray
        return f"{NAMESPACE}.BytesWrapper", {"value": unscaled.to_bytes(width, "big", signed=True)}
    plain = {_DATE: pa.int32(), _TIMESTAMP_MICROS: pa.int64(), _LOCAL_TIMESTAMP_MICROS: pa.int64()}
    return wrap_value(raw, plain.get(info["typeOrdinal"], arrow_type))


# Column statistics of table version 9 (Hudi 1.1+'s column_stats index version V2) name their value
# type (`HoodieValueTypeInfo`, ordinals of Hudi's `ValueType`) and keep the value in its plain
# wrapper: a date is an IntWrapper of days, a timestamp a LongWrapper of micros, a decimal a
# BytesWrapper of its unscaled two's-complement bytes with "precision,scale". Checked against
# Apache Hudi 1.2's files; other types get no statistics.
_BOOLEAN, _INT, _LONG, _FLOAT, _DOUBLE, _STRING, _BYTES = 2, 3, 4, 5, 6, 7, 8
_DECIMAL, _DATE, _TIMESTAMP_MICROS, _LOCAL_TIMESTAMP_MICROS = 10, 12, 16, 19


def value_type(arrow_type: pa.DataType) -> dict[str, Any] | None:
    """The `HoodieValueTypeInfo` of a column type (None: no typed statistics for it)."""
    t = pa.types
    ordinal: int | None = None
    info: str | None = None
    if t.is_boolean(arrow_type):
        ordinal = _BOOLEAN
    elif t.is_int8(arrow_type) or t.is_int16(arrow_type) or t.is_int32(arrow_type):
        ordinal = _INT
    elif t.is_int64(arrow_type):
        ordinal = _LONG
    elif t.is_float32(arrow_type):
        ordinal = _FLOAT
    elif t.is_float64(arrow_type):
        ordinal = _DOUBLE
    elif t.is_string(arrow_type) or t.is_large_string(arrow_type):
        ordinal = _STRING
    elif t.is_binary(arrow_type) or t.is_large_binary(arrow_type):
        ordinal = _BYTES
    elif t.is_decimal(arrow_type):
        ordinal, info = _DECIMAL, f"{arrow_type.precision},{arrow_type.scale}"
    elif t.is_date32(arrow_type):
        ordinal = _DATE
    elif t.is_timestamp(arrow_type):
        ordinal = _TIMESTAMP_MICROS if arrow_type.tz else _LOCAL_TIMESTAMP_MICROS
    return None if ordinal is None else {"typeOrdinal": ordinal, "additionalInfo": info}


def stats_payload(
    file_name: str,
    column: ColumnRange | None,
    column_name: str,
    arrow_type: pa.DataType | None,
    deleted: bool,
    typed: bool = False,
) -> dict[str, Any]:
    """A `HoodieMetadataColumnStats` record (a deletion when `deleted`; `typed`: table version 9's
    form, see `value_type`)."""
    if column is None or arrow_type is None:
        return {
            "fileName": file_name,
            "columnName": column_name,
            "minValue": None,
            "maxValue": None,
            "valueCount": None,
            "nullCount": None,
            "totalSize": None,
            "totalUncompressedSize": None,
            "isDeleted": deleted,
            "isTightBound": False,
        }
    return {
        "fileName": file_name,
        "columnName": column_name,
        "minValue": _wrapped(column.min_value, arrow_type, typed),
        "maxValue": _wrapped(column.max_value, arrow_type, typed),
        "valueCount": column.value_count,
        "nullCount": column.null_count,
        "totalSize": column.total_size,
        "totalUncompressedSize": column.total_uncompressed_size,
        "isDeleted": deleted,
        "isTightBound": False,
        **({"valueType": value_type(arrow_type)} if typed else {}),
    }


def column_stats_records(
    partition: str, file_name: str, ranges: Sequence[ColumnRange], schema: pa.Schema, typed: bool = False
) -> dict[str, MetadataRecord]:
    """`column_stats` entries of one file, by metadata-table key (`typed`: see `stats_payload`)."""
    return {
        column_stats_key(r.column, partition, file_name): new_record(
            RecordType.COLUMN_STATS,
            ColumnStatsMetadata=stats_payload(file_name, r, r.column, schema.field(r.column).type, False, typed),
        )
        for r in ranges
    }


def deleted_stats_records(partition: str, file_name: str, columns: Sequence[str]) -> dict[str, MetadataRecord]:
    """`column_stats` deletions of a removed file."""
    return {
        column_stats_key(c, partition, file_name): new_record(
            RecordType.COLUMN_STATS, ColumnStatsMetadata=stats_payload(file_name, None, c, None, True)
        )
        for c in columns
    }


def partition_stats_records(
    partition: str, ranges: Sequence[ColumnRange], schema: pa.Schema, typed: bool = False
) -> dict[str, MetadataRecord]:
    """`partition_stats` entries: one range per column for the whole partition (widened on merge)."""
    by_column: dict[str, ColumnRange] = {}
    for r in ranges:
        by_column[r.column] = widen(by_column[r.column], r) if r.column in by_column else r
    name = partition_name(partition)
    return {
        partition_stats_key(c, partition): new_record(
            RecordType.PARTITION_STATS,
            ColumnStatsMetadata=stats_payload(name, r, c, schema.field(c).type, False, typed),
        )
        for c, r in by_column.items()
    }


def widen(a: ColumnRange, b: ColumnRange) -> ColumnRange:
    return ColumnRange(
        a.column,
        _bound(a.min_value, b.min_value, min),
        _bound(a.max_value, b.max_value, max),
        a.value_count + b.value_count,
        a.null_count + b.null_count,
        a.total_size + b.total_size,
        a.total_uncompressed_size + b.total_uncompressed_size,
    )


def _bound(a: Any, b: Any, pick: Any, value: Any = lambda v: v) -> Any:
    """`a` or `b`, whichever `pick` (min or max) chooses by `value`; the known one when the other is None."""
    if a is None:
        return b
    if b is None:
        return a
    try:
        return a if pick(value(a), value(b)) == value(a) else b
    except (TypeError, KeyError):
        return a


def unwrap(wrapped: Any, arrow_type: pa.DataType | None) -> Any:
    """A wrapper record's value as the Python value of the column type (or its raw form)."""
    if wrapped is None:
        return None
    if isinstance(wrapped, tuple):  # (branch name, record), as decoded
        wrapped = wrapped[1]
    value = wrapped.get("value") if isinstance(wrapped, Mapping) else wrapped
    if value is None or arrow_type is None:
        return value
    if isinstance(value, decimal.Decimal) and pa.types.is_decimal(arrow_type):
        return value
    if isinstance(value, bytes) and pa.types.is_decimal(arrow_type):  # typed: unscaled two's complement
        return decimal.Decimal(int.from_bytes(value, "big", signed=True)).scaleb(-arrow_type.scale)
    if pa.types.is_date(arrow_type):
        return pa.scalar(int(value), type=pa.date32()).as_py()
    if pa.types.is_timestamp(arrow_type):
        return pa.scalar(int(value), type=pa.timestamp("us", tz=arrow_type.tz)).as_py()
    if pa.types.is_time(arrow_type):
        return pa.scalar(int(value), type=pa.time64("us")).as_py()
    return value


def range_of(record: MetadataRecord, arrow_type: pa.DataType | None) -> ColumnRange | None:
    """The ColumnRange a `column_stats`/`partition_stats` record holds (None for a deletion)."""
    stats = record.get("ColumnStatsMetadata")
    if not stats or stats.get("isDeleted"):
        return None
    return ColumnRange(
        stats["columnName"],
        unwrap(stats.get("minValue"), arrow_type),
        unwrap(stats.get("maxValue"), arrow_type),
        int(stats.get("valueCount") or 0),
        int(stats.get("nullCount") or 0),
        int(stats.get("totalSize") or 0),
        int(stats.get("totalUncompressedSize") or 0),
    )


def widen_records(older: MetadataRecord, newer: MetadataRecord) -> MetadataRecord:
    """Partition statistics after more files: the union of both ranges, counts summed."""
    old, new = older.get("ColumnStatsMetadata"), newer.get("ColumnStatsMetadata")
    if not old or old.get("isDeleted"):
        return newer
    if not new or new.get("isDeleted"):
        return older
    merged = dict(new)
    merged["minValue"] = _bound(old.get("minValue"), new.get("minValue"), min, _wrapped_value)
    merged["maxValue"] = _bound(old.get("maxValue"), new.get("maxValue"), max, _wrapped_value)
    for count in ("valueCount", "nullCount", "totalSize", "totalUncompressedSize"):
        merged[count] = (old.get(count) or 0) + (new.get(count) or 0)
    merged["isTightBound"] = False
    return {**newer, "ColumnStatsMetadata": merged}


def _wrapped_value(wrapped: Mapping[str, Any] | tuple[str, Mapping[str, Any]]) -> Any:
    return (wrapped[1] if isinstance(wrapped, tuple) else wrapped)["value"]


def may_contain(ranges: Mapping[str, ColumnRange | None], filters: Sequence[Filter]) -> bool:
    """Whether a file (or partition) with these column ranges may hold rows matching all `filters`.

    A column without statistics can never rule a file out.
    """
    for filter_ in filters:
        found = ranges.get(filter_.column)
        if found is not None and not found.may_match(filter_):
            return False
    return True
