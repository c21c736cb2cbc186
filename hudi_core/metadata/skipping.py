"""Data skipping: ruling out partitions by `partition_stats` and file slices by `column_stats`
before any data file is opened (counted in `metrics.partitions_pruned` / `files_pruned`).

A file slice may match when any of its files may: a log file's statistics cover the values it
holds, which can differ from the base file's. A file or column without statistics never rules
anything out.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from hudi_core import metrics
from hudi_core.expr import Filter
from hudi_core.file_group import FileSlice
from hudi_core.metadata.column_stats import ColumnRange, may_contain, range_of
from hudi_core.metadata.keys import column_prefix, column_stats_key, partition_stats_key
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import KeyFilter, MetadataTableReader


class DataSkipping:
    """Prunes with the statistics a metadata table keeps for the filtered columns."""

    def __init__(
        self, reader: MetadataTableReader, published: Sequence[str], schema: pa.Schema, filters: Sequence[Filter]
    ) -> None:
        self.reader = reader
        self.schema = schema
        self.filters = [f for f in filters if f.column in schema.names]
        self.columns = sorted({f.column for f in self.filters})
        self.has_column_stats = MetadataPartition.COLUMN_STATS.path in published
        self.has_partition_stats = MetadataPartition.PARTITION_STATS.path in published

    def partitions(self, partitions: list[str]) -> list[str]:
        if not self.filters or not self.has_partition_stats:
            return partitions
        keys = frozenset(partition_stats_key(c, p) for c in self.columns for p in partitions)
        records = self.reader.records(MetadataPartition.PARTITION_STATS, KeyFilter(keys=keys))
        kept = []
        for partition in partitions:
            ranges = {c: self._range(records.get(partition_stats_key(c, partition)), c) for c in self.columns}
            if may_contain(ranges, self.filters):
                kept.append(partition)
        metrics.add(partitions_pruned=len(partitions) - len(kept))
        return kept

    def slices(self, slices: list[FileSlice]) -> list[FileSlice]:
        if not self.filters or not self.has_column_stats or not slices:
            return slices
        prefixes = tuple(column_prefix(c) for c in self.columns)
        records = self.reader.records(MetadataPartition.COLUMN_STATS, KeyFilter(prefixes=prefixes))
        kept = []
        for file_slice in slices:
            names = ([file_slice.base_file] if file_slice.base_file else []) + list(file_slice.log_files)
            if any(self._file_may_match(records, file_slice.partition_path, name) for name in names):
                kept.append(file_slice)
        metrics.add(files_pruned=len(slices) - len(kept))
        return kept

    def _file_may_match(self, records: dict[str, dict[str, object]], partition: str, name: str) -> bool:
        ranges = {c: self._range(records.get(column_stats_key(c, partition, name)), c) for c in self.columns}
        if any(r is None for r in ranges.values()):
            return True  # a file without statistics (written before the index existed) is read
        return may_contain(ranges, self.filters)

    def _range(self, record: dict[str, object] | None, column: str) -> ColumnRange | None:
        return None if record is None else range_of(record, self.schema.field(column).type)
