"""Medians, ratios, targets met/missed, and RESULTS.md.

All tables are Markdown, so the same text is printed and written to `bench/RESULTS.md`
(`--write-results`). There, only the part between the GENERATED markers is replaced: the
hand-written method preamble above it and the profiling notes below it stay.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.suite.operations import GROUPS, OPERATIONS, OURS, Engine, Operation
from bench.suite.runner import RunRecord, RunResult

RESULTS_PATH = Path(__file__).resolve().parent.parent / "RESULTS.md"
BEGIN = "<!-- BEGIN GENERATED: python -m bench --write-results replaces this part -->"
END = "<!-- END GENERATED -->"
MEMORY_LIMIT_BYTES = 1.5e9  # every write and service
STREAMED_READ_LIMIT_BYTES = 0.5e9  # read_batches
STREAMED_READ = "snapshot_read/ours_cow_batches"
# Reads that return a whole table hold it whoever reads it: the write limit does not apply to them.
WHOLE_TABLE_READS = ("snapshot_read", "read_partition", "read_fare", "incremental", "open")
OPEN_LIMIT_S = 0.030
DELTA_MERGES = ("delta_uuid", "delta_city_uuid")


@dataclass(frozen=True)
class Summary:
    """The repetitions of one operation at one scale."""

    op: Operation
    rows: int
    runs: list[RunResult]

    @property
    def ok(self) -> list[RunResult]:
        return [r for r in self.runs if r.error is None and r.seconds is not None]

    @property
    def median(self) -> float | None:
        seconds = [r.seconds for r in self.ok if r.seconds is not None]
        return statistics.median(seconds) if seconds else None

    @property
    def processed_rows(self) -> int:
        """Rows written, applied or read (the same in every repetition)."""
        return max((r.processed_rows for r in self.ok), default=0)

    @property
    def rows_per_s(self) -> float | None:
        median = self.median
        return self.processed_rows / median if median and self.processed_rows else None

    @property
    def peak_over_baseline(self) -> int | None:
        """The largest peak over baseline of the repetitions (each ran in a fresh process)."""
        return max((r.peak_over_baseline_bytes for r in self.ok), default=None)

    @property
    def error(self) -> str | None:
        errors = [r.error for r in self.runs if r.error]
        return errors[0] if errors else None


def summaries(record: RunRecord) -> dict[tuple[str, int], Summary]:
    grouped: dict[tuple[str, int], list[RunResult]] = {}
    for result in record.results:
        grouped.setdefault((result.operation, result.rows), []).append(result)
    return {
        key: Summary(OPERATIONS[key[0]], key[1], sorted(runs, key=lambda r: r.repetition))
        for key, runs in grouped.items()
        if key[0] in OPERATIONS
    }


# ---- targets --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """`ours` against the fastest of `against`: met when ours/reference <= `limit` (or, for a
    speed-up target, when reference/ours >= `limit`)."""

    title: str
    ours: str
    against: tuple[str, ...]
    limit: float
    speedup: bool = False


TARGETS: tuple[Target, ...] = (
    Target("bulk insert <= 1.0x delta-rs write_deltalake", "bulk_insert/ours_cow", ("bulk_insert/delta",), 1.0),
    Target("bulk insert <= 1.5x pyiceberg append", "bulk_insert/ours_cow", ("bulk_insert/iceberg",), 1.5),
    Target("CoW upsert 1% <= 1.0x delta-rs merge", "upsert_1pct/ours_cow",
           tuple(f"upsert_1pct/{d}" for d in DELTA_MERGES), 1.0),
    Target("MoR upsert 1% <= 0.1x delta-rs merge", "upsert_1pct/ours_mor",
           tuple(f"upsert_1pct/{d}" for d in DELTA_MERGES), 0.1),
    Target("concentrated upsert (MoR) >= 5x faster than delta-rs", "upsert_recent/ours_mor",
           tuple(f"upsert_recent/{d}" for d in DELTA_MERGES), 5.0, speedup=True),
    Target("concentrated upsert (CoW) <= 1.0x delta-rs merge", "upsert_recent/ours_cow",
           tuple(f"upsert_recent/{d}" for d in DELTA_MERGES), 1.0),
    Target("incremental read of a 1% commit <= 0.05x snapshot read (CoW)", "incremental/ours_cow",
           ("snapshot_read/ours_cow",), 0.05),
    Target("incremental read of a 1% commit <= 0.05x snapshot read (MoR)", "incremental/ours_mor",
           ("snapshot_read/ours_mor_pending",), 0.05),
    Target("snapshot read <= 1.1x raw read", "snapshot_read/ours_cow", ("snapshot_read/raw",), 1.1),
    # Apache Hudi 1.2 on Spark local[2]: job time only (its start-up is reported apart).
    *(
        Target(f"{title} >= 5x faster than Apache Hudi", ours, (theirs,), 5.0, speedup=True)
        for title, ours, theirs in (
            ("bulk insert", "bulk_insert/ours_cow", "bulk_insert/apache_cow"),
            ("CoW upsert 1%", "upsert_1pct/ours_cow", "upsert_1pct/apache_cow"),
            ("MoR upsert 1%", "upsert_1pct/ours_mor", "upsert_1pct/apache_mor"),
            ("CoW snapshot read", "snapshot_read/ours_cow", "snapshot_read/apache_cow"),
            ("MoR snapshot read", "snapshot_read/ours_mor_pending", "snapshot_read/apache_mor_pending"),
            ("CoW incremental read", "incremental/ours_cow", "incremental/apache_cow"),
            ("MoR incremental read", "incremental/ours_mor", "incremental/apache_mor"),
        )
    ),
    # Floors measured in the same run: what no design of ours can beat on this machine.
    Target("floor: CoW upsert 1% <= 1.3x raw rewrite of touched files", "upsert_1pct/ours_cow",
           ("upsert_1pct/raw_rewrite",), 1.3),
    Target("floor: bulk insert <= 1.2x raw write", "bulk_insert/ours_cow", ("bulk_insert/raw",), 1.2),
    Target("floor: CoW incremental <= 1.5x raw read of the commit's rows", "incremental/ours_cow",
           ("incremental/raw_cow",), 1.5),
    Target("floor: MoR incremental <= 1.5x raw read of the commit's rows and the ordering column they merge with",
           "incremental/ours_mor", ("incremental/raw_mor",), 1.5),
    # Whether a target lies above its floor at all: the floor itself against the target's reference
    # (missed: no reader of these files meets the target on this machine).
    Target("reachable? raw read of a CoW commit's rows <= 0.05x CoW snapshot",
           "incremental/raw_cow", ("snapshot_read/ours_cow",), 0.05),
    Target("reachable? raw read of a MoR commit's rows and ordering column <= 0.05x MoR snapshot",
           "incremental/raw_mor", ("snapshot_read/ours_mor_pending",), 0.05),
    Target("reachable? raw read of the CoW base files >= 5x faster than Apache Hudi's CoW snapshot",
           "snapshot_read/raw", ("snapshot_read/apache_cow",), 5.0, speedup=True),
)  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    title: str
    ours: str
    reference: str
    ratio: float | None
    limit: str
    met: bool | None  # None: not measured

    @property
    def word(self) -> str:
        return "not measured" if self.met is None else ("**met**" if self.met else "**missed**")


def _fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def evaluate(found: dict[tuple[str, int], Summary], rows: int) -> list[Verdict]:
    """Every target at `rows`."""
    verdicts = []
    for target in TARGETS:
        ours = found.get((target.ours, rows))
        references = [found[(name, rows)] for name in target.against if (name, rows) in found]
        references = [s for s in references if s.median is not None]
        if ours is None or ours.median is None or not references:
            verdicts.append(Verdict(target.title, "-", "-", None, "-", None))
            continue
        reference = min(references, key=lambda s: s.median or 0.0)
        assert reference.median is not None
        ratio = ours.median / reference.median
        if target.speedup:
            limit = f"<= {1 / target.limit:.2f}x (>= {target.limit:g}x faster; now {1 / ratio:.1f}x)"
            met = ratio <= 1 / target.limit
        else:
            limit = f"<= {target.limit:g}x"
            met = ratio <= target.limit
        verdicts.append(
            Verdict(
                target.title,
                f"{ours.op.label}: {_fmt_s(ours.median)}",
                f"{reference.op.label}: {_fmt_s(reference.median)}",
                ratio,
                limit,
                met,
            )
        )
    verdicts.append(_memory_verdict(found, rows))
    verdicts.append(_streamed_read_verdict(found, rows))
    # the small table is the same at every scale: its open runs at one scale only
    opened = next((s for (name, _), s in found.items() if name == "open/ours" and s.median is not None), None)
    if opened is not None and opened.median is not None:
        verdicts.append(
            Verdict(
                f"open a small table <= {OPEN_LIMIT_S * 1000:g} ms (warm process)",
                f"{opened.op.label}: {_fmt_s(opened.median)} (median of many opens)",
                f"{OPEN_LIMIT_S * 1000:g} ms",
                opened.median / OPEN_LIMIT_S,
                "<= 1x",
                opened.median <= OPEN_LIMIT_S,
            )
        )
    return verdicts


def _memory_verdict(found: dict[tuple[str, int], Summary], rows: int) -> Verdict:
    measured = [
        s
        for (name, at), s in found.items()
        if at == rows
        and s.op.engine is Engine.ARROW
        and not s.op.tuned
        and s.peak_over_baseline is not None
        and s.op.group not in WHOLE_TABLE_READS
    ]
    title = f"peak RSS over baseline <= 1.5 GB, every Arrow-engine write and service at {rows / 1e6:g}M rows"
    if not measured:
        return Verdict(title, "-", "-", None, "-", None)
    worst = max(measured, key=lambda s: s.peak_over_baseline or 0)
    peak = worst.peak_over_baseline or 0
    over = [_with_limit_peak(found, s) for s in measured if (s.peak_over_baseline or 0) > MEMORY_LIMIT_BYTES]
    note = f"; over the limit: {'; '.join(over)}" if over else ""
    return Verdict(
        title,
        f"worst: {worst.op.name}: {peak / 1e9:.2f} GB{note}",
        "1.5 GB",
        peak / MEMORY_LIMIT_BYTES,
        "<= 1x",
        peak <= MEMORY_LIMIT_BYTES,
    )


def _streamed_read_verdict(found: dict[tuple[str, int], Summary], rows: int) -> Verdict:
    title = f"peak RSS over baseline <= 0.5 GB, streamed read (read_batches) at {rows / 1e6:g}M rows"
    streamed = found.get((STREAMED_READ, rows))
    if streamed is None or streamed.peak_over_baseline is None:
        return Verdict(title, "-", "-", None, "-", None)
    peak = streamed.peak_over_baseline
    return Verdict(
        title,
        f"{streamed.op.label}: {peak / 1e9:.2f} GB",
        "0.5 GB",
        peak / STREAMED_READ_LIMIT_BYTES,
        "<= 1x",
        peak <= STREAMED_READ_LIMIT_BYTES,
    )


def _with_limit_peak(found: dict[tuple[str, int], Summary], summary: Summary) -> str:
    """`name X GB`, with the raw-pyarrow operations' peaks of the same comparison for scale (a read
    returning the whole table needs the table's size whoever reads it)."""
    text = f"{summary.op.name} {(summary.peak_over_baseline or 0) / 1e9:.2f} GB"
    raw = [
        f"{s.op.label} {(s.peak_over_baseline or 0) / 1e9:.2f} GB"
        for (name, at), s in found.items()
        if at == summary.rows and s.op.group == summary.op.group and name.split("/")[1].startswith("raw")
    ]
    return f"{text} (raw: {', '.join(raw)})" if raw else text


