"""Decoding instant files: Avro object containers (layout 2, and plans everywhere) or JSON (layout 1).

Hudi 1.x writes completed instants as Avro object container files with one record and the
writer schema embedded (spec notes §1.4); 0.x wrote commit metadata as Jackson JSON (§1.6).
Empty files carry no content (requested commits, most inflight files).
"""

from __future__ import annotations

import io
import json
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
