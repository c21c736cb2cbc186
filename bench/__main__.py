"""`python -m bench`: our table format's operations next to delta-rs, pyiceberg, hudi-rs and the
raw-pyarrow limit, on the same seeded trips data, in one run.

    python3 scripts/dev.py run python -m bench --quick            # 1M rows, one repetition, < 5 min
    python3 scripts/dev.py run python -m bench --write-results    # 1M and 5M rows, <= 45 min

Prints, per scale, every comparison (median wall time, rows/s, peak RSS over the baseline, our
variants' ratios to every other system) and the targets as met/missed with their ratios (evaluated
at the largest scale: 5M rows, or 1M in --quick). `--write-results` also writes the report into
bench/RESULTS.md. Raw results (every run) are kept in <workdir>/results.json; `--report FILE`
re-renders one without running anything. See bench/suite/__init__.py for the modules.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from bench.suite import report
from bench.suite.operations import OPERATIONS, select
from bench.suite.runner import Runner, RunRecord

FULL_SCALES = [1_000_000, 5_000_000]
QUICK_SCALES = [1_000_000]
FULL_BUDGET_MIN = 42.0  # the issue allows 45 minutes; keep some room for the last runs' overrun
QUICK_BUDGET_MIN = 5.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1M rows, one repetition (under 5 minutes)")
    parser.add_argument("--write-results", action="store_true", help="write the report into bench/RESULTS.md")
    parser.add_argument("--rows", type=int, action="append", help="scale(s) instead of the default 1M (and 5M)")
    parser.add_argument("--only", action="append", help="operations whose name contains this (repeatable)")
    parser.add_argument("--budget-min", type=float, help="time budget in minutes (extra repetitions are dropped)")
    parser.add_argument("--workdir", type=Path, help="where inputs and tables go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (always kept with --workdir)")
    parser.add_argument("--profile", action="store_true", help="profile the first repetition of each operation")
    parser.add_argument("--list", action="store_true", help="list the operations and exit")
    parser.add_argument("--report", type=Path, help="render a results.json of an earlier run and exit")
    args = parser.parse_args(argv)

    if args.list:
        for op in OPERATIONS.values():
            print(f"{op.name:<34} {op.label}  [{op.cost.value}{', not in --quick' if not op.in_quick else ''}]")
        return 0
    if args.report is not None:
        text = report.render(RunRecord.load(args.report))
        print(text)
        if args.write_results:
            report.write_results(text)
        return 0

    operations = select(args.only, args.quick)
    if not operations:
        parser.error(f"no operation matches {args.only}")
    scales = sorted(args.rows or (QUICK_SCALES if args.quick else FULL_SCALES))
    budget_min = args.budget_min or (QUICK_BUDGET_MIN if args.quick else FULL_BUDGET_MIN)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-suite-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"python -m bench{' --quick' if args.quick else ''}: {len(operations)} operations at "
        f"{', '.join(f'{s:,}' for s in scales)} rows; budget {budget_min:g} min; work dir {workdir}",
        flush=True,
    )
    runner = Runner(workdir, operations, scales, args.quick, budget_min * 60, _say, args.profile)
    try:
        record = runner.run()
    finally:
        if args.workdir is None and not args.keep:
            # keep the raw results next to the (removed) work directory's name for --report
            results = workdir / "results.json"
            if results.exists():
                shutil.copy(results, Path(tempfile.gettempdir()) / f"{workdir.name}-results.json")
            shutil.rmtree(workdir, ignore_errors=True)
    text = report.render(record)
    print("\n" + text, flush=True)
    if args.write_results:
        report.write_results(text)
        print(f"written: {report.RESULTS_PATH}", flush=True)
    failed = [r for r in record.results if r.error]
    return 1 if failed else 0


def _say(line: str) -> None:
    print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
