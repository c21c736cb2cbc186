"""The child process: builds a scale's inputs and fixtures, or runs one operation once and measures it.

Run by the runner, never by hand::

    python -m bench.suite.measure setup --workdir W --rows N --fixtures a,b,c
    python -m bench.suite.measure run --workdir W --rows N --operation NAME --result FILE [--profile]

`run` prepares the operation (loads its input, copies its fixture: not measured), collects garbage,
releases Arrow's cached memory and takes the baseline resident set size; then it times the action
while tracking the peak:

* the child's own peak is the kernel's high-water mark (`VmHWM`), reset just before the action
  (`/proc/self/clear_refs`), so no short spike escapes; where that reset is refused, a sampler
  thread reads the RSS every 10 ms instead;
* for the Spark engine (ours, and Apache Hudi's driver) the JVM and Python workers are child
  processes: the sampler adds up the RSS of the whole process tree every 100 ms.

The figure is the peak minus the baseline. The result (JSON) goes to `--result`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import psutil
import pyarrow as pa

from bench.suite import fixtures, inputs
from bench.suite.operations import OPERATIONS, Operation
from bench.suite.workspace import Workspace

PROFILE_DIR = Path(__file__).resolve().parent.parent / "profiles"
_CLEAR_REFS = Path("/proc/self/clear_refs")
_STATUS = Path("/proc/self/status")


def _high_water_mark() -> int | None:
    """This process's peak RSS since the last reset (bytes), or None off Linux."""
    with suppress(OSError):
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def _reset_high_water_mark() -> bool:
    """Resets VmHWM to the current RSS (Linux >= 4.0); False when not allowed."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


class PeakRss:
    """The peak resident set size of this process (and, with `tree`, its children) while a block runs."""

    def __init__(self, tree: bool) -> None:
        self._tree = tree
        self._me = psutil.Process()
        self._stop = threading.Event()
        self._sampled = 0
        self._use_hwm = False
        self.peak = 0

    def current(self) -> int:
        total = int(self._me.memory_info().rss)
        if self._tree:
            for child in self._me.children(recursive=True):
                with suppress(psutil.Error):
                    total += int(child.memory_info().rss)
        return total

    def _sample(self, interval: float) -> None:
        while not self._stop.is_set():
            with suppress(psutil.Error):
                self._sampled = max(self._sampled, self.current())
            self._stop.wait(interval)

    @contextmanager
    def watching(self) -> Iterator[PeakRss]:
        self._use_hwm = not self._tree and _reset_high_water_mark() and _high_water_mark() is not None
        sampler = None
        if not self._use_hwm:
            sampler = threading.Thread(target=self._sample, args=(0.1 if self._tree else 0.01,), daemon=True)
            sampler.start()
        try:
            yield self
        finally:
            self._stop.set()
            if sampler is not None:
                sampler.join()
            self.peak = max(self._sampled, self.current())
            if self._use_hwm:
                self.peak = max(self.peak, _high_water_mark() or 0)


def _settle() -> None:
    """Frees what the preparation left behind, so that the baseline holds the input and little else."""
    gc.collect()
    pa.default_memory_pool().release_unused()


def run_once(op: Operation, space: Workspace, profile: bool = False) -> dict[str, Any]:
    """Prepares `op`, then times it and tracks its peak RSS over the baseline. A run that produces a
    fixture records its facts when it succeeds, and removes what it left when it fails."""
    setup = op.prepare(space, op)
    succeeded = False
    try:
        _settle()
        monitor = PeakRss(tree=op.engine.samples_process_tree)
        baseline = monitor.current()
        profiler = _start_profiler() if profile else None
        with monitor.watching():
            start = time.perf_counter()
            outcome = setup.action()
            wall = time.perf_counter() - start
        if profiler is not None:
            _save_profile(profiler, op, space, wall)
        succeeded = True
    finally:
        setup.cleanup()
        if setup.produces is not None:
            if succeeded:
                space.record_facts(setup.produces, outcome.facts)
            else:
                shutil.rmtree(space.fixture(setup.produces), ignore_errors=True)
    seconds = outcome.seconds if outcome.seconds is not None else wall
    return {
        "seconds": seconds,
        "wall": wall,
        "rows": outcome.rows,
        "baseline_bytes": baseline,
        "peak_bytes": monitor.peak,
        "peak_over_baseline_bytes": max(0, monitor.peak - baseline),
        "details": outcome.details,
        "produced": setup.produces,
    }


# ---- profiling (--profile) ------------------------------------------------------------------------


def _start_profiler() -> Any:
    """pyinstrument samples only the calling thread: the Arrow engine's pool is forced to one thread,
    so pooled work shows up where it happens instead of as waiting."""
    from pyinstrument import Profiler  # noqa: PLC0415 - only profiling runs need it

    from hudi_core import parallel  # noqa: PLC0415

    parallel.default_parallelism = lambda: 1
    profiler = Profiler(interval=0.001)
    profiler.start()
    return profiler


def _save_profile(profiler: Any, op: Operation, space: Workspace, wall: float) -> None:
    from bench.upsert import top_costs  # noqa: PLC0415 - only profiling runs need it

    profiler.stop()
    session = profiler.last_session
    root = session.root_frame() if session is not None else None
    summary = top_costs(root) if root is not None else "  (no samples)"
    PROFILE_DIR.mkdir(exist_ok=True)
    out = PROFILE_DIR / f"{op.name.replace('/', '__')}_{space.rows}.txt"
    tree = profiler.output_text(show_all=True, processor_options={"filter_threshold": 0.002})
    header = f"{op.label} ({op.name}), {space.rows:,} rows, one thread, {wall:.2f} s wall"
    out.write_text(f"{header}\n\n{summary}\n\n{tree}")
    print(f"{header}\n{summary}\n  full profile: {out}", flush=True)


# ---- entry ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite.measure")
    parser.add_argument("command", choices=["setup", "run"])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--fixtures", default="")
    parser.add_argument("--operation")
    parser.add_argument("--result", type=Path)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    space = Workspace(args.workdir, args.rows)
    if args.command == "setup":
        start = time.perf_counter()
        inputs.generate(space)
        print(f"  inputs{'':<21} {time.perf_counter() - start:7.1f} s", flush=True)
        fixtures.build(space, [name for name in args.fixtures.split(",") if name], log=lambda s: print(s, flush=True))
        return 0
    op = OPERATIONS[args.operation]
    try:
        result = run_once(op, space, args.profile)
    except Exception as error:
        result = {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
    args.result.write_text(json.dumps(result))
    return 0 if "error" not in result else 1


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # PySpark and pyarrow leave non-daemon threads behind; the result is written, so leave now.
    os._exit(code)
