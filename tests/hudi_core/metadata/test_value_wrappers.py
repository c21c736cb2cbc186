"""Column statistics keep their value wrapper's branch through a decode and re-encode.

IntWrapper and DateWrapper (and LongWrapper and TimestampMicrosWrapper) hold the same shape. A
record decoded without its branch name and written again (a metadata-table compaction, widened
partition statistics) took the first matching branch, so a date's DateWrapper came back as an
IntWrapper; Apache Hudi then failed merging it with its own dates (`ClassCastException: Integer
cannot be cast to Date` in `HoodieColumnRangeMetadata.merge`).
"""

from __future__ import annotations

import datetime
import decimal
import io
import json

import fastavro
import pyarrow as pa
import pytest

from hudi_core.metadata.column_stats import ColumnRange, column_stats_records, range_of, widen_records
from hudi_core.metadata.record import decode, encode, metadata_record_schema

SCHEMA = pa.schema([("day", pa.date32()), ("at", pa.timestamp("us", tz="UTC")), ("n", pa.int32())])
RANGES = [
    ColumnRange("day", datetime.date(2024, 1, 1), datetime.date(2024, 2, 1), 3, 0),
    ColumnRange(
        "at",
        datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC),
        datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC),
        3,
        0,
    ),
    ColumnRange("n", 1, 9, 3, 0),
]
BRANCHES = {"day": "DateWrapper", "at": "TimestampMicrosWrapper", "n": "IntWrapper"}


def _branches(value: bytes, schema_json: str) -> tuple[str, str]:
    record = fastavro.schemaless_reader(
        io.BytesIO(value), fastavro.parse_schema(json.loads(schema_json)), None, return_record_name=True
    )
    stats = record["ColumnStatsMetadata"]
    stats = stats[1] if isinstance(stats, tuple) else stats
    return stats["minValue"][0].rsplit(".", 1)[-1], stats["maxValue"][0].rsplit(".", 1)[-1]


@pytest.mark.parametrize("table_version", [8, 9])
def test_decoded_statistics_are_written_back_in_their_own_branch(table_version: int) -> None:
    schema = metadata_record_schema(table_version)
    for record in column_stats_records("p", "f.parquet", RANGES, SCHEMA).values():
        decoded = decode(encode(record, schema), schema.stored_json)
        again = encode(decoded, schema)
        column = decoded["ColumnStatsMetadata"]["columnName"]
        assert _branches(again, schema.stored_json) == (BRANCHES[column], BRANCHES[column])
        widened = encode(widen_records(decoded, decode(again, schema.stored_json)), schema)
        assert _branches(widened, schema.stored_json) == (BRANCHES[column], BRANCHES[column])
        expected = next(r for r in RANGES if r.column == column)
        found = range_of(decoded, SCHEMA.field(column).type)
        assert found is not None and (found.min_value, found.max_value) == (expected.min_value, expected.max_value)


# What Apache Hudi 1.2 writes at table version 9 for the minimum of each column (one row of each
# type: b=False, i8=1, f32=1.5, bin=b"x", d=2024-01-01, dec(10,2)=-3.50, dec(30,6)=-3.5,
# tsu=2024-01-01T01:00Z, tsntz=2024-01-01T01:00).
TYPED_SCHEMA = pa.schema(
    [
        ("b", pa.bool_()),
        ("i8", pa.int8()),
        ("f32", pa.float32()),
        ("bin", pa.binary()),
        ("d", pa.date32()),
        ("dec", pa.decimal128(10, 2)),
        ("dec30", pa.decimal128(30, 6)),
        ("tsu", pa.timestamp("us", tz="UTC")),
        ("tsntz", pa.timestamp("us")),
    ]
)
APACHE_V9_MINIMA = {
    "b": (2, None, "BooleanWrapper", False),
    "i8": (3, None, "IntWrapper", 1),
    "f32": (5, None, "FloatWrapper", 1.5),
    "bin": (8, None, "BytesWrapper", b"x"),
    "d": (12, None, "IntWrapper", 19723),
    "dec": (10, "10,2", "BytesWrapper", b"\xfe\xa2"),
    "dec30": (10, "30,6", "BytesWrapper", b"\xca\x98 "),
    "tsu": (16, None, "LongWrapper", 1704070800000000),
    "tsntz": (19, None, "LongWrapper", 1704070800000000),
}


def test_version_9_statistics_name_their_value_type_as_apache_hudi_writes_them() -> None:
    row = {
        "b": False,
        "i8": 1,
        "f32": 1.5,
        "bin": b"x",
        "d": datetime.date(2024, 1, 1),
        "dec": decimal.Decimal("-3.50"),
        "dec30": decimal.Decimal("-3.500000"),
        "tsu": datetime.datetime(2024, 1, 1, 1, tzinfo=datetime.UTC),
        "tsntz": datetime.datetime(2024, 1, 1, 1),
    }
    ranges = [ColumnRange(c, v, v, 1, 0) for c, v in row.items()]
    schema = metadata_record_schema(9)
    for record in column_stats_records("p", "f.parquet", ranges, TYPED_SCHEMA, typed=True).values():
        encoded = encode(record, schema)
        raw = fastavro.schemaless_reader(
            io.BytesIO(encoded), fastavro.parse_schema(json.loads(schema.stored_json)), None, return_record_name=True
        )
        stats = raw["ColumnStatsMetadata"]
        stats = stats[1] if isinstance(stats, tuple) else stats
        column = stats["columnName"]
        ordinal, info, branch, value = APACHE_V9_MINIMA[column]
        assert stats["valueType"][1] == {"typeOrdinal": ordinal, "additionalInfo": info}, column
        assert stats["minValue"] == (f"org.apache.hudi.avro.model.{branch}", {"value": value}), column
        found = range_of(decode(encoded, schema.stored_json), TYPED_SCHEMA.field(column).type)
        assert found is not None and found.min_value == row[column], column
