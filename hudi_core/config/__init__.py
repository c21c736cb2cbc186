"""Hudi options: one declaration per `hoodie.*` key, parsed and validated up front.

Each option is a :class:`ConfigOption` declared once in a family module (`config/table.py`,
`config/read.py`, ...), under the exact key Apache Hudi uses, with its parser, default and
status. :class:`HudiConfigs` holds raw strings and hands out typed values; a malformed value
raises :class:`~hudi_core.errors.HudiConfigError` naming the key, never a silent default.
"""

from __future__ import annotations

import difflib
import enum
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from hudi_core.errors import HudiConfigError

logger = logging.getLogger(__name__)

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)


class OptionStatus(enum.Enum):
    """What this build does with an option."""

    IMPLEMENTED = "implemented"
    IGNORED = "ignored"  # accepted for compatibility; warned about once
    UNSUPPORTED = "unsupported"  # rejected with an error


@dataclass(frozen=True)
class ConfigOption(Generic[T]):
    """One Hudi option.

    Attributes:
        key: the exact key Apache Hudi uses.
        parser: turns the raw string into a typed value; raises ValueError when malformed.
        default: the typed default (Hudi 1.0.2's unless `doc` says otherwise), or None.
        doc: what the option does, and where its default comes from.
        aliases: older keys that mean the same.
        status: whether this build implements, ignores or rejects the option.
    """

    key: str
    parser: Callable[[str], T]
    default: T | None
    doc: str
    aliases: tuple[str, ...] = ()
    status: OptionStatus = OptionStatus.IMPLEMENTED

    def parse(self, raw: str) -> T:
        """Parses `raw`; raises HudiConfigError naming the key and value when malformed."""
        try:
            return self.parser(raw)
        except (ValueError, KeyError) as e:
            raise HudiConfigError(f"invalid value {raw!r} for option {self.key}: {e}") from e


_REGISTRY: dict[str, ConfigOption[Any]] = {}
_IGNORED_PREFIXES: dict[str, str] = {}
_warned: set[str] = set()
_warn_lock = threading.Lock()


def register(option: ConfigOption[T]) -> ConfigOption[T]:
    """Adds an option to the registry (family modules call this at import)."""
    for key in (option.key, *option.aliases):
        if key in _REGISTRY and _REGISTRY[key] is not option:
            raise RuntimeError(f"option {key} declared twice")
        _REGISTRY[key] = option
    return option


def option(
    key: str,
    parser: Callable[[str], T],
    default: T | None,
    doc: str,
    *,
    aliases: tuple[str, ...] = (),
    status: OptionStatus = OptionStatus.IMPLEMENTED,
) -> ConfigOption[T]:
    """Declares and registers an option."""
    return register(ConfigOption(key, parser, default, doc, aliases, status))


def ignore_prefix(prefix: str, reason: str) -> None:
    """Accepts every key under `prefix` with a one-time warning (e.g. hive sync)."""
    _IGNORED_PREFIXES[prefix] = reason


def registered_options() -> dict[str, ConfigOption[Any]]:
    """All registered options by key (aliases included)."""
    return dict(_REGISTRY)


def _warn_once(key: str, message: str) -> None:
    with _warn_lock:
        if key in _warned:
            return
        _warned.add(key)
    logger.warning(message)


def lookup(key: str) -> ConfigOption[Any] | None:
    """The option registered under `key` (or an alias), if any."""
    return _REGISTRY.get(key)


