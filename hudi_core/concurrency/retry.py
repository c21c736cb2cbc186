"""Retrying writes that lost an optimistic-concurrency race.

A WriteConflictError leaves nothing behind (the loser rolls its files back), so the write can
simply run again: it re-plans against the new snapshot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from hudi_core.errors import WriteConflictError

T = TypeVar("T")


def retry_on_conflict(write: Callable[[], T], retries: int = 3, backoff_s: float = 0.2) -> T:
    """Runs `write()`, again up to `retries` times while it raises WriteConflictError.

    Waits a random, growing pause between attempts so that colliding writers spread out.
    """
    for attempt in range(retries + 1):
        try:
            return write()
        except WriteConflictError:
            if attempt == retries:
                raise
            time.sleep(backoff_s * (2**attempt) * (0.5 + random.random()))
    raise AssertionError("unreachable")
