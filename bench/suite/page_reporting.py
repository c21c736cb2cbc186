"""Holding a VM's free page reporting for the length of a run.

A guest with virtio-balloon free page reporting hands blocks of freed memory (2 MiB and up) back to
the host about two seconds after they are freed. The next process to touch those pages pays a host
fault for each: on the bench VM a 2.4 GB read then took 2.7 to 4.5 s instead of 1.2 to 1.4 s, with
3 to 6 s of system time. Whether a measured process finds its memory reported or still backed
depends only on what ran in the seconds before it, so reads of the same size swapped places from
one process to the next (see RESULTS.md, 2026-12-04). Raising `page_reporting_order` above the
largest block order stops reporting. The run does that when the machine lets it (root, a kernel
with the parameter), restores the old order afterwards, and says which state its figures were
measured in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ORDER_PARAMETER = Path("/sys/module/page_reporting/parameters/page_reporting_order")
# Above MAX_PAGE_ORDER (10 on x86-64): no free block is ever large enough to be reported.
NEVER_REPORTED_ORDER = 11


@contextmanager
def held_page_reporting(say: Callable[[str], None], parameter: Path = ORDER_PARAMETER) -> Iterator[str]:
    """Stops free page reporting while the block runs, when the machine allows it.

    Yields how the run's memory was handled, for the report: `held`, `held (...)` when it already
    was before the run (left so), `not reported by this machine`, or `active (...)` with the reason
    it could not be held.
    """
    try:
        before = parameter.read_text().strip()
    except OSError:
        yield "not reported by this machine"
        return
    if before == str(NEVER_REPORTED_ORDER):
        # Held by someone else, or left by a run that was killed: the order to go back to is unknown.
        yield f"held (page_reporting_order was {before} before the run and is left so)"
        return
    try:
        parameter.write_text(str(NEVER_REPORTED_ORDER))
        held = parameter.read_text().strip() == str(NEVER_REPORTED_ORDER)
    except OSError as e:
        yield f"active (page_reporting_order {before}; cannot raise it: {e.strerror or e})"
        return
    if not held:
        yield f"active (page_reporting_order {before}; the kernel kept it)"
        return
    say(f"free page reporting held for the run (page_reporting_order {before} -> {NEVER_REPORTED_ORDER})")
    try:
        yield "held"
    finally:
        parameter.write_text(before)
        say(f"free page reporting restored (page_reporting_order {before})")
