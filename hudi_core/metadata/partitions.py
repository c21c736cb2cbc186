"""The metadata table's partitions (`MetadataPartitionType`) and their file groups.

File groups are named `<prefix><index:04d>-0` (notes §5.2); `files` has one, the others a count
chosen when the partition is built and kept in the partition's file-group names afterwards.
"""

from __future__ import annotations

from enum import Enum


class MetadataPartition(Enum):
    FILES = ("files", "files-")
    COLUMN_STATS = ("column_stats", "col-stats-")
    BLOOM_FILTERS = ("bloom_filters", "bloom-filters-")
    RECORD_INDEX = ("record_index", "record-index-")
    PARTITION_STATS = ("partition_stats", "partition-stats-")

    def __init__(self, path: str, prefix: str) -> None:
        self.path = path
        self.prefix = prefix

    def file_id(self, index: int) -> str:
        return f"{self.prefix}{index:04d}-0"

    def index_of(self, file_id: str) -> int:
        return int(file_id[len(self.prefix) :].split("-", 1)[0])

    @classmethod
    def named(cls, path: str) -> MetadataPartition | None:
        return next((p for p in cls if p.path == path), None)


ORDER = list(MetadataPartition)  # initialization order, which is also the init instants' order
