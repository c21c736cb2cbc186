"""Rows in and out: `create`, `write`, `read`."""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq
from rich.console import Console

from hudi_core.cli.inspection import table_info
from hudi_core.cli.options import (
    INSTANT_TIME,
    global_flags,
    hudi_options,
    parse_filter,
    parse_instant_range,
    parse_options,
    split_list,
)
from hudi_core.cli.render import (
    NON_PARTITIONED,
    RICH_ROW_LIMIT,
    Output,
    format_bytes,
    jsonable,
    plain_rows,
    print_line,
    rows_as_json,
    rows_table,
    table,
)
from hudi_core.cli.services import describe_service, service_entry
from hudi_core.config.read import HudiReadConfig, IncrementalFormat, QueryType
from hudi_core.config.table import HudiTableConfig
from hudi_core.config.write import HudiWriteConfig
from hudi_core.hudi_table import HudiTable, table_exists, write_hudi
from hudi_core.schema.avro import avro_to_arrow_schema, parse_avro_schema
from hudi_core.schema.meta_fields import without_meta_fields
from hudi_core.write.client import WriteResult
from hudi_core.write.operation import WriteOperation

FORMATS = ("parquet", "csv", "json")
_SUFFIX_FORMATS = {
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
}
DEFAULT_DISPLAY_ROWS = 20


def file_format(path: str, given: str | None) -> str:
    """The format of a data file: `given`, else from its suffix."""
    if given is not None:
        return given
    found = _SUFFIX_FORMATS.get(Path(path).suffix.lower())
    if found is None:
        raise click.UsageError(f"cannot tell the format of {path} from its suffix: pass --format {'|'.join(FORMATS)}")
    return found


# ---- reading data files --------------------------------------------------------------------------


def read_data_file(path: str, fmt: str, table_schema: pa.Schema | None = None) -> pa.Table:
    """A Parquet, CSV or JSON-lines file as Arrow.

    CSV and JSON carry no types: given the table's schema, columns the table has are read (CSV) or
    cast (JSON) to the table's types, so a write does not evolve the schema by inference alone.
    """
    if fmt == "parquet":
        return pq.read_table(path)
    if fmt == "csv":
        types = {f.name: f.type for f in table_schema} if table_schema is not None else None
        return pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))
    data = pajson.read_json(path)
    if table_schema is None:
        return data
    for index, name in enumerate(data.column_names):
        position = table_schema.get_field_index(name)
        if position >= 0 and data.schema.field(index).type != table_schema.field(position).type:
            column = pc.cast(data.column(index), table_schema.field(position).type)
            data = data.set_column(index, name, column)
    return data


def read_schema(path: str, fmt: str) -> pa.Schema:
    """The schema of a sample data file (Parquet from its footer)."""
    if fmt == "parquet":
        return pq.read_schema(path)
    return read_data_file(path, fmt).schema


def _avro_schema(text: str) -> pa.Schema:
    """An Avro record schema given as a file or inline JSON."""
    source = text
    if not text.lstrip().startswith("{") and os.path.exists(text):
        source = Path(text).read_text(encoding="utf-8")
    return avro_to_arrow_schema(parse_avro_schema(source, "--schema"))


# ---- create --------------------------------------------------------------------------------------


def _render_created(info: dict[str, Any], console: Console) -> None:
    print_line(console, f"created {info['table_type']} table {info['name']} at {info['base_uri']}")
    rows = ([c["name"], c["type"], c["nullable"]] for c in info["schema"])
    console.print(table(None, ["column", "type", "nullable"], rows))


