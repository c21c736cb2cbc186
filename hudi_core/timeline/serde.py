"""Decoding instant files: Avro object containers (layout 2, and plans everywhere) or JSON (layout 1).

Hudi 1.x writes completed instants as Avro object container files with one record and the
writer schema embedded (spec notes §1.4); 0.x wrote commit metadata as Jackson JSON (§1.6).
Empty files carry no content (requested commits, most inflight files).
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import fastavro

from hudi_core.errors import FileFormatError

AVRO_MAGIC = b"Obj\x01"


def decode_instant_content(data: bytes, where: str) -> dict[str, Any] | None:
    """The single record of an instant file as a dict, or None for an empty file."""
    if not data.strip():
        return None
    if data.startswith(AVRO_MAGIC):
        try:
            records = list(fastavro.reader(io.BytesIO(data)))
        except Exception as e:  # fastavro raises many exception types on corrupt bytes
            raise FileFormatError(f"{where}: unreadable Avro instant file: {e}") from e
        if len(records) != 1 or not isinstance(records[0], dict):
            raise FileFormatError(f"{where}: expected one Avro record, found {len(records)}")
        return records[0]
    try:
        decoded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FileFormatError(f"{where}: instant file is neither Avro nor JSON: {e}") from e
    if not isinstance(decoded, dict):
        raise FileFormatError(f"{where}: instant file JSON is not an object")
    return decoded


def _zigzag(value: int) -> bytes:
    encoded = (value << 1) ^ (value >> 63)
    out = bytearray()
    while encoded & ~0x7F:
        out.append((encoded & 0x7F) | 0x80)
        encoded >>= 7
    out.append(encoded)
    return bytes(out)


def _avro_bytes(value: bytes) -> bytes:
    return _zigzag(len(value)) + value


def encode_avro_container(schema: dict[str, Any], record: dict[str, Any]) -> bytes:
    """One record as an Avro object container, as Hudi's `DataFileWriter` writes instant files.

    Hudi's containers carry only the `avro.schema` metadata key (codec null is implied) and one
    data block; the schema text is the compact JSON of the writer schema.
    """
    datum = io.BytesIO()
    fastavro.schemaless_writer(datum, fastavro.parse_schema(schema), record)
    body = datum.getvalue()
    schema_text = json.dumps(schema, separators=(",", ":")).encode("utf-8")
    sync = os.urandom(16)
    header = AVRO_MAGIC + _zigzag(1) + _avro_bytes(b"avro.schema") + _avro_bytes(schema_text) + _zigzag(0) + sync
    return header + _zigzag(1) + _zigzag(len(body)) + body + sync
