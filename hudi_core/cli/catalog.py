"""`sync`: register a table in the Hive metastore or AWS Glue (Hudi's `run_sync_tool.sh` / `CALL hive_sync`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console

from hudi_core.cli.options import global_flags, hudi_options, parse_options
from hudi_core.cli.render import Output, print_line
from hudi_core.sync import SyncResult, sync_table


def sync_entry(result: SyncResult) -> dict[str, Any]:
    """What a catalog's sync did, as the command prints it (also its --json form)."""
    return {
        "tool": result.tool.value,
        "tables": [
            {
                "table": t.table,
                "created": t.created,
                "definition_updated": t.definition_updated,
                "full_listing": t.full_listing,
                "partitions_added": list(t.partitions_added),
                "partitions_updated": list(t.partitions_updated),
                "partitions_dropped": list(t.partitions_dropped),
                "last_commit_time_sync": t.sync_point.commit_time,
                "last_commit_completion_time_sync": t.sync_point.completion_time,
            }
            for t in result.tables
        ],
        "calls": dict(result.calls),
    }


def _describe(entry: dict[str, Any]) -> list[str]:
    lines = []
    for t in entry["tables"]:
        changes = ["created"] if t["created"] else (["definition updated"] if t["definition_updated"] else [])
        changes += [
            f"{len(t[key])} partition(s) {verb}"
            for key, verb in (
                ("partitions_added", "added"),
                ("partitions_updated", "moved"),
                ("partitions_dropped", "dropped"),
            )
            if t[key]
        ]
        synced_to = t["last_commit_time_sync"] or "no commit"
        lines.append(f"{entry['tool']}: {t['table']}: {', '.join(changes) or 'no change'}; synced to {synced_to}")
    return lines


@click.command("sync")
@click.argument("path")
@hudi_options
@global_flags
@click.pass_obj
def sync(output: Output, path: str, option_pairs: Sequence[str]) -> None:
    """Register the table in a catalog: create or update the table and its partitions.

    The Hive metastore by default (-o hoodie.datasource.hive_sync.metastore.uris=thrift://host:9083);
    AWS Glue with -o hoodie.meta.sync.client.tool.class=org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool.
    Names: hoodie.datasource.hive_sync.database / .table (default: the table's own).
    """
    with output.progress(f"syncing {path}"):
        entries = [sync_entry(result) for result in sync_table(path, parse_options(option_pairs))]

    def render(console: Console) -> None:
        for entry in entries:
            for line in _describe(entry):
                print_line(console, line)

    output.emit(entries, render)