def tuned_lines(found: dict[tuple[str, int], Summary]) -> list[str]:
    """Tuned variants of the 1% upsert against the faster delta-rs merge and our default variant of
    the same table type, at every scale they ran at (information, never a target)."""
    lines = []
    for (name, rows), summary in sorted(found.items(), key=lambda item: (item[0][1], item[0][0])):
        if not summary.op.tuned or summary.median is None or not name.startswith("upsert_1pct/"):
            continue
        merges = [found.get((f"upsert_1pct/{d}", rows)) for d in DELTA_MERGES]
        merge = min((m.median for m in merges if m is not None and m.median is not None), default=None)
        default_name = "upsert_1pct/ours_mor" if "MoR" in summary.op.variant else "upsert_1pct/ours_cow"
        default = found.get((default_name, rows))
        parts = [f"- {rows:,} rows, {summary.op.label}: {_fmt_s(summary.median)}"]
        if merge is not None:
            parts.append(f"{summary.median / merge:.2f}x the faster delta-rs merge")
        if default is not None and default.median is not None:
            parts.append(f"{summary.median / default.median:.2f}x our default ({_fmt_s(default.median)})")
        lines.append("; ".join(parts))
    return lines


# ---- tables ---------------------------------------------------------------------------------------


def _mb(size: int | None) -> str:
    return "-" if size is None else f"{size / 1e6:,.0f}"


