"""Checks of operator arguments, made when the DAG file is parsed: a bad argument is a DAG import
error that names the task and the choices, not a task failure at run time."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hudi_core.config import validate_options
from hudi_core.config.write import WriteOperation
from hudi_core.errors import HudiConfigError

ENGINES = ("arrow", "spark")
WRITE_OPERATIONS = tuple(o.value for o in WriteOperation if o is not WriteOperation.DELETE_PARTITION)


class HudiOperatorArgumentError(ValueError):
    """An operator argument that cannot work, found at DAG parse time."""


def is_templated(value: Any) -> bool:
    """Whether a string still holds a Jinja template (rendered only when the task runs)."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def check_choice(task_id: str, argument: str, value: Any, choices: Collection[str]) -> None:
    """`value` must be one of `choices` (unless it is a template)."""
    if is_templated(value):
        return
    if value not in choices:
        raise HudiOperatorArgumentError(
            f"task {task_id!r}: {argument}={value!r} is not one of {', '.join(map(repr, choices))}"
        )


def check_path(task_id: str, argument: str, value: Any) -> None:
    """`value` must be a non-empty path or URI string."""
    if not isinstance(value, str) or not value.strip():
        raise HudiOperatorArgumentError(f"task {task_id!r}: {argument} must be a table path or URI, got {value!r}")


def check_options(task_id: str, options: Mapping[str, Any] | None) -> None:
    """Hudi options are `hoodie.*` names with string values."""
    if options is None or is_templated(options):
        return
    if not isinstance(options, Mapping):
        raise HudiOperatorArgumentError(f"task {task_id!r}: hudi_options must be a dict of hoodie.* options")
    bad = sorted(k for k in options if not isinstance(k, str) or not k.startswith("hoodie."))
    if bad:
        raise HudiOperatorArgumentError(f"task {task_id!r}: hudi_options takes hoodie.* names only, not {bad}")


def check_option_values(task_id: str, options: Mapping[str, Any] | None) -> None:
    """The values of `options` parse (those still templates are checked when the task runs)."""
    if not options or is_templated(options):
        return
    concrete = {k: v for k, v in options.items() if not is_templated(v)}
    try:
        validate_options(concrete)
    except HudiConfigError as e:
        raise HudiOperatorArgumentError(f"task {task_id!r}: {e}") from e
