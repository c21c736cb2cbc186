"""I/O counters that make read costs observable in tests and benchmarks.

Readers increment process-wide counters; :func:`capture` returns the delta over a block::

    with metrics.capture() as m:
        table.read(filters=[("city", "=", "sf")])
    assert m.base_files_read == 1

Counters are process-wide (reads may fan out to threads), so captures are meaningful only
when one read runs at a time.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@dataclasses.dataclass
class ReadMetrics:
    """Counts of I/O done by readers.

    Attributes:
        footers_read: Parquet footers parsed (planning, statistics pruning).
        base_files_read: base files whose data pages were read.
        row_groups_read: Parquet row groups whose data pages were read.
        row_groups_skipped: row groups excluded by their statistics.
        bytes_read: compressed bytes of the column chunks read.
        log_files_read: log files scanned.
        log_blocks_read: log blocks decoded.
        partitions_listed: partition directories listed.
        metadata_files_read: metadata-table files (HFiles, logs) read for listing or statistics.
        files_pruned: file slices skipped by `column_stats` before any data file was opened.
        partitions_pruned: partitions skipped by `partition_stats`.
        corrupt_blocks_skipped: corrupt log blocks (torn appends) skipped as Hudi's scanner skips them;
            each is also logged as a warning naming the file and offset.
    """

    footers_read: int = 0
    base_files_read: int = 0
    row_groups_read: int = 0
    row_groups_skipped: int = 0
    bytes_read: int = 0
    log_files_read: int = 0
    log_blocks_read: int = 0
    partitions_listed: int = 0
    metadata_files_read: int = 0
    files_pruned: int = 0
    partitions_pruned: int = 0
    corrupt_blocks_skipped: int = 0

    def minus(self, other: ReadMetrics) -> ReadMetrics:
        return ReadMetrics(**{f.name: getattr(self, f.name) - getattr(other, f.name) for f in dataclasses.fields(self)})


_lock = threading.Lock()
_totals = ReadMetrics()


def add(**counts: int) -> None:
    """Adds `counts` (field name -> increment) to the process-wide counters."""
    with _lock:
        for name, value in counts.items():
            setattr(_totals, name, getattr(_totals, name) + value)


def snapshot() -> ReadMetrics:
    """Returns a copy of the process-wide counters."""
    with _lock:
        return dataclasses.replace(_totals)


@contextmanager
def capture() -> Iterator[ReadMetrics]:
    """Yields a ReadMetrics that, when the block exits, holds the I/O done inside it."""
    start = snapshot()
    result = ReadMetrics()
    try:
        yield result
    finally:
        delta = snapshot().minus(start)
        for field in dataclasses.fields(delta):
            setattr(result, field.name, getattr(delta, field.name))
