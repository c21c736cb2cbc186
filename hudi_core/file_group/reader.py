"""FileGroupReader: one file slice in, the rows it holds out, as Arrow.

Copy-on-Write slices (and read-optimized queries) read the base file, pruning row groups by
statistics. Merge-on-Read slices with log files read the base file whole, scan the visible log
blocks, merge by record key, and only then filter: a log record may change or delete a row the
statistics of its base file say nothing about.

Engine-agnostic: the Arrow engine runs it in threads, the Spark engine in Python tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from hudi_core.expr import Filter, combined_expression
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet import read_parquet
from hudi_core.file_group.log_file.blocks import decode_data_block, decode_delete_block
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import RawBlock
from hudi_core.file_group.log_file.scanner import BlockVisibility, scan_log_files
from hudi_core.merge.record_merger import LogChunk, MergeSpec, merge_slice
from hudi_core.storage import Storage


@dataclass(frozen=True)
class SliceReadRequest:
    """What to read from each slice.

    Attributes:
        schema: the columns to produce (table types), including those filters and merging need.
        filters: row filters, applied after merging.
        read_optimized: read base files only, ignoring log files.
        merge: how log records merge with base rows (Merge-on-Read tables).
        visibility: which log blocks the query sees (Merge-on-Read tables).
    """

    schema: pa.Schema
    filters: Sequence[Filter] = ()
    read_optimized: bool = False
    merge: MergeSpec | None = None
    visibility: BlockVisibility | None = None


@dataclass(frozen=True)
class LogScanStats:
    """What merging a slice read from its log files (compaction write stats report it)."""

    blocks: int = 0
    records: int = 0


class FileGroupReader:
    """Reads file slices of one table."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def read(self, file_slice: FileSlice, request: SliceReadRequest) -> pa.Table:
        """The rows of `file_slice` matching the request's filters, in the request's schema."""
        return self.read_with_stats(file_slice, request)[0]

    def read_with_stats(self, file_slice: FileSlice, request: SliceReadRequest) -> tuple[pa.Table, LogScanStats]:
        """Like :meth:`read`, also reporting the log blocks and records merged."""
        expression = combined_expression(request.filters)
        stats = LogScanStats()
        if file_slice.has_logs and not request.read_optimized:
            table, stats = self._merge(file_slice, request)
        elif file_slice.base_file_path is None:
            return request.schema.empty_table(), stats
        else:
            table = read_parquet(self._storage, file_slice.base_file_path, request.schema, request.filters).table
        return (table.filter(expression) if expression is not None else table), stats

    def _merge(self, file_slice: FileSlice, request: SliceReadRequest) -> tuple[pa.Table, LogScanStats]:
        if request.merge is None or request.visibility is None:
            raise ValueError("a Merge-on-Read slice read needs a merge spec and block visibility")
        base = None
        if file_slice.base_file_path is not None:
            base = read_parquet(self._storage, file_slice.base_file_path, request.schema).table
        chunks = [chunk for _, chunk in read_log_chunks(self._storage, file_slice.log_file_paths, request.visibility)]
        records = sum(
            len(c.deletes) if c.deletes is not None else c.data.num_rows if c.data is not None else 0 for c in chunks
        )
        return merge_slice(base, chunks, request.merge), LogScanStats(len(chunks), records)


def read_log_chunks(
    storage: Storage, log_paths: Sequence[str], visibility: BlockVisibility
) -> list[tuple[RawBlock, LogChunk]]:
    """The visible blocks of a slice's log files, each with its decoded records, in merge order."""
    chunks: list[tuple[RawBlock, LogChunk]] = []
    for block in scan_log_files(storage, log_paths, visibility):
        if block.block_type is BlockType.DELETE:
            chunks.append((block, LogChunk(deletes=decode_delete_block(block))))
        else:
            partial = block.header.get(HeaderKey.IS_PARTIAL, "").lower() == "true"
            chunks.append((block, LogChunk(data=decode_data_block(block), partial=partial)))
    return chunks
