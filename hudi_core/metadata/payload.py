"""Combining metadata records of one key, as `HoodieMetadataPayload` does.

File lists are unions in which a newer `isDeleted` entry removes the file (a log file listed again
keeps its larger size); a file's column statistics and bloom filter are replaced, or removed by an
`isDeleted` entry; partition statistics widen; a record-index entry is replaced (delete blocks
remove it).
"""

from __future__ import annotations

from hudi_core.metadata.column_stats import widen_records
from hudi_core.metadata.record import MetadataRecord, RecordType


def merge(older: MetadataRecord | None, newer: MetadataRecord) -> MetadataRecord | None:
    """The record after `newer` is applied over `older`; None when the result is a deletion."""
    kind = newer["type"]
    if kind in (RecordType.ALL_PARTITIONS, RecordType.PARTITION_FILES):
        combined = dict((older or {}).get("filesystemMetadata") or {})
        for name, info in (newer.get("filesystemMetadata") or {}).items():
            if info["isDeleted"]:
                combined.pop(name, None)
                continue
            previous = combined.get(name)
            size = max(int(info["size"]), int(previous["size"])) if previous else int(info["size"])
            combined[name] = {"size": size, "isDeleted": False}
        return {**newer, "filesystemMetadata": combined}
    if kind == RecordType.PARTITION_STATS:
        return newer if older is None else widen_records(older, newer)
    if is_deletion(newer):
        return None
    return newer


def is_deletion(record: MetadataRecord) -> bool:
    """A statistics or bloom-filter record that marks its file as removed."""
    for field in ("ColumnStatsMetadata", "BloomFilterMetadata"):
        payload = record.get(field)
        if payload is not None and payload.get("isDeleted"):
            return True
    return False
