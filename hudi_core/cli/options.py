"""Parsing what users type: `-o key=value` Hudi options, `--filter` expressions, instant ranges.

Parsing errors are click.BadParameter, so they print as usage errors (exit code 2). Values are
kept as strings: HudiTable coerces filter values to the column's type from the table schema.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from hudi_core.cli.render import Output
from hudi_core.config.services import HudiCleanConfig
from hudi_core.timeline.instant import normalize_instant_time

F = TypeVar("F", bound=Callable[..., Any])

FILTER_OPERATORS = ("not in", "in", "!=", "<>", "==", "<=", ">=", "=", "<", ">")
# Longest operators first, so `>=` is not read as `>` followed by a value starting with `=`.
_FILTER_RE = re.compile(
    r"^\s*(?P<column>[^\s=!<>]+)\s*(?P<op>!=|<>|==|<=|>=|=|<|>|(?<=\s)(?:not\s+in|in)(?=[\s(]))\s*(?P<value>.*?)\s*$",
    re.IGNORECASE,
)
_QUOTES = ("'", '"')
# An incremental END is an instant in digits; anything else after a colon belongs to START
# ('yyyy-MM-dd HH:mm:ss' holds colons of its own).
_RANGE_END_RE = re.compile(r"^\d{14}(?:\d{3})?$")


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`key=value` strings as a dict (a later key wins, as with repeated Spark options)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint="'-o' / '--option'")
        options[key.strip()] = value.strip()
    return options


def _unquote(text: str, expression: str) -> str:
    """`text` without its quotes; a quote that is opened and not closed (or the reverse) is an error."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        return text[1:-1]
    if text[:1] in _QUOTES or text[-1:] in _QUOTES:
        raise _filter_error(expression, f"unbalanced quote in {text!r}")
    return text


def _filter_error(expression: str, reason: str) -> click.BadParameter:
    return click.BadParameter(f"cannot parse filter {expression!r}: {reason}", param_hint="'--filter'")


def parse_filter(expression: str) -> tuple[str, str, Any]:
    """`"fare > 10"`, `"city = 'sf'"`, `"city in (sf, nyc)"` as a (column, op, value) triple.

    `in` and `not in` take a comma-separated list, with or without parentheses.
    """
    match = _FILTER_RE.match(expression)
    if match is None or not match["value"]:
        raise click.BadParameter(
            f"cannot parse filter {expression!r}: expected COLUMN OP VALUE with OP one of "
            f"{', '.join(FILTER_OPERATORS)}",
            param_hint="'--filter'",
        )
    op = " ".join(match["op"].lower().split())
    value = match["value"]
    if op in ("in", "not in"):
        if value.startswith("(") != value.endswith(")"):
            raise _filter_error(expression, "unbalanced parentheses around the values")
        if value.startswith("("):
            value = value[1:-1]
        if "(" in value or ")" in value:
            raise _filter_error(expression, "parentheses inside the list of values")
        items = [_unquote(item.strip(), expression) for item in value.split(",") if item.strip()]
        if not items:
            raise click.BadParameter(f"filter {expression!r} lists no values", param_hint="'--filter'")
        return match["column"], op, items
    return match["column"], op, _unquote(value, expression)


def parse_instant_range(text: str) -> tuple[str, str | None]:
    """`START[:END]` of an incremental query; START may be `earliest`. A malformed instant raises
    TimelineError naming `--incremental`."""
    start, sep, end = text.rpartition(":")
    if not (sep and start.strip() and _RANGE_END_RE.match(end.strip())):
        start, end = text, ""
    start, end = start.strip(), end.strip()
    for instant in (start, end):
        if instant and instant.lower() != "earliest":
            normalize_instant_time(instant, "--incremental")
    return start, end or None


class InstantTime(click.ParamType[str, str]):
    """An instant as users type it (17 or 14 digits, 'yyyy-MM-dd[ HH:mm:ss[.SSS]]'), normalized to
    17 digits; a malformed one raises TimelineError naming the option or argument."""

    name = "instant"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if param is None:
            where = "the instant"
        else:
            where = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
        return normalize_instant_time(value, where)


INSTANT_TIME = InstantTime()


def split_list(text: str | None) -> list[str]:
    """A comma-separated list (`a,b`) as its non-empty items."""
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def hudi_options(function: F) -> F:
    """The repeatable `-o/--option key=value` of Hudi's Spark datasource options."""
    return click.option(
        "-o",
        "--option",
        "option_pairs",
        multiple=True,
        metavar="KEY=VALUE",
        help=(
            "A Hudi option under its Spark datasource name (repeatable), "
            f"e.g. -o {HudiCleanConfig.COMMITS_RETAINED.key}=2."
        ),
    )(function)


def _enable_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(Output).json_mode = True


def _enable_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(Output).debug = True
        logging.getLogger("hudi_core").setLevel(logging.DEBUG)


def global_flags(function: F) -> F:
    """`--json` and `--debug`, accepted before the command name and after it alike."""
    function = click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_enable_debug,
        help="Show the traceback of an error and hudi_core's debug log.",
    )(function)
    return click.option(
        "--json",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_enable_json,
        help="Print machine-readable JSON on stdout; an error is then one JSON object on stderr, "
        '{"error": {"type": ..., "message": ...}} (exit code 2).',
    )(function)
