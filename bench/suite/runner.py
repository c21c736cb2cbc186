"""The parent process: one subprocess per operation run, repetitions round-robin, a time budget.

For each scale (row count), smallest first:

1. one `setup` child generates the inputs and loads the fixtures the selected operations need (once
   per scale and run: the setup cache);
2. repetition 1 of every operation, then repetition 2 of those that get one, and so on: machine
   noise (this machine is shared) then falls on every system alike instead of on one system's
   back-to-back runs. Every run is a fresh `python -m bench.suite.measure run` child, so one
   operation's memory (Arrow's allocator keeps freed memory) never inflates the next one's baseline.

Repetitions per operation come from its cost (:func:`repetitions`). Extra repetitions (beyond the
first) are skipped when they would push the run past its budget, counting what the later scales
are expected to need (their first repetitions, extrapolated linearly in rows from this scale's).
Once the budget is spent, nothing more is started (the report lists what was skipped).
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil

from bench.suite.operations import Cost, Operation
from bench.suite.page_reporting import held_page_reporting
from bench.suite.workspace import Workspace

REPO_ROOT = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT_S = 15 * 60
ONE_MILLION = 1_000_000
# Repetitions by cost at <= 1M rows and above (a full run's 5M): 3 where affordable.
FULL_REPETITIONS: dict[Cost, tuple[int, int]] = {
    Cost.LIGHT: (3, 5),  # reads of 2.4 GB vary by a third between processes here: five runs at 5M
    Cost.TARGET: (3, 2),
    Cost.HEAVY: (3, 1),
    Cost.ONCE: (1, 1),
}


def touch_free_memory(say: Callable[[str], None], keep_free: int = 2 << 30) -> None:
    """Writes once to the machine's free memory (in a child process, which returns it), so that no
    measured process is the first to touch a page: on a freshly booted VM that first touch cost
    12 us per 4 KiB page here (0.8 s per 256 MiB), seven times a later one, for every system alike."""
    available = psutil.virtual_memory().available - keep_free
    if available <= 0:
        return
    started = time.perf_counter()
    touch = (
        "import numpy as np, sys\n"
        "left = int(sys.argv[1])\n"
        "held = []\n"
        "while left > 0:\n"
        "    block = np.empty(min(left, 1 << 30), dtype=np.uint8); block[::4096] = 1; held.append(block)\n"
        "    left -= block.size\n"
    )
    subprocess.run([sys.executable, "-c", touch, str(available)], check=True)
    say(f"touched {available / (1 << 30):.1f} GiB of free memory once in {time.perf_counter() - started:.0f} s")


def repetitions(op: Operation, rows: int, quick: bool) -> int:
    if quick:
        return 1
    small, large = FULL_REPETITIONS[op.cost]
    return small if rows <= ONE_MILLION else large


@dataclass
class RunResult:
    """One repetition of one operation at one scale, as the child measured it."""

    operation: str
    rows: int
    repetition: int
    seconds: float | None = None
    processed_rows: int = 0
    baseline_bytes: int = 0
    peak_over_baseline_bytes: int = 0
    child_seconds: float = 0.0  # the whole child: start-up, preparation, action, cleanup
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class RunRecord:
    """Everything a report needs: the runs, the setup times, the machine and the versions."""

    quick: bool
    scales: list[int]
    started: str
    machine: dict[str, Any]
    results: list[RunResult] = field(default_factory=list)
    setup_seconds: dict[str, float] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    load_after: list[float] = field(default_factory=list)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1))

    @classmethod
    def load(cls, path: Path) -> RunRecord:
        raw = json.loads(path.read_text())
        raw["results"] = [RunResult(**r) for r in raw["results"]]
        return cls(**raw)


def machine_description() -> dict[str, Any]:
    """Cores, memory, CPU model, load, versions: what a reader needs to weigh the figures."""
    import psutil  # noqa: PLC0415 - the parent needs it only here

    cpu_model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for package in ("pyarrow", "deltalake", "pyiceberg", "hudi", "pyspark", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = "?"
    return {
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "cpu_model": cpu_model,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "versions": versions,
        "commit": commit,
    }


def _child(args: Sequence[str], log: Path, timeout: float) -> tuple[int, float]:
    """Runs `python -m bench.suite.measure ARGS` in its own session (so a timeout can end its whole
    process group: the JVM of a Spark run included); returns the exit code and seconds."""
    start = time.perf_counter()
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.suite.measure", *args],
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = -signal.SIGKILL
    return code, time.perf_counter() - start


@dataclass
class Runner:
    """Runs the selected operations at every scale and collects a :class:`RunRecord`."""

    workdir: Path
    operations: list[Operation]
    scales: list[int]
    quick: bool
    budget_s: float
    say: Callable[[str], None] = print
    profile: bool = False
    record: RunRecord = field(init=False)
    _started: float = field(init=False, default=0.0)

    def run(self) -> RunRecord:
        self._started = time.perf_counter()
        with held_page_reporting(self.say) as reporting:
            if not self.quick:
                touch_free_memory(self.say)
            machine = {**machine_description(), "free_page_reporting": reporting}
            self.record = RunRecord(
                self.quick, list(self.scales), datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), machine
            )
            self._run_all()
        return self.record

    def _run_all(self) -> None:
        (self.workdir / "logs").mkdir(parents=True, exist_ok=True)
        first_rep_cost: dict[str, float] = {}
        for index, rows in enumerate(self.scales):
            self._setup(rows)
            ops = [op for op in self.operations if op.scales is None or rows in op.scales]
            most = max((repetitions(op, rows, self.quick) for op in ops), default=0)
            for repetition in range(1, most + 1):
                if repetition == 2:
                    first_rep_cost = {r.operation: r.child_seconds for r in self._results(rows, 1)}
                for op in ops:
                    if repetition > repetitions(op, rows, self.quick):
                        continue
                    out_of_time = self._elapsed() >= self.budget_s  # a hard stop, even for first runs
                    if out_of_time or (
                        repetition > 1 and not self._affordable(op, rows, first_rep_cost, self.scales[index + 1 :])
                    ):
                        self.record.skipped.append(f"{op.name} @ {rows:,} rows, repetition {repetition}")
                        continue
                    self._run(op, rows, repetition, most)
                self._save()
        self.record.duration_s = time.perf_counter() - self._started
        self.record.load_after = [round(x, 2) for x in os.getloadavg()]
        self._save()

    # ---- steps -------------------------------------------------------------------------------------

    def _setup(self, rows: int) -> None:
        """Inputs, and the fixtures no selected operation produces (the others come from the first
        runs of the operations that produce them)."""
        at_scale = [op for op in self.operations if op.scales is None or rows in op.scales]
        produced = {op.produces for op in at_scale if op.produces}
        needed = sorted({name for op in at_scale for name in op.fixtures} - produced)
        self.say(
            f"\n== {rows:,} rows: inputs and fixtures {', '.join(needed) or '-'} "
            f"(loaded by measured operations: {', '.join(sorted(produced)) or '-'})"
        )
        Workspace(self.workdir, rows).root.mkdir(parents=True, exist_ok=True)
        self._build(rows, needed, "setup")

    def _build(self, rows: int, fixtures: Sequence[str], why: str) -> None:
        log = self.workdir / "logs" / f"setup_{rows}.log"
        start_line = len(log.read_text(errors="replace").splitlines()) if log.exists() else 0
        code, seconds = _child(
            ["setup", "--workdir", str(self.workdir), "--rows", str(rows), "--fixtures", ",".join(fixtures)],
            log,
            CHILD_TIMEOUT_S * 2,
        )
        self.record.setup_seconds[str(rows)] = self.record.setup_seconds.get(str(rows), 0.0) + seconds
        for line in log.read_text(errors="replace").splitlines()[start_line:]:
            if line.startswith("  "):
                self.say(line)
        if code != 0:
            raise SystemExit(f"{why} of {rows:,} rows failed (exit {code}); see {log}")
        self.say(f"  {why} took {seconds:.0f} s; elapsed {self._elapsed() / 60:.1f} min")

    def _ensure_fixtures(self, op: Operation, rows: int) -> None:
        """Builds the fixtures `op` needs that no earlier run produced (its producer failed, say)."""
        space = Workspace(self.workdir, rows)
        missing = [name for name in op.fixtures if not space.has_fixture(name)]
        if missing:
            self._build(rows, missing, f"fixtures {', '.join(missing)} for {op.name}")

    def _run(self, op: Operation, rows: int, repetition: int, most: int) -> None:
        self._ensure_fixtures(op, rows)
        stem = f"{op.name.replace('/', '__')}_{rows}_{repetition}"
        result_path = self.workdir / "logs" / f"{stem}.json"
        result_path.unlink(missing_ok=True)
        args = ["run", "--workdir", str(self.workdir), "--rows", str(rows), "--operation", op.name]
        args += ["--result", str(result_path)]
        if self.profile and repetition == 1:
            # an extra run under pyinstrument on one thread: its time is no measurement
            _child([*args, "--profile"], self.workdir / "logs" / f"{stem}_profile.log", CHILD_TIMEOUT_S)
            result_path.unlink(missing_ok=True)
            self.say(f"  profiled {op.name}: bench/profiles/{op.name.replace('/', '__')}_{rows}.txt")
        code, child_seconds = _child(args, self.workdir / "logs" / f"{stem}.log", CHILD_TIMEOUT_S)
        result = RunResult(op.name, rows, repetition, child_seconds=child_seconds)
        if result_path.exists():
            raw = json.loads(result_path.read_text())
            if "error" in raw:
                result.error = raw["error"]
            else:
                result.seconds = raw["seconds"]
                result.processed_rows = raw["rows"]
                result.baseline_bytes = raw["baseline_bytes"]
                result.peak_over_baseline_bytes = raw["peak_over_baseline_bytes"]
                result.details = raw["details"]
        else:
            result.error = f"child exited with {code} without a result (timeout {CHILD_TIMEOUT_S} s?)"
        self.record.results.append(result)
        figure = (
            f"{result.seconds:9.3f} s  +{result.peak_over_baseline_bytes / 1e6:7.0f} MB"
            if result.error is None
            else f"ERROR {result.error[:120]}"
        )
        self.say(
            f"  [{self._elapsed() / 60:5.1f} min] {rows / 1e6:g}M rep {repetition}/{most}  "
            f"{op.name:<32} {figure}   (child {child_seconds:.0f} s)"
        )

    def _affordable(self, op: Operation, rows: int, first: dict[str, float], later_scales: Sequence[int]) -> bool:
        """Whether one more repetition of `op` fits the budget, keeping what the later scales need."""
        reserve = 0.0
        for later in later_scales:
            factor = later / rows
            setup = self.record.setup_seconds.get(str(rows), 0.0)
            reserve += factor * (setup + sum(s for name, s in first.items() if self._runs_at(name, later)))
        expected = first.get(op.name, 0.0)
        return self._elapsed() + expected + reserve <= self.budget_s

    def _runs_at(self, name: str, rows: int) -> bool:
        return any(op.name == name and (op.scales is None or rows in op.scales) for op in self.operations)

    def _results(self, rows: int, repetition: int) -> list[RunResult]:
        return [r for r in self.record.results if r.rows == rows and r.repetition == repetition]

    def _elapsed(self) -> float:
        return time.perf_counter() - self._started

    def _save(self) -> None:
        self.record.duration_s = self._elapsed()
        self.record.save(self.workdir / "results.json")
