"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best(repeat: int, action: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of `repeat` runs of `action` (seconds) and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return min(times), result
