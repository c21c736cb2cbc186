"""Inspect a Hudi table: open it, show its timeline, file slices and rows.

    python3 scripts/dev.py run python -m pipelines.inspect_table [--table NAME | --path PATH]

By default it reads `sample_table/cow/v9_txns_simple_nometa` from the conformance corpus (inserts,
updates, deletes, an INSERT OVERWRITE and a clustering, written by Apache Hudi 1.1 on Spark), then
time-travels to an earlier instant and reads the changes of the last commit incrementally.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from hudi_core import HudiTable
from pipelines.corpus import extract, manifest_entry

DEFAULT_TABLE = "sample_table/cow/v9_txns_simple_nometa"


def _format(table: pa.Table, limit: int = 20) -> str:
    """A plain-text grid of the first `limit` rows (no pandas needed)."""
    names = table.column_names
    rows = [[("" if v is None else str(v)) for v in row.values()] for row in table.slice(0, limit).to_pylist()]
    widths = [min(32, max([len(n), *(len(r[i]) for r in rows)])) for i, n in enumerate(names)]
    lines = ["  ".join(n[:w].ljust(w) for n, w in zip(names, widths, strict=True))]
    lines += ["  ".join(c[:w].ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    if table.num_rows > limit:
        lines.append(f"... {table.num_rows - limit} more rows")
    return "\n".join(lines)


def show(table: HudiTable) -> None:
    config = table.table_config
    print(f"table {config.name}: {config.table_type.value}, version {config.version}, at {table.base_uri}")
    print(f"  record key {config.record_key_fields}, partitions {config.partition_fields or '-'}")
    print("\ntimeline (requested -> completed, action, state):")
    timeline = table.timeline
    for instant in timeline.instants():
        kind = " (table service)" if timeline.is_table_service(instant) else ""
        print(
            f"  {instant.requested_time} -> {instant.completion_time or '-':17}  {instant.action.value:13} "
            f"{instant.state.value}{kind}"
        )
    print("\nlatest file slices:")
    for file_slice in table.file_slices():
        print(
            f"  {file_slice.partition_path or '.'}/{file_slice.file_id} @ {file_slice.base_instant}: "
            f"{file_slice.base_file}, {len(file_slice.log_files)} log file(s)"
        )
    data_columns = [n for n in table.schema.names if not n.startswith("_hoodie_")][:6]
    print("\nsnapshot:")
    print(_format(table.read(columns=["_hoodie_commit_time", *data_columns])))
    completed = timeline.completed()
    if len(completed) > 2:
        earlier = completed[len(completed) // 2].requested_time
        print(f"\ntime travel to {earlier}:")
        print(_format(table.read(columns=data_columns, as_of=earlier)))
    if len(completed) > 1:
        before = completed[-2]
        start = before.completion_time or before.requested_time
        print(f"\nincremental: changes after {start} (the last commit):")
        print(_format(table.read_incremental(start, columns=["_hoodie_commit_time", *data_columns])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", default=DEFAULT_TABLE, help="a conformance corpus table name")
    parser.add_argument("--path", help="read the Hudi table at this path instead")
    args = parser.parse_args(argv)
    if args.path:
        show(HudiTable(args.path))
        return 0
    with tempfile.TemporaryDirectory(prefix="hudi-demo-") as tmp:
        show(HudiTable(str(extract(manifest_entry(args.table), Path(tmp)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
