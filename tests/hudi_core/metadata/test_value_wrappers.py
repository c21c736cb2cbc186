"""Column statistics keep their value wrapper's branch through a decode and re-encode.

IntWrapper and DateWrapper (and LongWrapper and TimestampMicrosWrapper) hold the same shape. A
record decoded without its branch name and written again (a metadata-table compaction, widened
partition statistics) took the first matching branch, so a date's DateWrapper came back as an
IntWrapper; Apache Hudi then failed merging it with its own dates (`ClassCastException: Integer
cannot be cast to Date` in `HoodieColumnRangeMetadata.merge`).
"""

from __future__ import annotations

import datetime
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