def _rate(rows_per_s: float | None) -> str:
    if rows_per_s is None:
        return "-"
    if rows_per_s >= 1e6:
        return f"{rows_per_s / 1e6:.2f} M"
    return f"{rows_per_s / 1e3:,.0f} k" if rows_per_s >= 1e4 else f"{rows_per_s:,.0f}"


def group_table(found: dict[tuple[str, int], Summary], group: str, rows: int) -> list[str]:
    """One comparison: every system's median, rows/s, memory, and our primary variants / this."""
    members = [s for (name, at), s in found.items() if at == rows and s.op.group == group]
    members.sort(key=lambda s: list(OPERATIONS).index(s.op.name))
    if not members:
        return []
    ours = [s for s in members if s.op.system == OURS and not s.op.tuned and s.median is not None]
    header = ["operation", "median", "runs (s)", "rows", "rows/s", "peak RSS over baseline (MB)"]
    header += [f"{s.op.variant} ÷ this" for s in ours]
    lines = [f"**{GROUPS[group]}** ({rows:,} rows)", "", "| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    for summary in members:
        if summary.error and summary.median is None:
            cells = [summary.op.label, "error", summary.error[:80].replace("|", "/"), "-", "-", "-"]
            cells += ["-"] * len(ours)
        else:
            runs = ", ".join(f"{r.seconds:.3g}" for r in summary.ok if r.seconds is not None)
            cells = [
                summary.op.label,
                _fmt_s(summary.median),
                runs,
                f"{summary.processed_rows:,}" if summary.processed_rows else "-",
                _rate(summary.rows_per_s),
                _mb(summary.peak_over_baseline),
            ]
            for primary in ours:
                if primary is summary or summary.median is None or primary.median is None:
                    cells.append("")
                else:
                    cells.append(f"{primary.median / summary.median:.2f}x")
        lines.append("| " + " | ".join(cells) + " |")
    notes = _details_notes(members)
    return [*lines, *notes, ""]


def _details_notes(members: Sequence[Summary]) -> list[str]:
    notes = []
    for summary in members:
        first = summary.ok[0] if summary.ok else None
        if first is None or not first.details:
            continue
        facts = ", ".join(f"{k}={v}" for k, v in first.details.items() if v is not None)
        notes.append(f"<br>*{summary.op.label}*: {facts}")
    return ["", *notes] if notes else []


def render(record: RunRecord) -> str:
    """The whole report: machine, targets (at the largest scale), then every comparison table."""
    found = summaries(record)
    scales = sorted({rows for _, rows in found})
    largest = max(scales) if scales else 0
    machine = record.machine
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items())
    out = [
        f"## {'Quick run' if record.quick else 'Full run'} of {record.started}",
        "",
        f"- machine: {machine['cores']} cores, {machine['memory_gib']} GiB RAM, {machine['cpu_model']}; "
        f"{machine['platform']}, Python {machine['python']}",
        f"- load average (1, 5, 15 min) before: {machine['load_before']}, after: {record.load_after or '-'} "
        "(the machine is shared with other engineers' test runs: timings are noisy)",
        f"- versions: {versions}; commit {machine['commit']}",
        f"- the VM's free page reporting: {machine.get('free_page_reporting', 'not recorded')} "
        "(see bench/suite/page_reporting.py)",
        f"- scales: {', '.join(f'{s:,}' for s in record.scales)} rows; run took {record.duration_s / 60:.1f} min "
        f"(setup: {', '.join(f'{int(k):,} rows {v:.0f} s' for k, v in record.setup_seconds.items())})",
    ]
    if record.skipped:
        first = [item for item in record.skipped if item.endswith("repetition 1")]
        out.append(
            f"- runs skipped to stay within the time budget: {len(record.skipped)}"
            + (f" (never measured: {'; '.join(first)})" if first else " (extra repetitions only)")
        )
    scope = f"{largest:,} rows"
    if record.quick:
        scope += " (--quick: the targets are evaluated at this scale, not at 5M)"
    out += ["", f"### Targets at {scope}", "", "| target | ours | reference | ours ÷ reference | limit | verdict |"]
    out.append("|---|---|---|---:|---|---|")
    for verdict in evaluate(found, largest):
        ratio = "-" if verdict.ratio is None else f"{verdict.ratio:.3g}x"
        out.append(
            f"| {verdict.title} | {verdict.ours} | {verdict.reference} | {ratio} | {verdict.limit} | {verdict.word} |"
        )
    tuned = tuned_lines(found)
    if tuned:
        out += ["", "Tuned variants (non-default options; not used by any target):", "", *tuned]
    for rows in scales:
        out += ["", f"### {rows:,} rows", ""]
        for group in GROUPS:
            out += group_table(found, group, rows)
    return "\n".join(out) + "\n"


def write_results(text: str, path: Path = RESULTS_PATH) -> None:
    """Replaces the generated part of RESULTS.md, keeping the hand-written text around it."""
    before, after = f"# Benchmark results\n\n{BEGIN}\n", f"{END}\n"
    if path.exists():
        current = path.read_text()
        if BEGIN in current and END in current:
            head, rest = current.split(BEGIN, 1)
            before = head + BEGIN + "\n"
            after = END + rest.split(END, 1)[1]
    path.write_text(f"{before}{text}\n{after}")
