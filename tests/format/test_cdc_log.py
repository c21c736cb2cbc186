"""CDC log files have the layout Hudi 1.0's `HoodieCDCLogger` writes (notes §10).

No CDC-enabled table is in the corpus, so the expected layout comes from Hudi's sources
(`HoodieCDCUtils.schemaBySupplementalLoggingMode`, `HoodieCDCLogger`): checked here by framing the
blocks by hand and decoding every record with fastavro in the block's own schema.
"""

from __future__ import annotations

import io
import json
import re
import struct
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("ts", pa.int64()), ("city", pa.string())])
DATA_RECORD = "hoodie.cdc_shape.cdc_shape_record"
CDC_FILE = re.compile(r"^\.[0-9a-f-]+-0_(\d{17})\.log\.1_\d+-\d+-\d+\.cdc$")


def _blocks(data: bytes) -> list[tuple[int, dict[int, str], bytes]]:
    """(type, header, content) of every block, framed as notes §4.1 describes."""
    blocks, pos = [], 0
    while pos < len(data):
        assert data[pos : pos + 6] == b"#HUDI#"
        (length,) = struct.unpack_from(">q", data, pos + 6)
        version, kind = struct.unpack_from(">ii", data, pos + 14)
        assert version == 1
        cursor, header = pos + 22, {}
        (entries,) = struct.unpack_from(">i", data, cursor)
        cursor += 4
        for _ in range(entries):
            key, size = struct.unpack_from(">ii", data, cursor)
            header[key] = data[cursor + 8 : cursor + 8 + size].decode()
            cursor += 8 + size
        (content_length,) = struct.unpack_from(">q", data, cursor)
        content = data[cursor + 8 : cursor + 8 + content_length]
        cursor += 8 + content_length
        (footer_entries,) = struct.unpack_from(">i", data, cursor)
        assert footer_entries == 0
        (reverse,) = struct.unpack_from(">q", data, cursor + 4)
        assert reverse == length + 6
        blocks.append((kind, header, content))
        pos = pos + 14 + length
    return blocks


def _records(header: dict[int, str], content: bytes) -> list[dict[str, Any]]:
    version, count = struct.unpack_from(">ii", content, 0)
    assert version == 3
    schema = fastavro.parse_schema(json.loads(header[2]))
    records, pos = [], 8
    for _ in range(count):
        (size,) = struct.unpack_from(">i", content, pos)
        records.append(fastavro.schemaless_reader(io.BytesIO(content[pos + 4 : pos + 4 + size]), schema))
        pos += 4 + size
    assert pos == len(content)
    return records


def _nullable(name: str, avro_type: Any) -> dict[str, Any]:
    return {"name": name, "type": ["null", avro_type], "doc": "", "default": None}


def _expected_schema(mode: str, data_schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "OP_KEY_ONLY":
        return {
            "type": "record",
            "name": "Record",
            "fields": [{"name": "op", "type": ["string", "null"]}, {"name": "record_key", "type": ["string", "null"]}],
        }
    if mode == "DATA_BEFORE":
        fields = [_nullable("op", "string"), _nullable("record_key", "string"), _nullable("before", data_schema)]
    else:
        fields = [
            _nullable("op", "string"),
            _nullable("ts_ms", "string"),
            _nullable("before", data_schema),
            _nullable("after", DATA_RECORD),
        ]
    return {"type": "record", "name": "CDC", "namespace": "hoodie.cdc_shape", "doc": "", "fields": fields}


@pytest.mark.parametrize("mode", ["OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER"])
def test_cdc_log_layout(mode: str, tmp_path: Path) -> None:
    options = {"hoodie.table.cdc.enabled": "true", "hoodie.table.cdc.supplemental.logging.mode": mode}
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "cdc_shape", ["id"], ["city"], ["ts"], options=options)
    first = pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"], "ts": [1, 1, 1], "city": ["sf"] * 3}, schema=SCHEMA)
    table.insert(first)
    assert not list((tmp_path / "t").rglob("*.cdc")), "a new base file of inserts logs no CDC"
    change = pa.table({"id": [2, 4], "name": ["B", "d"], "ts": [2, 2], "city": ["sf", "sf"]}, schema=SCHEMA)
    result = table.upsert(change)
    table.delete(pa.table({"id": [1], "name": ["a"], "ts": [3], "city": ["sf"]}, schema=SCHEMA))

    (stat,) = result.write_stats
    assert stat.cdc_stats is not None
    ((relative, size),) = stat.cdc_stats.items()
    path = tmp_path / "t" / relative
    assert path.stat().st_size == size
    match = CDC_FILE.match(path.name)
    assert match is not None and match.group(1) == result.instant_time
    assert (tmp_path / "t" / stat.path).parent == path.parent

    ((kind, header, content),) = _blocks(path.read_bytes())
    assert kind == 6  # CDC_DATA
    assert set(header) == {0, 2}  # INSTANT_TIME, SCHEMA
    assert header[0] == result.instant_time
    data_schema = json.loads(table.timeline.commit_metadata(table.timeline.get(result.instant_time)).schema or "")
    assert json.loads(header[2]) == _expected_schema(mode, data_schema)

    by_key = {}
    for record in _records(header, content):
        key = record.get("record_key") or str((record.get("after") or record.get("before"))["id"])
        by_key[key] = record
    assert {k: r["op"] for k, r in by_key.items()} == {"2": "u", "4": "i"}
    if mode != "OP_KEY_ONLY":
        assert by_key["2"]["before"] == {"id": 2, "name": "b", "ts": 1, "city": "sf"}
        assert by_key["4"]["before"] is None
    if mode == "DATA_BEFORE_AFTER":
        assert by_key["2"]["ts_ms"] == result.instant_time
        assert by_key["2"]["after"] == {"id": 2, "name": "B", "ts": 2, "city": "sf"}


def test_merge_on_read_deltacommits_log_no_cdc(tmp_path: Path) -> None:
    options = {"hoodie.table.cdc.enabled": "true"}
    table = HudiTable.create(
        str(tmp_path / "t"), SCHEMA, "cdc_shape", ["id"], ["city"], ["ts"], "MERGE_ON_READ", options
    )
    rows = pa.table({"id": [1, 2], "name": ["a", "b"], "ts": [1, 1], "city": ["sf", "sf"]}, schema=SCHEMA)
    table.insert(rows)
    table.upsert(rows)
    assert not list((tmp_path / "t").rglob("*.cdc"))
    assert [r["op"] for r in table.read_cdc("earliest").to_pylist()] == ["i", "i", "u", "u"]
