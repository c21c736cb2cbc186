"""Table services and timeline surgery: `compact`, `cluster`, `clean`, `archive`, `savepoint`,
`restore`, `rollback` (Hudi's run_compaction, run_clustering, run_clean, ... procedures)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import click
from rich.console import Console

from hudi_core.cli.options import INSTANT_TIME, global_flags, hudi_options, parse_options
from hudi_core.cli.render import Output, print_line
from hudi_core.hudi_table import HudiTable
from hudi_core.lifecycle.service_result import ServiceResult


def service_entry(action: str, result: ServiceResult | None) -> dict[str, Any]:
    """A service run as JSON; `state` is null when the service found nothing to do."""
    if result is None:
        return {"action": action, "instant_time": None, "completion_time": None, "state": None, "counts": {}}
    return {
        "action": result.action,
        "instant_time": result.instant_time,
        "completion_time": result.completion_time,
        "state": "completed",
        "counts": dict(result.counts),
    }


def scheduled_entry(action: str, instant_time: str | None) -> dict[str, Any]:
    """A service planned but not run (`--schedule-only`)."""
    state = "requested" if instant_time is not None else None
    return {"action": action, "instant_time": instant_time, "completion_time": None, "state": state, "counts": {}}


def describe_service(entry: dict[str, Any]) -> str:
    """One line saying what a service run did."""
    action = entry["action"]
    if entry["state"] is None:
        return f"{action}: nothing to do"
    instant = f" {entry['instant_time']}" if entry["instant_time"] else ""
    if entry["state"] == "requested":
        return f"{action}{instant} scheduled (requested; run it with --instant {entry['instant_time']})"
    counts = ", ".join(f"{name}={value}" for name, value in entry["counts"].items())
    return f"{action}{instant} completed" + (f": {counts}" if counts else "")


def _emit_service(output: Output, entry: dict[str, Any]) -> None:
    output.emit(entry, lambda console: print_line(console, describe_service(entry)))


@dataclass(frozen=True)
class PlannedService:
    """A service Hudi plans first (a requested instant) and then executes."""

    action: str
    schedule: Callable[[HudiTable], str | None]
    run: Callable[[HudiTable, str | None], ServiceResult | None]


COMPACTION = PlannedService("compaction", HudiTable.schedule_compaction, HudiTable.compact)
LOG_COMPACTION = PlannedService("logcompaction", HudiTable.schedule_log_compaction, HudiTable.log_compact)
CLUSTERING = PlannedService("clustering", HudiTable.schedule_clustering, HudiTable.cluster)


def _run_planned(
    output: Output,
    service: PlannedService,
    path: str,
    option_pairs: Sequence[str],
    schedule_only: bool,
    instant: str | None,
) -> None:
    """Schedules a plan, or runs one (`instant`, else the earliest pending, else a new plan)."""
    if schedule_only and instant is not None:
        raise click.UsageError("--schedule-only plans a new instant; --instant runs an existing one: give one of them")
    hudi_table = HudiTable(path, parse_options(option_pairs))
    if schedule_only:
        with output.progress(f"scheduling {service.action} on {hudi_table.base_uri}"):
            entry = scheduled_entry(service.action, service.schedule(hudi_table))
    else:
        with output.progress(f"running {service.action} on {hudi_table.base_uri}"):
            entry = service_entry(service.action, service.run(hudi_table, instant))
    _emit_service(output, entry)


_schedule_only_option = click.option("--schedule-only", is_flag=True, help="Only plan it (a requested instant).")
_instant_option = click.option(
    "--instant", type=INSTANT_TIME, help="Run this pending plan (default: the earliest pending, else new)."
)


@click.command("compact")
@click.argument("path")
@_schedule_only_option
@_instant_option
@click.option("--log", "log_compaction", is_flag=True, help="Log compaction (merges log blocks, keeps base files).")
@hudi_options
@global_flags
@click.pass_obj
def compact(
    output: Output,
    path: str,
    schedule_only: bool,
    instant: str | None,
    log_compaction: bool,
    option_pairs: Sequence[str],
) -> None:
    """Compact Merge-on-Read file slices: log files merged into new base files."""
    service = LOG_COMPACTION if log_compaction else COMPACTION
    _run_planned(output, service, path, option_pairs, schedule_only, instant)


@click.command("cluster")
@click.argument("path")
@_schedule_only_option
@_instant_option
@hudi_options
@global_flags
@click.pass_obj
def cluster(output: Output, path: str, schedule_only: bool, instant: str | None, option_pairs: Sequence[str]) -> None:
    """Cluster small file groups into larger, optionally sorted ones (hoodie.clustering.* options)."""
    _run_planned(output, CLUSTERING, path, option_pairs, schedule_only, instant)


@click.command("clean")
@click.argument("path")
@hudi_options
@global_flags
@click.pass_obj
def clean(output: Output, path: str, option_pairs: Sequence[str]) -> None:
    """Delete file slices outside the retention (hoodie.clean.policy, hoodie.clean.commits.retained, ...)."""
    hudi_table = HudiTable(path, parse_options(option_pairs))
    with output.progress(f"cleaning {hudi_table.base_uri}"):
        entry = service_entry("clean", hudi_table.clean())
    _emit_service(output, entry)


@click.command("archive")
@click.argument("path")
@hudi_options
@global_flags
@click.pass_obj
def archive(output: Output, path: str, option_pairs: Sequence[str]) -> None:
    """Move old completed instants into the timeline history (hoodie.keep.min.commits / max.commits)."""
    hudi_table = HudiTable(path, parse_options(option_pairs))
    with output.progress(f"archiving {hudi_table.base_uri}"):
        entry = service_entry("archive", hudi_table.archive())
    _emit_service(output, entry)


@click.command("rollback")
@click.argument("path")
@click.argument("instant", type=INSTANT_TIME)
@hudi_options
@global_flags
@click.pass_obj
def rollback(output: Output, path: str, instant: str, option_pairs: Sequence[str]) -> None:
    """Roll back a failed write, or the latest completed one."""
    hudi_table = HudiTable(path, parse_options(option_pairs))
    target = instant
    with output.progress(f"rolling back {target}"):
        done = hudi_table.rollback(target)
    entry: dict[str, Any] = {
        "action": done.action.value,
        "instant_time": done.requested_time,
        "completion_time": done.completion_time,
        "state": done.state.value,
        "counts": {},
        "rolled_back": target,
    }
    output.emit(entry, lambda console: print_line(console, f"rolled back {target} (rollback {done.requested_time})"))


def _render_savepoints(savepoints: list[str], console: Console) -> None:
    print_line(console, "savepoints: " + (", ".join(savepoints) if savepoints else "none"))


@click.command("savepoint")
@click.argument("path")
@click.argument("instant", required=False, type=INSTANT_TIME)
@click.option("--delete", is_flag=True, help="Delete the savepoint of INSTANT instead.")
@click.option("--list", "list_only", is_flag=True, help="List the table's savepoints.")
@click.option("--user", default="", help="Recorded in the savepoint.")
@click.option("--comment", default="", help="Recorded in the savepoint.")
@hudi_options
@global_flags
@click.pass_obj
def savepoint(
    output: Output,
    path: str,
    instant: str | None,
    delete: bool,
    list_only: bool,
    user: str,
    comment: str,
    option_pairs: Sequence[str],
) -> None:
    """Savepoint a completed commit (default: the latest) so its files are kept, or --delete / --list."""
    if delete and list_only:
        raise click.UsageError("--delete and --list exclude each other")
    hudi_table = HudiTable(path, parse_options(option_pairs))
    if list_only:
        savepoints = hudi_table.savepoints()
        output.emit({"savepoints": savepoints}, lambda console: _render_savepoints(savepoints, console))
        return
    if delete:
        if instant is None:
            raise click.UsageError("--delete needs the INSTANT whose savepoint to delete")
        target = instant
        hudi_table.delete_savepoint(target)
        entry = {"action": "savepoint", "instant_time": target, "state": "deleted"}
        output.emit(entry, lambda console: print_line(console, f"deleted savepoint {target}"))
        return
    if instant is None:
        commits = hudi_table.timeline.completed_data_instants()
        if not commits:
            raise click.UsageError("the table has no completed commit to savepoint")
        instant = commits[-1].requested_time
    _emit_service(output, service_entry("savepoint", hudi_table.savepoint(instant, user, comment)))


@click.command("restore")
@click.argument("path")
@click.argument("instant", type=INSTANT_TIME)
@hudi_options
@global_flags
@click.pass_obj
def restore(output: Output, path: str, instant: str, option_pairs: Sequence[str]) -> None:
    """Return the table to savepoint INSTANT: every later write is rolled back."""
    hudi_table = HudiTable(path, parse_options(option_pairs))
    with output.progress(f"restoring {hudi_table.base_uri} to {instant}"):
        entry = service_entry("restore", hudi_table.restore(instant))
    _emit_service(output, entry)
