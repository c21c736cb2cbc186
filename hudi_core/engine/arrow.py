"""The in-process Arrow engine: runs file-slice work on a small thread pool.

Parquet decoding and Arrow compute release the GIL, so threads overlap I/O and decoding; results
come back in plan order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import pyarrow as pa

from hudi_core.file_group.reader import FileGroupReader
from hudi_core.storage import Storage
from hudi_core.table.scan import ScanPlan, read_planned_slice

T = TypeVar("T")
R = TypeVar("R")


def default_parallelism() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def ordered_map(func: Callable[[T], R], items: Iterable[T], parallelism: int | None = None) -> Iterator[R]:
    """`map(func, items)` on threads, yielding in input order with a bounded number in flight."""
    workers = parallelism or default_parallelism()
    iterator = iter(items)
    if workers == 1:
        yield from map(func, iterator)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hudi-arrow") as pool:
        in_flight: deque[Future[R]] = deque()
        for item in iterator:
            in_flight.append(pool.submit(func, item))
            if len(in_flight) >= 2 * workers:
                yield in_flight.popleft().result()
        while in_flight:
            yield in_flight.popleft().result()


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
