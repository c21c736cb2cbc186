"""Merge-on-Read reads of logs the corpus lacks, written by the test into a copy of a real table.

`v8_mor_boundary_windows` (Hudi 1.x, EVENT_TIME_ORDERING on `ts`) holds d(ts 1000, fare 40) in its
base file and a(2000), b(3000), c(4000) updates in three log files. The test appends a log file
(in the last deltacommit) with: a data block whose writer schema has narrower types (ts int, fare
float), a damaged block, a delete block with LongWrapper/IntWrapper ordering values, and another
data block with fare as int.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.file_group.log_file.avro_codec import encode_datums
from hudi_core.file_group.log_file.format import BlockType, HeaderKey, encode_block
from hudi_core.schema.wrappers import DELETE_RECORD_LIST_SCHEMA
from tests import hudi_rs
from tests.corpus import as_multiset, normalize_rows

TABLE = "quickstart_trips_table/mor/avro/v8_mor_boundary_windows"
FILE_ID = "8098eb35-00e1-488a-8e15-46b7fbdf3248-0"
INSTANT = "20260808010724567"  # the last completed deltacommit
META = [
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
]


def _writer_schema(ts_type: str, fare_type: str) -> dict[str, Any]:
    fields = [{"name": m, "type": ["null", "string"], "default": None} for m in META]
    fields += [
        {"name": "ts", "type": ["null", ts_type], "default": None},
        {"name": "uuid", "type": ["null", "string"], "default": None},
        {"name": "rider", "type": ["null", "string"], "default": None},
        {"name": "fare", "type": ["null", fare_type], "default": None},
    ]
    return {"type": "record", "name": "fixture_tbl_record", "namespace": "hoodie.fixture_tbl", "fields": fields}


def _data_block(rows: list[tuple[str, int, Any]], ts_type: str, fare_type: str) -> bytes:
    schema = _writer_schema(ts_type, fare_type)
    table = pa.table(
        {
            "_hoodie_commit_time": [INSTANT] * len(rows),
            "_hoodie_commit_seqno": [f"{INSTANT}_0_{i}" for i in range(len(rows))],
            "_hoodie_record_key": [r[0] for r in rows],
            "_hoodie_partition_path": [""] * len(rows),
            "_hoodie_file_name": [FILE_ID] * len(rows),
            "ts": [r[1] for r in rows],
            "uuid": [r[0] for r in rows],
            "rider": [f"rider-{r[0]}" for r in rows],
            "fare": [r[2] for r in rows],
        }
    )
    data, offsets = encode_datums(schema, table)
    records = b"".join(
        struct.pack(">i", int(offsets[i + 1] - offsets[i])) + data[offsets[i] : offsets[i + 1]]
        for i in range(len(rows))
    )
    content = struct.pack(">ii", 3, len(rows)) + records
    return encode_block(
        BlockType.AVRO_DATA, {HeaderKey.INSTANT_TIME: INSTANT, HeaderKey.SCHEMA: json.dumps(schema)}, content
    )


def _delete_block(deletes: list[tuple[str, str, int]]) -> bytes:
    records = [
        {"recordKey": key, "partitionPath": "", "orderingVal": (f"org.apache.hudi.avro.model.{kind}", {"value": value})}
        for key, kind, value in deletes
    ]
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, fastavro.parse_schema(DELETE_RECORD_LIST_SCHEMA), {"deleteRecordList": records})
    datum = buffer.getvalue()
    content = struct.pack(">ii", 3, len(datum)) + datum
    header = {HeaderKey.INSTANT_TIME: INSTANT, HeaderKey.SCHEMA: json.dumps(_writer_schema("long", "double"))}
    return encode_block(BlockType.DELETE, header, content)


def _damaged_block() -> bytes:
    block = bytearray(_data_block([("zzz", 1, 1.0)], "long", "double"))
    block[-2] ^= 0x55  # a torn reverse pointer: the frame check fails
    return bytes(block)


def _append_log(base: Path, *blocks: bytes) -> None:
    (base / f".{FILE_ID}_{INSTANT}.log.2_0-99-99").write_bytes(b"".join(blocks))


EXPECTED = {"a": (5000, 1.5), "b": (3000, 22.0), "d": (1000, 40.0), "f": (7, 7.0)}


def _rows(table: pa.Table) -> dict[str, tuple[int, float]]:
    return {r["uuid"]: (r["ts"], r["fare"]) for r in table.select(["uuid", "ts", "fare"]).to_pylist()}


@pytest.fixture
def table_with_extra_log(corpus_copy: Callable[[str], Path]) -> tuple[Path, list[bytes]]:
    base = corpus_copy(TABLE)
    blocks = [
        # a: newer event wins; d: late event (500 < 1000) loses to the base row; e: new row.
        _data_block([("a", 5000, 1.5), ("d", 500, 9.9), ("e", 10, 2.0)], ts_type="int", fare_type="float"),
        # b: delete older than the stored event (2999 < 3000) is ignored; c: equal event deletes.
        _delete_block([("b", "LongWrapper", 2999), ("c", "LongWrapper", 4000)]),
        # e: IntWrapper(0) deletes unconditionally (Hudi writes one wrapper type per block).
        _delete_block([("e", "IntWrapper", 0)]),
        _data_block([("f", 7, 7)], ts_type="int", fare_type="int"),
    ]
    return base, blocks


def test_read_synthetic_log_promotions_deletes_and_ordering(table_with_extra_log: tuple[Path, list[bytes]]) -> None:
    base, blocks = table_with_extra_log
    _append_log(base, *blocks)
    result = HudiTable(str(base)).read()
    assert result.schema.field("ts").type == pa.int64() and result.schema.field("fare").type == pa.float64()
    assert _rows(result) == EXPECTED
    theirs = hudi_rs.snapshot(base)
    assert as_multiset(normalize_rows(result)) == as_multiset(normalize_rows(theirs))


def test_read_synthetic_log_corrupt_middle_block_rest_still_read(
    table_with_extra_log: tuple[Path, list[bytes]],
) -> None:
    base, (first, *rest) = table_with_extra_log
    _append_log(base, first, _damaged_block(), *rest)
    assert _rows(HudiTable(str(base)).read()) == EXPECTED