@click.command("create")
@click.argument("path")
@click.option(
    "--like", "sample", type=click.Path(exists=True, dir_okay=False), help="Take the schema from this data file."
)
@click.option("--schema", "avro_schema", help="Or: an Avro record schema, as a file or inline JSON.")
@click.option("--format", "sample_format", type=click.Choice(FORMATS), help="Format of --like (default: its suffix).")
@click.option("--name", "table_name", help=f"{HudiTableConfig.NAME.key} (default: the last folder of PATH).")
@click.option(
    "--type",
    "table_type",
    type=click.Choice(["COPY_ON_WRITE", "MERGE_ON_READ", "cow", "mor"], case_sensitive=False),
    default="COPY_ON_WRITE",
    show_default=True,
)
@click.option("--record-key", required=True, help="Record key field(s), comma-separated.")
@click.option("--partition-by", help="Partition field(s), comma-separated (`field:simple|timestamp` allowed).")
@click.option("--ordering-field", help="The ordering (precombine) field: the latest value wins on merges.")
@hudi_options
@global_flags
@click.pass_obj
def create(
    output: Output,
    path: str,
    sample: str | None,
    avro_schema: str | None,
    sample_format: str | None,
    table_name: str | None,
    table_type: str,
    record_key: str,
    partition_by: str | None,
    ordering_field: str | None,
    option_pairs: Sequence[str],
) -> None:
    """Create an empty table (version 8) with a schema taken from a data file or an Avro schema."""
    if (sample is None) == (avro_schema is None):
        raise click.UsageError("give the schema with exactly one of --like FILE or --schema AVRO")
    if sample is not None:
        schema = without_meta_fields(read_schema(sample, file_format(sample, sample_format)))
    else:
        schema = _avro_schema(avro_schema or "")
    kind = {"cow": "COPY_ON_WRITE", "mor": "MERGE_ON_READ"}.get(table_type.lower(), table_type.upper())
    hudi_table = HudiTable.create(
        path,
        schema,
        table_name or posixpath.basename(path.rstrip("/")),
        split_list(record_key),
        split_list(partition_by),
        [ordering_field] if ordering_field else None,
        kind,
        parse_options(option_pairs),
    )
    info = table_info(hudi_table)
    output.emit(info, lambda console: _render_created(info, console))


# ---- write ---------------------------------------------------------------------------------------


def write_entry(result: WriteResult) -> dict[str, Any]:
    return {
        "instant_time": result.instant_time,
        "completion_time": result.completion_time,
        "operation": result.operation.value,
        "inserts": result.inserts,
        "updates": result.updates,
        "deletes": result.deletes,
        "files_written": result.files_written,
        "bytes_written": sum(s.bytes_written for s in result.stats.values()),
        "partitions": {
            partition: {
                "inserts": s.inserts,
                "updates": s.updates,
                "deletes": s.deletes,
                "files_written": s.files_written,
                "bytes_written": s.bytes_written,
            }
            for partition, s in sorted(result.stats.items())
        },
        "replaced_file_groups": {p: sorted(ids) for p, ids in sorted(result.replaced_file_groups.items())},
        "table_services": [service_entry(s.action, s) for s in result.table_services],
    }


def _render_write(entry: dict[str, Any], console: Console) -> None:
    print_line(
        console,
        f"{entry['operation']} {entry['instant_time']} completed: {entry['inserts']} inserted, "
        f"{entry['updates']} updated, {entry['deletes']} deleted; {entry['files_written']} file(s) written "
        f"({format_bytes(entry['bytes_written'])})",
    )
    if entry["partitions"]:
        columns = ["partition", "inserts", "updates", "deletes", "files", "bytes"]
        rows = (
            [
                p or NON_PARTITIONED,
                s["inserts"],
                s["updates"],
                s["deletes"],
                s["files_written"],
                format_bytes(s["bytes_written"]),
            ]
            for p, s in entry["partitions"].items()
        )
        console.print(table(None, columns, rows, numeric=columns[1:]))
    replaced = sum(len(ids) for ids in entry["replaced_file_groups"].values())
    if replaced:
        print_line(console, f"replaced {replaced} file group(s)")
    for service in entry["table_services"]:
        print_line(console, "inline " + describe_service(service))