def validate_options(options: Mapping[str, str]) -> None:
    """Checks every key of `options` against the registry.

    Implemented options are parsed now, so a malformed value fails before any work starts;
    ignored options warn once; unsupported and unknown keys raise HudiConfigError (an unknown
    key names the closest known one).
    """
    for key, raw in options.items():
        if not isinstance(raw, str):
            raise HudiConfigError(f"option {key} must be given as a string, got {type(raw).__name__}")
        spec = _REGISTRY.get(key)
        if spec is None:
            prefix = next((p for p in _IGNORED_PREFIXES if key.startswith(p)), None)
            if prefix is not None:
                _warn_once(key, f"option {key} is accepted and ignored: {_IGNORED_PREFIXES[prefix]}")
                continue
            close = difflib.get_close_matches(key, list(_REGISTRY), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise HudiConfigError(f"unknown option {key}{hint}")
        if spec.status is OptionStatus.UNSUPPORTED:
            if spec.default is not None and str(spec.default).strip().lower() == raw.strip().lower():
                continue  # Hudi's own default: the behaviour this build has anyway
            raise HudiConfigError(f"option {key} is not supported by hudi_core: {spec.doc}")
        if spec.status is OptionStatus.IGNORED:
            _warn_once(key, f"option {key} is accepted and ignored: {spec.doc}")
            continue
        spec.parse(raw)


class HudiConfigs:
    """Raw option strings with typed, validated access.

    Later mappings given to the constructor override earlier ones, so
    `HudiConfigs(table_properties, user_options)` gives user options precedence.
    """

    def __init__(self, *layers: Mapping[str, str]) -> None:
        merged: dict[str, str] = {}
        for layer in layers:
            merged.update(layer)
        self._raw = merged

    @property
    def raw(self) -> dict[str, str]:
        """A copy of the raw key/value strings."""
        return dict(self._raw)

    def raw_value(self, spec: ConfigOption[Any]) -> str | None:
        """The raw string set for `spec` (its key first, then aliases), if any."""
        for key in (spec.key, *spec.aliases):
            if key in self._raw:
                return self._raw[key]
        return None

    def contains(self, spec: ConfigOption[Any]) -> bool:
        return self.raw_value(spec) is not None

    @overload
    def get(self, spec: ConfigOption[T], default: T) -> T: ...

    @overload
    def get(self, spec: ConfigOption[T]) -> T | None: ...

    def get(self, spec: ConfigOption[T], default: T | None = None) -> T | None:
        """The typed value of `spec`, else the option's own default, else `default`."""
        raw = self.raw_value(spec)
        if raw is not None:
            return spec.parse(raw)
        return spec.default if spec.default is not None else default

    def value(self, spec: ConfigOption[T]) -> T:
        """The typed value of an option that has a default (the value set, else the default)."""
        result = self.get(spec)
        if result is None:
            raise HudiConfigError(f"option {spec.key} has no value and no default")
        return result

    def require(self, spec: ConfigOption[T], where: str) -> T:
        """The typed value of `spec`; raises HudiConfigError naming `where` when it is absent."""
        raw = self.raw_value(spec)
        if raw is None:
            raise HudiConfigError(f"required option {spec.key} is missing from {where}")
        return spec.parse(raw)


# ---- value parsers shared by the families ---------------------------------------------------


def parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "false"):
        return value == "true"
    raise ValueError("expected true or false")


def parse_int(raw: str) -> int:
    return int(raw.strip())


def parse_str(raw: str) -> str:
    return raw


def parse_list(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def enum_parser(enum_type: type[E]) -> Callable[[str], E]:
    """Case-insensitive parser for a str-valued Enum (matches values and member names)."""

    def parse(raw: str) -> E:
        wanted = raw.strip().lower()
        for member in enum_type:
            if str(member.value).lower() == wanted or member.name.lower() == wanted:
                return member
        allowed = ", ".join(str(m.value) for m in enum_type)
        raise ValueError(f"expected one of {allowed}")

    return parse


def java_class_parser(enum_type: type[E], package: str, noun: str) -> Callable[[str], E]:
    """Parser of a Java class name option whose classes this build implements: the simple class
    name (any package) selects the member of `enum_type` whose value it is."""

    def parse(raw: str) -> E:
        name = raw.strip().rsplit(".", 1)[-1]
        for member in enum_type:
            if member.value == name:
                return member
        known = ", ".join(package + str(m.value) for m in enum_type)
        raise ValueError(f"{noun} {raw.strip()} cannot run here; use one of {known}")

    return parse


# The family modules register their options on import (they need the names above); the catalog
# then registers every other Hudi 1.0.2 key as ignored or unsupported.
from hudi_core.config import concurrency, metadata, read, services, table, write  # noqa: E402, F401
from hudi_core.config.catalog import register_catalog  # noqa: E402

register_catalog()
