"""The `hudi-core` command group and how a run ends: exit code 0 on success, 1 when `validate`
finds problems, 2 on any error: one `error: ...` line on stderr, or under `--json` one JSON object
`{"error": {"type": ..., "message": ...}}` on stderr (stdout carries results only); `--debug`
prints the traceback first."""

from __future__ import annotations

import json
import logging
import sys
import traceback
from collections.abc import Sequence

import click
import pyarrow as pa

from hudi_core.cli import catalog, data, health, inspection, services
from hudi_core.cli.options import global_flags
from hudi_core.cli.render import Output
from hudi_core.errors import HudiError

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
PROG_NAME = "hudi-core"
# Failures users cause and can act on: their message is the whole story, no "internal error" hint.
_EXPECTED_ERRORS = (HudiError, OSError, pa.ArrowException)


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    invoke_without_command=True,
)
@click.version_option(package_name="hudi-dagster", prog_name=PROG_NAME)
@global_flags
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Inspect, read, write and maintain Apache Hudi tables (hudi-cli and Hudi's Spark procedures).

    Every command takes the table's base path (or file:// URI) first. Hudi options use their
    Spark datasource names: -o hoodie.datasource.write.operation=insert.

    Exit codes: 0 success, 1 `validate` found problems, 2 error. An error is one line on stderr;
    with --json it is one JSON object on stderr: {"error": {"type": "...", "message": "..."}}.
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


for command in (
    data.create,
    inspection.info,
    inspection.timeline_command,
    inspection.commits,
    inspection.show_files,
    data.read,
    data.write,
    services.compact,
    services.cluster,
    services.clean,
    services.archive,
    services.rollback,
    services.savepoint,
    services.restore,
    health.validate,
    health.stats,
    catalog.sync,
):
    cli.add_command(command)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _error_message(error: BaseException) -> str:
    if isinstance(error, click.UsageError) and error.ctx is not None:
        return f"{error.format_message()} (see '{error.ctx.command_path} --help')"
    if isinstance(error, click.ClickException):
        return error.format_message()
    if isinstance(error, _EXPECTED_ERRORS):
        return str(error) or type(error).__name__
    return f"{type(error).__name__}: {error} (an internal error; --debug shows the traceback)"


def _error_type(error: BaseException) -> str:
    return "UsageError" if isinstance(error, click.UsageError) else type(error).__name__


def _fail(output: Output, error: BaseException, json_mode: bool) -> int:
    if output.debug:
        traceback.print_exception(error)
    message = _one_line(_error_message(error))
    if json_mode:
        sys.stderr.write(json.dumps({"error": {"type": _error_type(error), "message": message}}) + "\n")
    else:
        sys.stderr.write(f"error: {message}\n")
    return EXIT_ERROR


def _asks_for_json(argv: Sequence[str]) -> bool:
    """Whether `--json` was given (also when parsing failed before the flag took effect)."""
    options = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in options


def main(argv: Sequence[str] | None = None) -> int:
    """Runs `hudi-core` with `argv` (default: the process arguments); returns the exit code."""
    logging.basicConfig(format="%(levelname)s: %(message)s", level=logging.WARNING)
    output = Output()
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        result = cli.main(args=args, prog_name=PROG_NAME, obj=output, standalone_mode=False)
    except click.exceptions.Exit as stop:
        return stop.exit_code
    except (click.Abort, KeyboardInterrupt):
        sys.stderr.write("error: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0  # the reader (`| head`) has all it wanted
    except Exception as error:
        return _fail(output, error, output.json_mode or _asks_for_json(args))
    # Without standalone mode, click returns the exit code of ctx.exit() instead of raising it.
    return result if isinstance(result, int) else 0
