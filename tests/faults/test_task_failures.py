"""The Arrow engine's task pool when a task fails: no further task starts, the running ones finish
before the failure reaches the caller (whose rollback must not race a task still writing), and the
other tasks' failures are noted on the error.
"""

from __future__ import annotations

import threading
import time

import pytest

from hudi_core.parallel import ordered_map


class _Tasks:
    """Tasks that record when they start and finish; task 0 fails at once, `failing` after a while."""

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        self.started: set[int] = set()
        self.finished: set[int] = set()
        self._failing = failing
        self._lock = threading.Lock()
        self._failing_started = threading.Event()

    def __call__(self, item: int) -> int:
        with self._lock:
            self.started.add(item)
        if item in self._failing:
            self._failing_started.set()
        try:
            if item == 0:
                # A task meant to fail later is running before task 0 fails (on a loaded machine
                # its thread may start late, and a task never started is cancelled, not noted).
                if self._failing:
                    self._failing_started.wait(timeout=10)
                raise ValueError("task 0 failed")
            time.sleep(0.2)  # still running when task 0 fails
            if item in self._failing:
                raise RuntimeError(f"task {item} failed")
            return item
        finally:
            with self._lock:
                self.finished.add(item)

    def running(self) -> set[int]:
        with self._lock:
            return self.started - self.finished


def test_a_failed_map_raises_only_once_its_running_tasks_finished() -> None:
    tasks = _Tasks()
    with pytest.raises(ValueError, match="task 0 failed"):
        list(ordered_map(tasks, range(8), parallelism=2))
    assert tasks.running() == set(), "a task was still running when the failure reached the caller"
    assert len(tasks.started) < 8, "tasks kept starting after the failure"


def test_a_failed_map_notes_the_other_tasks_failures() -> None:
    tasks = _Tasks(failing=frozenset({1}))
    with pytest.raises(ValueError, match="task 0 failed") as failed:
        list(ordered_map(tasks, range(2), parallelism=2))
    assert any("task 1 failed" in note for note in failed.value.__notes__)


def test_an_abandoned_map_stops_its_running_tasks_before_returning() -> None:
    tasks = _Tasks()
    results = ordered_map(tasks, range(1, 9), parallelism=2)
    assert next(results) == 1
    results.close()
    assert tasks.running() == set()
