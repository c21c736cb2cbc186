"""Output: rich tables for people, JSON on stdout for machines, progress and errors on stderr.

Every command builds one JSON-able payload and hands it to :meth:`Output.emit` with a function that
renders it for people, so `--json` and the human output always carry the same facts.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, cast

import pyarrow as pa
import pyarrow.compute as pc
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

# Without a terminal rich would wrap at 80 columns; piped output goes to files and grep, so it is not
# wrapped at all (tables still take only the width they need).
PIPE_WIDTH = 4096
NULL_TEXT = "null"
NON_PARTITIONED = "(non-partitioned)"  # how the "" partition of an unpartitioned table shows


class Output:
    """Where a command's results go; set up by the global `--json` and `--debug` flags."""

    def __init__(self) -> None:
        self.json_mode = False
        self.debug = False
        self._console: Console | None = None
        self._errors: Console | None = None

    @property
    def console(self) -> Console:
        """stdout, for human-readable results."""
        if self._console is None:
            self._console = _console(sys.stdout, stderr=False)
        return self._console

    @property
    def errors(self) -> Console:
        """stderr, for progress and messages that are not results."""
        if self._errors is None:
            self._errors = _console(sys.stderr, stderr=True)
        return self._errors

    def emit(self, payload: Any, render: Callable[[Console], None]) -> None:
        """Prints `payload` as JSON under `--json`, else lets `render` print it for people."""
        if self.json_mode:
            sys.stdout.write(json.dumps(jsonable(payload), indent=2, allow_nan=False) + "\n")
            sys.stdout.flush()
        else:
            render(self.console)

    @contextmanager
    def progress(self, message: str) -> Iterator[Callable[[str], None]]:
        """A spinner on stderr while a long operation runs (only on a terminal: logs stay clean).

        Yields a function that replaces the text shown after `message` (e.g. a row count).
        """
        if not self.errors.is_terminal:
            yield lambda _detail: None
            return
        with self.errors.status(Text(message)) as status:
            yield lambda detail: status.update(Text(f"{message} {detail}"))


class _TrimmedLines(io.TextIOBase):
    """A text stream that drops the trailing spaces of every line (rich pads table cells to their
    column's width), so piped output diffs and pastes cleanly."""

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._partial = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]  # rich picks ASCII boxes for ASCII streams
        return getattr(self._target, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        if lines:
            self._target.write("".join(line.rstrip() + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._partial:
            self._target.write(self._partial)
            self._partial = ""
        self._target.flush()


def _console(stream: TextIO, stderr: bool) -> Console:
    if stream.isatty():
        return Console(stderr=stderr, highlight=False)
    width = None if "COLUMNS" in os.environ else PIPE_WIDTH
    # typeshed types the file as IO[str]; rich only writes, flushes and asks for the encoding.
    trimmed = cast(TextIO, _TrimmedLines(stream))
    return Console(file=trimmed, width=width, highlight=False, soft_wrap=False)


# ---- JSON ----------------------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """`value` with everything json.dumps cannot take turned into strings (as Spark's to_json does)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v) for v in items]
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    return str(value)


def rows_as_json(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of an Arrow table as JSON-able dicts (column order kept)."""
    return [jsonable(row) for row in table.to_pylist()]


# ---- human-readable pieces -----------------------------------------------------------------------


_BINARY_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB")


def format_bytes(size: int | float) -> str:
    """1536 -> '1.5 KiB', 2048 -> '2 KiB'."""
    if size < 1024:
        return f"{int(size)} B"
    exponent = min(int(math.log(size, 1024)), len(_BINARY_UNITS))
    value = f"{size / 1024**exponent:.1f}".removesuffix(".0")
    return f"{value} {_BINARY_UNITS[exponent - 1]}"


def cell(value: Any) -> Text:
    """A table cell showing `value` literally (data may hold rich markup such as `[x]`)."""
    if value is None:
        return Text(NULL_TEXT, style="dim")
    if isinstance(value, Text):
        return value
    if isinstance(value, bool):
        return Text(str(value).lower())
    return Text(str(value))


def table(
    title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Sequence[str] = ()
) -> Table:
    """A rich table; `numeric` columns are right-aligned."""
    grid = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name in columns:
        grid.add_column(name, justify="right" if name in numeric else "left", overflow="fold")
    for row in rows:
        grid.add_row(*(cell(v) for v in row))
    return grid


def key_values(title: str | None, pairs: Iterable[tuple[str, Any]]) -> Table:
    """A two-column table of labelled values."""
    grid = Table(title=title, title_justify="left", box=None, show_header=False, pad_edge=False)
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    for key, value in pairs:
        grid.add_row(Text(key), cell(", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value))
    return grid


def print_line(console: Console, text: str) -> None:
    """Prints text literally (no markup, no highlighting)."""
    console.print(Text(text), soft_wrap=True)


def rows_table(data: pa.Table) -> Table:
    """The rows of an Arrow table as a rich table."""
    rows = zip(*(column.to_pylist() for column in data.columns), strict=True) if data.num_columns else ()
    numeric = [f.name for f in data.schema if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]
    return table(None, data.column_names, rows, numeric)


# Above this many rows a table is laid out as plain text: rich measures every cell of every row
# (about half a millisecond per row), plain text costs a string per cell.
RICH_ROW_LIMIT = 500
PLAIN_CELL_WIDTH = 60


def _cell_texts(column: pa.ChunkedArray) -> list[str]:
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind):
        texts = pc.cast(column, pa.string()) if not pa.types.is_string(kind) else column
        return [NULL_TEXT if v is None else v for v in texts.to_pylist()]
    return [str(cell(v)) for v in column.to_pylist()]


def plain_rows(data: pa.Table) -> Iterator[str]:
    """The rows of an Arrow table as aligned plain-text lines (header first), each cell cut to
    PLAIN_CELL_WIDTH characters."""
    columns = []
    for field, column in zip(data.schema, data.columns, strict=True):
        texts = [t if len(t) <= PLAIN_CELL_WIDTH else t[: PLAIN_CELL_WIDTH - 1] + "…" for t in _cell_texts(column)]
        width = max([len(field.name), *map(len, texts)])
        numeric = pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
        columns.append(([t.rjust(width) if numeric else t.ljust(width) for t in texts], field.name, width, numeric))
    yield "  ".join(name.rjust(w) if n else name.ljust(w) for _, name, w, n in columns).rstrip()
    yield "  ".join("─" * w for _, _, w, _ in columns)
    for row in zip(*(texts for texts, _, _, _ in columns), strict=True):
        yield "  ".join(row).rstrip()
