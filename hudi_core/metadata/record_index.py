"""`record_index` entries: record key -> (partition, file group) (notes §5.2).

A file id `<uuid>-<n>` is stored as the UUID's two 64-bit halves plus `n` (encoding 0); any other
file id as its string (encoding 1). Hudi also stores the writing instant as epoch milliseconds.
"""

from __future__ import annotations

import functools
import re
import uuid
from datetime import UTC, datetime

from hudi_core.metadata.record import MetadataRecord, RecordType, new_record

_UUID_FILE_ID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([0-9]+)$")
ENCODING_UUID = 0
ENCODING_STRING = 1


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


@functools.lru_cache(maxsize=1024)
def epoch_ms(instant_time: str) -> int:
    """An instant time as the epoch milliseconds `record_index` entries store (cached: a commit's
    entries all carry the same instant)."""
    parsed = datetime.strptime(instant_time[:17].ljust(17, "0"), "%Y%m%d%H%M%S%f").replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1000)


def location_payload(partition: str, file_id: str, instant_time: str) -> dict[str, object]:
    """The `HoodieRecordIndexInfo` of a record living in (`partition`, `file_id`)."""
    payload: dict[str, object] = {
        "partitionName": partition,
        "fileIdHighBits": None,
        "fileIdLowBits": None,
        "fileIndex": None,
        "fileId": "",
        "instantTime": epoch_ms(instant_time),
        "fileIdEncoding": ENCODING_STRING,
        "position": None,
    }
    match = _UUID_FILE_ID.match(file_id)
    if match is not None:
        value = uuid.UUID(match.group(1)).int
        payload.update(
            fileIdHighBits=_signed(value >> 64),
            fileIdLowBits=_signed(value & ((1 << 64) - 1)),
            fileIndex=int(match.group(2)),
            fileIdEncoding=ENCODING_UUID,
        )
    else:
        payload["fileId"] = file_id
    return payload


def location_record(partition: str, file_id: str, instant_time: str) -> MetadataRecord:
    return new_record(RecordType.RECORD_INDEX, recordIndexMetadata=location_payload(partition, file_id, instant_time))


def written_at(record: MetadataRecord) -> int | None:
    """Epoch milliseconds of the instant that put a key where a `record_index` record says."""
    value = record["recordIndexMetadata"].get("instantTime")
    return int(value) if value is not None else None


def location_of(record: MetadataRecord) -> tuple[str, str]:
    """(partition path, file id) of a `record_index` record."""
    info = record["recordIndexMetadata"]
    if info.get("fileIdEncoding", ENCODING_UUID) == ENCODING_STRING:
        return info["partitionName"] or "", info["fileId"]
    value = ((info["fileIdHighBits"] & ((1 << 64) - 1)) << 64) | (info["fileIdLowBits"] & ((1 << 64) - 1))
    return info["partitionName"] or "", f"{uuid.UUID(int=value)}-{info['fileIndex']}"
