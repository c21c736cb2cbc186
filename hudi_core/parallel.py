"""Parallel execution: an order-keeping map over a small process-wide thread pool, and the task
runner type that lets an engine decide where file-group work runs.

Parquet decoding and Arrow compute release the GIL, so threads overlap I/O and decoding. Every floor
that fans work out over file groups or files (tagging, writing, services, the Arrow engine) uses it.
Table services hand their file-group tasks to a `TaskRunner`: `run_locally` by default, an engine's
runner (Spark executors, a process pool) otherwise; tasks carry everything they need, so any runner
can execute them. `balanced_bins` spreads items of known cost over a fixed number of tasks.
"""

from __future__ import annotations

import heapq
import os
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)


class TaskRunner(Protocol):
    """Runs `func` over `tasks` and returns the results in task order (raising the first failure)."""

    def __call__(self, func: Callable[[T], R], tasks: Sequence[T], /) -> list[R]: ...


def run_locally(func: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
    """The in-process runner: `tasks` on the thread pool."""
    return list(ordered_map(func, tasks))


def default_parallelism() -> int:
    return max(1, min(8, os.cpu_count() or 1))


_POOL_LOCK = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}
_in_pool = threading.local()


def _pool(workers: int) -> ThreadPoolExecutor:
    """A process-wide pool per size: starting threads per call costs more than small reads."""
    with _POOL_LOCK:
        pool = _pools.get(workers)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hudi-arrow", initializer=_mark_pooled)
            _pools[workers] = pool
        return pool


def _mark_pooled() -> None:
    _in_pool.active = True


def ordered_map(func: Callable[[T], R], items: Iterable[T], parallelism: int | None = None) -> Iterator[R]:
    """`map(func, items)` on threads, yielding in input order with a bounded number in flight.

    Runs inline for a single item and inside pool threads (nested maps would wait on their own pool).
    When a task fails, no further task starts and the running ones are waited for before its error
    is raised (the errors of others are added as notes): a caller cleaning up after the failure (a
    write's rollback) never races a task still writing. An abandoned map stops the same way.
    """
    workers = parallelism or default_parallelism()
    pending = list(items)
    if workers == 1 or len(pending) <= 1 or getattr(_in_pool, "active", False):
        yield from map(func, pending)
        return
    pool = _pool(workers)
    in_flight: deque[Future[R]] = deque()
    try:
        for item in pending:
            in_flight.append(pool.submit(func, item))
            if len(in_flight) >= 2 * workers:
                yield _next_result(in_flight)
        while in_flight:
            yield _next_result(in_flight)
    except BaseException as error:
        for other in _stop(in_flight):
            error.add_note(f"another task failed too: {type(other).__name__}: {other}")
        raise


def _next_result(in_flight: deque[Future[R]]) -> R:
    """The oldest task's result once it is done; raises as soon as any task in flight failed."""
    head = in_flight[0]
    while not head.done():
        wait([f for f in in_flight if not f.done()], return_when=FIRST_COMPLETED)
        failed = next((f for f in in_flight if f.done() and not f.cancelled() and f.exception()), None)
        if failed is not None:
            in_flight.remove(failed)
            failed.result()  # raises its error
    in_flight.popleft()
    return head.result()


def _stop(in_flight: deque[Future[R]]) -> list[BaseException]:
    """Cancels the tasks not started, waits for the running ones; returns their errors."""
    for future in in_flight:
        future.cancel()
    wait(in_flight)
    return [e for f in in_flight if not f.cancelled() and (e := f.exception()) is not None]


def balanced_bins(costs: Mapping[K, int], bins: int) -> dict[K, int]:
    """Assigns each item to one of `bins` bins (numbered from 0) so the bins' summed costs are
    close: the costliest items first, each to the bin with the least cost so far (within 4/3 of the
    best possible). Ties go to the lower bin, so equal inputs give equal assignments."""
    totals = [(0, number) for number in range(max(1, bins))]
    heapq.heapify(totals)
    assigned: dict[K, int] = {}
    for item, cost in sorted(costs.items(), key=lambda pair: -pair[1]):
        total, number = heapq.heappop(totals)
        assigned[item] = number
        heapq.heappush(totals, (total + cost, number))
    return assigned
