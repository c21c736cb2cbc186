"""Looking at a table without changing it: `info`, `timeline`, `commits`, `show-files`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console

from hudi_core.cli.options import INSTANT_TIME, global_flags, hudi_options, parse_options
from hudi_core.cli.render import NON_PARTITIONED, Output, format_bytes, key_values, print_line, table
from hudi_core.config.properties import PROPERTIES_NAME
from hudi_core.file_group import FileSlice
from hudi_core.hudi_table import HudiTable
from hudi_core.table.listing import FileListing
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant

# ---- info ----------------------------------------------------------------------------------------


def slice_totals(slices: Sequence[FileSlice]) -> dict[str, int]:
    """File groups, base and log files, and bytes of some latest slices."""
    return {
        "file_groups": len(slices),
        "base_files": sum(1 for s in slices if s.base_file),
        "log_files": sum(len(s.log_files) for s in slices),
        "bytes": sum(s.total_size for s in slices),
    }


def table_info(hudi_table: HudiTable) -> dict[str, Any]:
    state = hudi_table.planner.state()
    config, timeline = state.config, state.timeline
    slices = hudi_table.file_slices()
    by_partition: dict[str, list[FileSlice]] = {}
    for file_slice in slices:
        by_partition.setdefault(file_slice.partition_path, []).append(file_slice)
    # Partitions come from the table's listing, so partitions whose file groups were all replaced show too.
    partitions = sorted(set(FileListing(hudi_table.storage, timeline, config=config).partitions()) | set(by_partition))
    completed = timeline.completed()
    latest = max(completed, key=timeline.completion_order_key) if completed else None
    return {
        "base_uri": hudi_table.base_uri,
        "name": config.name,
        "table_type": config.table_type.value,
        "table_version": config.version,
        "timeline_layout_version": config.timeline_layout_version,
        "record_key_fields": config.record_key_fields,
        "partition_fields": config.partition_fields,
        "ordering_fields": config.ordering_fields,
        "key_generator": config.key_generator_type.value,
        "record_merge_mode": config.record_merge_mode.value,
        "metadata_partitions": config.metadata_partitions,
        "instants": {
            "completed": len(completed),
            "pending": len(timeline.pending()),
            "latest_completed": instant_entry(timeline, latest) if latest is not None else None,
            "has_archive": timeline.has_archive(),
        },
        "totals": {"partitions": len(partitions), **slice_totals(slices)},
        "partitions": [{"partition": p, **slice_totals(by_partition.get(p, []))} for p in partitions],
        "schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in hudi_table.schema],
        "properties": dict(sorted(config.raw.items())),
    }


def _render_info(info: dict[str, Any], console: Console) -> None:
    totals, instants = info["totals"], info["instants"]
    latest = instants["latest_completed"]
    console.print(
        key_values(
            f"table {info['name']}",
            [
                ("base path", info["base_uri"]),
                ("type", info["table_type"]),
                ("version", f"{info['table_version']} (timeline layout {info['timeline_layout_version']})"),
                ("record key", info["record_key_fields"] or "-"),
                ("partition fields", info["partition_fields"] or "-"),
                ("ordering fields", info["ordering_fields"] or "-"),
                ("key generator", info["key_generator"]),
                ("merge mode", info["record_merge_mode"]),
                ("metadata table", info["metadata_partitions"] or "-"),
                ("instants", f"{instants['completed']} completed, {instants['pending']} pending"),
                ("latest instant", f"{latest['requested_time']} {latest['action']}" if latest else "-"),
                (
                    "files",
                    f"{totals['file_groups']} file groups, {totals['base_files']} base files, "
                    f"{totals['log_files']} log files, {format_bytes(totals['bytes'])} in {totals['partitions']} "
                    "partition(s)",
                ),
            ],
        )
    )
    console.print()
    console.print(
        table("schema", ["column", "type", "nullable"], ([c["name"], c["type"], c["nullable"]] for c in info["schema"]))
    )
    console.print()
    columns = ["partition", "file groups", "base files", "log files", "bytes"]
    rows = (
        [
            p["partition"] or NON_PARTITIONED,
            p["file_groups"],
            p["base_files"],
            p["log_files"],
            format_bytes(p["bytes"]),
        ]
        for p in info["partitions"]
    )
    console.print(table("partitions (latest file slices)", columns, rows, numeric=columns[1:]))
    console.print()
    console.print(key_values(PROPERTIES_NAME, info["properties"].items()))


@click.command("info")
@click.argument("path")
@hudi_options
@global_flags
@click.pass_obj
def info(output: Output, path: str, option_pairs: Sequence[str]) -> None:
    """Table config (hoodie.properties), schema, partitions and sizes."""
    payload = table_info(HudiTable(path, parse_options(option_pairs)))
    output.emit(payload, lambda console: _render_info(payload, console))


# ---- timeline ------------------------------------------------------------------------------------


def instant_entry(timeline: Timeline, instant: Instant) -> dict[str, Any]:
    """An active instant; `requested_action` tells a compaction from the commit it completes as."""
    return {
        "requested_time": instant.requested_time,
        "completion_time": instant.completion_time,
        "action": instant.action.value,
        "requested_action": timeline.pending_action(instant).value,
        "state": instant.state.value,
        "archived": False,
    }


def archived_entry(requested_time: str, completion_time: str | None, action: str) -> dict[str, Any]:
    """An instant of the archived timeline (always completed; its requested action is not kept)."""
    return {
        "requested_time": requested_time,
        "completion_time": completion_time,
        "action": action,
        "requested_action": action,
        "state": "completed",
        "archived": True,
    }


def _latest(entries: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    entries.sort(key=lambda e: (e["requested_time"], e["action"]))
    return entries[-limit:] if limit else entries


def timeline_entries(hudi_table: HudiTable, include_archived: bool, limit: int | None) -> list[dict[str, Any]]:
    timeline = hudi_table.timeline
    entries = [instant_entry(timeline, i) for i in timeline.instants()]
    if include_archived:
        entries += [archived_entry(a.requested_time, a.completion_time, a.action) for a in timeline.archived()]
    return _latest(entries, limit)


def _action_label(entry: dict[str, Any]) -> str:
    action, requested = entry["action"], entry["requested_action"]
    return action if action == requested else f"{action} ({requested})"


def _render_timeline(entries: list[dict[str, Any]], console: Console) -> None:
    if not entries:
        print_line(console, "no instants")
        return
    rows = (
        [
            e["requested_time"],
            e["completion_time"] or "-",
            _action_label(e),
            e["state"] + (" (archived)" if e["archived"] else ""),
        ]
        for e in entries
    )
    console.print(table(None, ["requested", "completed", "action", "state"], rows))


_all_option = click.option("--all", "include_archived", is_flag=True, help="Include archived instants.")
_limit_option = click.option(
    "--limit", type=click.IntRange(min=0), default=None, help="Show only the latest N instants (0: all)."
)


@click.command("timeline")
@click.argument("path")
@_all_option
@_limit_option
@global_flags
@click.pass_obj
def timeline_command(output: Output, path: str, include_archived: bool, limit: int | None) -> None:
    """Every instant: requested and completion time, action, state (oldest first)."""
    entries = timeline_entries(HudiTable(path), include_archived, limit)
    output.emit(entries, lambda console: _render_timeline(entries, console))


# ---- commits -------------------------------------------------------------------------------------


def commit_entries(hudi_table: HudiTable, include_archived: bool, limit: int | None) -> list[dict[str, Any]]:
    """Completed commits, deltacommits and replacecommits with what their commit metadata counts."""
    timeline = hudi_table.timeline
    instants = timeline.completed_data_instants()
    archived = timeline.archived_data_instants() if include_archived else []
    entries = []
    for instant in [*archived, *instants]:
        if timeline.find(instant.requested_time) is None:
            entry = archived_entry(instant.requested_time, instant.completion_time, instant.action.value)
        else:
            entry = instant_entry(timeline, instant)
        metadata = timeline.commit_metadata(instant)
        stats = metadata.write_stats()
        entry.update(
            {
                "operation": metadata.operation_type,
                "partitions": len({s.partition_path for s in stats}),
                "files_added": sum(1 for s in stats if s.prev_commit is None),
                "files_updated": sum(1 for s in stats if s.prev_commit is not None),
                "file_groups_replaced": sum(len(ids) for ids in metadata.partition_to_replace_file_ids.values()),
                "records_written": sum(s.num_writes for s in stats),
                "inserts": sum(s.num_inserts for s in stats),
                "updates": sum(s.num_update_writes for s in stats),
                "deletes": sum(s.num_deletes for s in stats),
                "bytes_written": sum(s.total_write_bytes for s in stats),
                "files": sorted(s.path for s in stats),
            }
        )
        entries.append(entry)
    return _latest(entries, limit)


def _render_commits(entries: list[dict[str, Any]], console: Console) -> None:
    if not entries:
        print_line(console, "no completed commits")
        return
    columns = ["requested", "completed", "action", "operation", "partitions", "files +/~", "replaced"]
    columns += ["inserts", "updates", "deletes", "written"]
    rows = (
        [
            e["requested_time"] + (" (archived)" if e["archived"] else ""),
            e["completion_time"] or "-",
            _action_label(e),
            e["operation"] or "-",
            e["partitions"],
            f"{e['files_added']}/{e['files_updated']}",
            e["file_groups_replaced"],
            e["inserts"],
            e["updates"],
            e["deletes"],
            format_bytes(e["bytes_written"]),
        ]
        for e in entries
    )
    console.print(table(None, columns, rows, numeric=columns[4:]))


@click.command("commits")
@click.argument("path")
@_all_option
@_limit_option
@global_flags
@click.pass_obj
def commits(output: Output, path: str, include_archived: bool, limit: int | None) -> None:
    """Completed writes and services with rows inserted/updated/deleted and files touched."""
    entries = commit_entries(HudiTable(path), include_archived, limit)
    output.emit(entries, lambda console: _render_commits(entries, console))


# ---- show-files ----------------------------------------------------------------------------------


def slice_entry(file_slice: FileSlice) -> dict[str, Any]:
    return {
        "partition": file_slice.partition_path,
        "file_id": file_slice.file_id,
        "base_instant": file_slice.base_instant,
        "base_file": file_slice.base_file,
        "base_file_size": file_slice.base_file_size,
        "log_files": [
            {"name": name, "size": size}
            for name, size in zip(file_slice.log_files, file_slice.log_file_sizes, strict=True)
        ],
        "total_size": file_slice.total_size,
    }


def _render_slices(entries: list[dict[str, Any]], console: Console) -> None:
    if not entries:
        print_line(console, "no file slices")
        return
    columns = ["partition", "file id", "base instant", "base file", "size", "log files"]
    rows = (
        [
            e["partition"] or NON_PARTITIONED,
            e["file_id"],
            e["base_instant"],
            e["base_file"] or "-",
            format_bytes(e["base_file_size"]) if e["base_file"] else "-",
            "\n".join(f"{log['name']} ({format_bytes(log['size'])})" for log in e["log_files"]) or "-",
        ]
        for e in entries
    )
    console.print(table(None, columns, rows, numeric=["size"]))


@click.command("show-files")
@click.argument("path")
@click.option("--partition", "partitions", multiple=True, help="Only this partition path (repeatable).")
@click.option("--as-of", type=INSTANT_TIME, help="The slices as of this instant (time travel).")
@hudi_options
@global_flags
@click.pass_obj
def show_files(
    output: Output, path: str, partitions: Sequence[str], as_of: str | None, option_pairs: Sequence[str]
) -> None:
    """The latest file slice of every file group: base file, size, log files."""
    hudi_table = HudiTable(path, parse_options(option_pairs))
    slices = hudi_table.file_slices(as_of)
    if partitions:
        wanted = {p.strip("/") for p in partitions}
        slices = [s for s in slices if s.partition_path in wanted]
        known = set(FileListing(hudi_table.storage, hudi_table.timeline).partitions())
        unknown = sorted(wanted - known - {s.partition_path for s in slices})
        if unknown:
            raise click.BadParameter(
                f"no partition {', '.join(unknown)} in the table; partitions: {', '.join(sorted(known)) or '-'}",
                param_hint="'--partition'",
            )
    entries = [slice_entry(s) for s in sorted(slices, key=lambda s: (s.partition_path, s.file_id))]
    output.emit(entries, lambda console: _render_slices(entries, console))
