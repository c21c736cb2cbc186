"""Is the table sound, and what shape is it in: `validate` and `stats`."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from hudi_core.cli.options import global_flags
from hudi_core.cli.render import Output, format_bytes, key_values, print_line, table
from hudi_core.errors import HudiError
from hudi_core.file_group import FileSlice
from hudi_core.hudi_table import HudiTable
from hudi_core.lifecycle.pending import pending_table_services, read_plan
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import METADATA_DIR
from hudi_core.services.metadata_validation import MetadataValidation
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import DATA_ACTIONS, TABLE_SERVICE_ACTIONS, Instant
from hudi_core.timeline.serde import decode_instant_content

# ---- validate ------------------------------------------------------------------------------------


def _check_instant(hudi_table: HudiTable, timeline: Timeline, instant: Instant) -> None:
    """Decodes the instant's content: commit metadata, another completed action's record, or a service plan."""
    if instant.is_completed:
        if instant.action in DATA_ACTIONS:
            timeline.commit_metadata(instant)
        else:
            decode_instant_content(
                timeline.read_content(instant), hudi_table.storage.full_path(timeline.instant_path(instant))
            )
        return
    action = timeline.pending_action(instant)
    if action in TABLE_SERVICE_ACTIONS:
        read_plan(hudi_table.storage, timeline, instant, action)


def _missing_slice_files(hudi_table: HudiTable, slices: Sequence[FileSlice]) -> list[str]:
    """Files the latest slices reference that storage does not hold (one listing per partition)."""
    problems = []
    listed: dict[str, set[str]] = {}
    for file_slice in slices:
        partition = file_slice.partition_path
        if partition not in listed:
            listed[partition] = {e.name for e in hudi_table.storage.list_dir(partition) if not e.is_dir}
        for name in ([file_slice.base_file] if file_slice.base_file else []) + list(file_slice.log_files):
            if name not in listed[partition]:
                path = f"{partition}/{name}" if partition else name
                problems.append(f"missing file {path} (latest slice of file group {file_slice.file_id})")
    return problems


def _metadata_problems(result: MetadataValidation) -> list[str]:
    problems = [f"metadata table does not list committed file {p}" for p in result.missing_files]
    problems += [f"metadata table lists {p}, which is not on storage" for p in result.extra_files]
    problems += [
        f"metadata table lists {p} with {listed} bytes, storage holds {actual}"
        for p, (listed, actual) in result.size_mismatches.items()
    ]
    problems += [f"metadata table does not list partition {p}" for p in result.missing_partitions]
    problems += [f"metadata table lists partition {p}, which holds no committed files" for p in result.extra_partitions]
    problems += [
        f"record index maps key {key} to {indexed}, the table holds it in {actual}"
        for key, (indexed, actual) in result.record_index_mismatches.items()
    ]
    return problems


def validation_report(hudi_table: HudiTable) -> dict[str, Any]:
    """Problems found between storage, the timeline and the metadata table (none when healthy)."""
    state = hudi_table.planner.state()
    timeline = state.timeline
    problems: list[str] = []
    for instant in timeline.instants():
        try:
            _check_instant(hudi_table, timeline, instant)
        except HudiError as e:
            problems.append(f"instant {instant.requested_time} ({instant.action.value}, {instant.state.value}): {e}")
    try:
        timeline.archived()
    except HudiError as e:
        problems.append(f"archived timeline: {e}")
    slices: list[FileSlice] = []
    try:
        slices = hudi_table.file_slices()
        problems += _missing_slice_files(hudi_table, slices)
    except HudiError as e:
        problems.append(f"file slices: {e}")
    try:
        problems += [f"orphan file {p}: written by no committed or pending instant" for p in hudi_table.orphan_files()]
    except HudiError as e:
        problems.append(f"orphan files: {e}")
    has_metadata_table = MetadataPartition.FILES.path in state.config.metadata_partitions and hudi_table.storage.exists(
        METADATA_DIR
    )
    if has_metadata_table:
        try:
            problems += _metadata_problems(hudi_table.validate_metadata())
        except HudiError as e:
            problems.append(f"metadata table: {e}")
    files = sum((1 if s.base_file else 0) + len(s.log_files) for s in slices)
    return {
        "ok": not problems,
        "problems": problems,
        "checked": {"instants": len(timeline.instants()), "files": files, "metadata_table": has_metadata_table},
    }


def _render_validation(report: dict[str, Any], console: Console) -> None:
    checked = report["checked"]
    scope = f"{checked['instants']} instants, {checked['files']} files of the latest slices"
    scope += ", the metadata table" if checked["metadata_table"] else " (no metadata table)"
    if report["ok"]:
        print_line(console, f"ok: checked {scope}")
        return
    print_line(console, f"{len(report['problems'])} problem(s) found (checked {scope}):")
    for problem in report["problems"]:
        print_line(console, f"  - {problem}")


@click.command("validate")
@click.argument("path")
@global_flags
@click.pass_obj
def validate(output: Output, path: str) -> None:
    """Check files against the timeline and the metadata table; exit code 1 when unhealthy."""
    report = validation_report(HudiTable(path))
    output.emit(report, lambda console: _render_validation(report, console))
    if not report["ok"]:
        click.get_current_context().exit(1)


# ---- stats ---------------------------------------------------------------------------------------


def size_histogram(sizes: Sequence[int]) -> list[dict[str, int]]:
    """Counts of sizes in power-of-two buckets [2^k, 2^(k+1)), empty buckets in between included."""
    if not sizes:
        return []
    counts = Counter(max(size, 1).bit_length() - 1 for size in sizes)
    return [
        {"from_bytes": 1 << k, "to_bytes": 1 << (k + 1), "files": counts.get(k, 0)}
        for k in range(min(counts), max(counts) + 1)
    ]


def _distribution(values: Sequence[int]) -> dict[str, float | int]:
    if not values:
        return {"count": 0, "min": 0, "median": 0, "max": 0, "total": 0}
    return {
        "count": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
        "total": sum(values),
    }


def _pending_services(hudi_table: HudiTable) -> list[dict[str, Any]]:
    return [
        {
            "instant": service.instant.requested_time,
            "action": service.action.value,
            "state": service.instant.state.value,
            "file_groups": service.file_groups,
        }
        for service in pending_table_services(hudi_table.storage, hudi_table.timeline)
    ]


def table_stats(hudi_table: HudiTable) -> dict[str, Any]:
    slices = hudi_table.file_slices()
    base_sizes = sorted(s.base_file_size for s in slices if s.base_file)
    log_sizes = [size for s in slices for size in s.log_file_sizes]
    return {
        "file_groups": len(slices),
        "base_files": {**_distribution(base_sizes), "histogram": size_histogram(base_sizes)},
        "log_files": {**_distribution(log_sizes), "per_file_group": _distribution([len(s.log_files) for s in slices])},
        "pending_services": _pending_services(hudi_table),
    }


def _render_stats(stats: dict[str, Any], console: Console) -> None:
    base, logs = stats["base_files"], stats["log_files"]
    per_group = logs["per_file_group"]
    console.print(
        key_values(
            "latest file slices",
            [
                ("file groups", stats["file_groups"]),
                (
                    "base files",
                    f"{base['count']} ({format_bytes(base['total'])}; min {format_bytes(base['min'])}, "
                    f"median {format_bytes(base['median'])}, max {format_bytes(base['max'])})",
                ),
                ("log files", f"{logs['count']} ({format_bytes(logs['total'])})"),
                (
                    "log files per file group",
                    f"min {per_group['min']}, median {per_group['median']}, max {per_group['max']}",
                ),
            ],
        )
    )
    if base["histogram"]:
        console.print()
        widest = max(bucket["files"] for bucket in base["histogram"])
        rows = (
            [
                f"{format_bytes(b['from_bytes'])} - {format_bytes(b['to_bytes'])}",
                b["files"],
                Text("#" * round(30 * b["files"] / widest)),
            ]
            for b in base["histogram"]
        )
        console.print(table("base file sizes", ["size", "files", ""], rows, numeric=["files"]))
    console.print()
    if not stats["pending_services"]:
        print_line(console, "pending services: none")
        return
    rows = ([s["instant"], s["action"], s["state"], s["file_groups"]] for s in stats["pending_services"])
    console.print(table("pending services", ["instant", "action", "state", "file groups"], rows, ["file groups"]))


@click.command("stats")
@click.argument("path")
@global_flags
@click.pass_obj
def stats(output: Output, path: str) -> None:
    """File-size histogram, log files per file group, pending compaction and clustering."""
    payload = table_stats(HudiTable(path))
    output.emit(payload, lambda console: _render_stats(payload, console))