@click.command("write")
@click.argument("path")
@click.argument("data_file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--operation",
    type=click.Choice([op.value for op in WriteOperation], case_sensitive=False),
    help=f"{HudiWriteConfig.OPERATION.key} (default: upsert).",
)
@click.option("--format", "data_format", type=click.Choice(FORMATS), help="Format of the file (default: its suffix).")
@hudi_options
@global_flags
@click.pass_obj
def write(
    output: Output,
    path: str,
    data_file: str | None,
    operation: str | None,
    data_format: str | None,
    option_pairs: Sequence[str],
) -> None:
    """Write a Parquet, CSV or JSON-lines file into the table (created on first write from -o options)."""
    options = parse_options(option_pairs)
    operation_key = HudiWriteConfig.OPERATION.key
    if operation is not None:
        if options.get(operation_key, operation).lower() != operation.lower():
            raise click.UsageError(f"--operation {operation} contradicts -o {operation_key}={options[operation_key]}")
        options[operation_key] = operation.lower()
    deleting_partitions = options.get(operation_key, "").lower() == WriteOperation.DELETE_PARTITION.value
    if deleting_partitions and data_file is not None:
        raise click.UsageError(
            f"delete_partition takes no FILE: name partitions with -o {HudiWriteConfig.PARTITIONS_TO_DELETE.key}=..."
        )
    if not deleting_partitions and data_file is None:
        raise click.UsageError("missing the data FILE to write")
    data = None
    if data_file is not None:
        table_schema = without_meta_fields(HudiTable(path).schema) if table_exists(path) else None
        data = read_data_file(data_file, file_format(data_file, data_format), table_schema)
    rows = f"{data.num_rows} rows " if data is not None else ""
    with output.progress(f"writing {rows}to {path}"):
        result = write_hudi(path, data, options)
    entry = write_entry(result)
    output.emit(entry, lambda console: _render_write(entry, console))


# ---- read ----------------------------------------------------------------------------------------


def _limited(reader: pa.RecordBatchReader, limit: int | None) -> Iterator[pa.RecordBatch]:
    """The reader's batches, cut after `limit` rows (all of them when None)."""
    remaining = limit
    for batch in reader:
        if remaining is None:
            yield batch
            continue
        if remaining <= 0:
            return
        piece = batch.slice(0, remaining)
        remaining -= piece.num_rows
        yield piece


def export_rows(reader: pa.RecordBatchReader, target: str, fmt: str, limit: int | None, output: Output) -> int:
    """Streams rows into a Parquet, CSV or JSON-lines file; returns how many were written."""
    written = 0
    with output.progress(f"exporting to {target}") as show:
        if fmt == "json":
            with open(target, "w", encoding="utf-8") as sink:
                for batch in _limited(reader, limit):
                    for row in batch.to_pylist():
                        sink.write(json.dumps(jsonable(row), allow_nan=False) + "\n")
                    written += batch.num_rows
                    show(f"{written} rows")
            return written
        writer: pq.ParquetWriter | pacsv.CSVWriter = (
            pq.ParquetWriter(target, reader.schema) if fmt == "parquet" else pacsv.CSVWriter(target, reader.schema)
        )
        with writer:
            for batch in _limited(reader, limit):
                writer.write_batch(batch)
                written += batch.num_rows
                show(f"{written} rows")
    return written


def _read_options(incremental: str | None, cdc: bool) -> dict[str, str]:
    """Hudi's read options for `--incremental START[:END]` and `--cdc` (a CDC query is incremental)."""
    if incremental is None and not cdc:
        return {}
    start, end = parse_instant_range(incremental) if incremental is not None else ("earliest", None)
    options = {HudiReadConfig.QUERY_TYPE.key: QueryType.INCREMENTAL.value, HudiReadConfig.BEGIN_INSTANT_TIME.key: start}
    if end is not None:
        options[HudiReadConfig.END_INSTANT_TIME.key] = end
    if cdc:
        options[HudiReadConfig.INCREMENTAL_FORMAT.key] = IncrementalFormat.CDC.value
    return options


