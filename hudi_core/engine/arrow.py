"""The in-process Arrow engine: reads a scan plan's file slices on the process-wide thread pool.

Parquet decoding and Arrow compute release the GIL, so threads overlap I/O and decoding; results
come back in plan order.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from hudi_core.merge.file_group_reader import FileGroupReader
from hudi_core.parallel import ordered_map
from hudi_core.storage import Storage
from hudi_core.table.scan import ScanPlan, read_planned_slice


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
    """All rows of `plan` as a stream of record batches."""

    def batches() -> Iterator[pa.RecordBatch]:
        for table in iter_plan(storage, plan):
            yield from table.to_batches()

    return pa.RecordBatchReader.from_batches(plan.output_schema, batches())
