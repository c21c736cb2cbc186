"""The in-process Arrow engine: reads a scan plan's file slices on the process-wide thread pool.

Parquet decoding and Arrow compute release the GIL, so threads overlap I/O and decoding; results
come back in plan order.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from hudi_core.file_group import FileSlice
from hudi_core.merge.file_group_reader import FileGroupReader
from hudi_core.parallel import ordered_map
from hudi_core.storage import Storage
from hudi_core.table.scan import ScanPlan, read_planned_slice, read_planned_slice_batches


def iter_plan(storage: Storage, plan: ScanPlan, parallelism: int | None = None) -> Iterator[pa.Table]:
    """The slices of `plan`, each read and filtered, in plan order."""
    reader = FileGroupReader(storage)
    return ordered_map(lambda s: read_planned_slice(reader, plan, s), plan.slices, parallelism)


def read_plan(storage: Storage, plan: ScanPlan) -> pa.Table:
    """All rows of `plan` as one table."""
    tables = [t for t in iter_plan(storage, plan) if t.num_rows]
    if not tables:
        return plan.output_schema.empty_table()
    return pa.concat_tables(tables)


def plan_batch_reader(storage: Storage, plan: ScanPlan) -> pa.RecordBatchReader:
    """All rows of `plan` as a stream of record batches, in plan order.

    Slices that merge log files are read on the thread pool a few ahead, each whole; base-file
    slices stream a batch at a time as the consumer asks for them, so the stream holds a batch of
    such a file, never the file.
    """
    reader = FileGroupReader(storage)

    def started(file_slice: FileSlice) -> Iterator[pa.Table]:
        stream = read_planned_slice_batches(reader, plan, file_slice)
        # A whole slice is read here, on the pool; a base file's stream is read by the consumer.
        return iter(list(stream)) if reader.reads_whole(file_slice, plan.request) else stream

    def batches() -> Iterator[pa.RecordBatch]:
        for stream in ordered_map(started, plan.slices):
            for table in stream:
                yield from table.to_batches()

    return pa.RecordBatchReader.from_batches(plan.output_schema, batches())