def _render_rows(rows: pa.Table, truncated: bool, console: Console) -> None:
    if rows.num_rows > RICH_ROW_LIMIT:
        console.file.write("\n".join(plain_rows(rows)) + "\n")
    else:
        console.print(rows_table(rows))
    if truncated:
        print_line(console, f"first {rows.num_rows} rows shown; --limit N shows more (0: all)")
    else:
        print_line(console, f"{rows.num_rows} row(s)")


@click.command("read")
@click.argument("path")
@click.option("--as-of", type=INSTANT_TIME, help="Time travel: the table as of this instant.")
@click.option("--incremental", metavar="START[:END]", help="Records changed by instants completed after START.")
@click.option("--cdc", is_flag=True, help="Change data capture rows (op, ts_ms, before, after) of --incremental.")
@click.option("--columns", help="Only these columns, comma-separated, in this order.")
@click.option(
    "--filter", "filter_expressions", multiple=True, metavar="EXPR", help="e.g. 'fare > 10', \"city in (sf, nyc)\"."
)
@click.option("--no-meta", is_flag=True, help="Leave out the _hoodie_* meta columns.")
@click.option(
    "--limit", type=click.IntRange(min=0), help=f"At most N rows (0: all; default {DEFAULT_DISPLAY_ROWS} on screen)."
)
@click.option("--output", "target", type=click.Path(dir_okay=False), help="Export the rows to this file.")
@click.option("--format", "target_format", type=click.Choice(FORMATS), help="Export format (default: its suffix).")
@hudi_options
@global_flags
@click.pass_obj
def read(
    output: Output,
    path: str,
    as_of: str | None,
    incremental: str | None,
    cdc: bool,
    columns: str | None,
    filter_expressions: Sequence[str],
    no_meta: bool,
    limit: int | None,
    target: str | None,
    target_format: str | None,
    option_pairs: Sequence[str],
) -> None:
    """Print rows (snapshot, time travel, incremental or CDC) or export them to a file."""
    fmt = file_format(target, target_format) if target is not None else None
    filters = [parse_filter(expression) for expression in filter_expressions] or None
    hudi_table = HudiTable(path, parse_options(option_pairs))
    read_options = _read_options(incremental, cdc)
    selected = split_list(columns) or None
    if hudi_table.planner.is_cdc_query(read_options):
        # CDC rows are built per commit in memory; HudiTable rejects columns and filters for them.
        changes = hudi_table.read(selected, filters, as_of, read_options)
        reader = pa.RecordBatchReader.from_batches(changes.schema, changes.to_batches())
    else:
        if no_meta and selected is None:
            selected = without_meta_fields(hudi_table.schema).names
        reader = hudi_table.read_batches(selected, filters, as_of, read_options)
    if target is not None and fmt is not None:
        count = export_rows(reader, target, fmt, limit or None, output)
        entry = {"output": target, "format": fmt, "rows": count, "columns": reader.schema.names}
        output.emit(entry, lambda console: print_line(console, f"wrote {count} row(s) to {target} ({fmt})"))
        return
    shown = DEFAULT_DISPLAY_ROWS if limit is None else limit or None
    # One row past the limit tells whether rows were left out.
    batches = list(_limited(reader, shown + 1 if shown is not None else None))
    rows = pa.Table.from_batches(batches, reader.schema)
    truncated = shown is not None and rows.num_rows > shown
    rows = rows.slice(0, shown) if truncated else rows
    if output.json_mode:
        output.emit({"columns": rows.column_names, "rows": rows_as_json(rows), "truncated": truncated}, lambda _: None)
    else:
        output.emit(None, lambda console: _render_rows(rows, truncated, console))
