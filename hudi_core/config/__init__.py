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
N = TypeVar("N", int, float)


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

    def parse(self, raw: str, given_key: str | None = None) -> T:
        """Parses `raw`; raises HudiConfigError naming the key (`given_key`, the alias the user set,
        when given) and the value when it is malformed or out of range."""
        try:
            return self.parser(raw)
        except (ValueError, KeyError) as e:
            raise HudiConfigError(f"invalid value {raw!r} for option {given_key or self.key}: {e}") from e

    @property
    def value_range(self) -> NumberRange[Any] | None:
        """The range a numeric option's values must lie in (None for other options)."""
        return self.parser if isinstance(self.parser, NumberRange) else None


_REGISTRY: dict[str, ConfigOption[Any]] = {}
_IGNORED_PREFIXES: dict[str, str] = {}
_PASS_THROUGH: list[ConfigOption[str]] = []
_ALWAYS_PASSED: set[str] = set()
_RELATIONS: list[Callable[[HudiConfigs], None]] = []
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


def relation(check: Callable[[HudiConfigs], None]) -> Callable[[HudiConfigs], None]:
    """Registers a check between options (Hudi's `HoodieWriteConfig.Builder.validate`): it gets the
    options being validated, defaults filled in, and raises HudiConfigError naming every key involved."""
    _RELATIONS.append(check)
    return check


def ignore_prefix(prefix: str, reason: str) -> None:
    """Accepts every key under `prefix` with a one-time warning (e.g. hive sync)."""
    _IGNORED_PREFIXES[prefix] = reason


def pass_through(option: ConfigOption[str]) -> ConfigOption[str]:
    """Declares `option`'s value a key prefix: keys under it are the caller's own (commit metadata,
    for `hoodie.datasource.write.commitmeta.key.prefix`), accepted without a declaration."""
    _PASS_THROUGH.append(option)
    return option


def always_passed(key: str) -> str:
    """Declares `key` passed through whatever the pass-through prefixes are (a metadata key Hudi's own
    components write, such as the streaming sink's checkpoint)."""
    _ALWAYS_PASSED.add(key)
    return key


def pass_through_keys(options: Mapping[str, str]) -> dict[str, str]:
    """The options under a pass-through prefix (see `pass_through`), and those `always_passed`, as given."""
    configs = HudiConfigs(options)
    prefixes = tuple(configs.value(option) for option in _PASS_THROUGH)
    return {k: v for k, v in options.items() if k not in _REGISTRY and (k.startswith(prefixes) or k in _ALWAYS_PASSED)}


def with_declared_case(options: Mapping[str, str]) -> dict[str, str]:
    """`options` with each key spelled as declared (Spark hands a data source its keys lower-cased,
    and some Hudi keys are not: `hoodie.datasource.streaming.startOffset`)."""
    declared = {key.lower(): key for key in _REGISTRY}
    return {key if key in _REGISTRY else declared.get(key.lower(), key): value for key, value in options.items()}


def registered_options() -> dict[str, ConfigOption[Any]]:
    """All registered options by key (aliases included)."""
    return dict(_REGISTRY)


def warn_once(key: str, message: str) -> None:
    """Logs `message` once per process for `key`."""
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

    Implemented options are parsed now, so a malformed or out-of-range value fails before any
    work starts, and so do values that contradict each other (the registered relations); ignored
    options warn once; unsupported and unknown keys raise HudiConfigError (an unknown key names
    the closest known one).
    """
    passed_through = pass_through_keys(options)
    for key, raw in options.items():
        if not isinstance(raw, str):
            raise HudiConfigError(f"option {key} must be given as a string, got {type(raw).__name__}")
        spec = _REGISTRY.get(key)
        if key in passed_through:
            continue
        if spec is None:
            prefix = next((p for p in _IGNORED_PREFIXES if key.startswith(p)), None)
            if prefix is not None:
                warn_once(key, f"option {key} is accepted and ignored: {_IGNORED_PREFIXES[prefix]}")
                continue
            close = difflib.get_close_matches(key, list(_REGISTRY), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise HudiConfigError(f"unknown option {key}{hint}")
        if spec.status is OptionStatus.UNSUPPORTED:
            if spec.default is not None and str(spec.default).strip().lower() == raw.strip().lower():
                continue  # Hudi's own default: the behaviour this build has anyway
            raise HudiConfigError(f"option {key} is not supported by hudi_core: {spec.doc}")
        if spec.status is OptionStatus.IGNORED:
            warn_once(key, f"option {key} is accepted and ignored: {spec.doc}")
            continue
        spec.parse(raw, key)
    configs = HudiConfigs(options)
    for check in _RELATIONS:
        check(configs)


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
        found = self.given_key(spec)
        return None if found is None else self._raw[found]

    def given_key(self, spec: ConfigOption[Any]) -> str | None:
        """The key (`spec.key` or an alias) under which `spec` is set, if it is."""
        return next((key for key in (spec.key, *spec.aliases) if key in self._raw), None)

    def contains(self, spec: ConfigOption[Any]) -> bool:
        return self.raw_value(spec) is not None

    @overload
    def get(self, spec: ConfigOption[T], default: T) -> T: ...

    @overload
    def get(self, spec: ConfigOption[T]) -> T | None: ...

    def get(self, spec: ConfigOption[T], default: T | None = None) -> T | None:
        """The typed value of `spec`, else the option's own default, else `default`."""
        key = self.given_key(spec)
        if key is not None:
            return spec.parse(self._raw[key], key)
        return spec.default if spec.default is not None else default

    def value(self, spec: ConfigOption[T]) -> T:
        """The typed value of an option that has a default (the value set, else the default)."""
        result = self.get(spec)
        if result is None:
            raise HudiConfigError(f"option {spec.key} has no value and no default")
        return result

    def require(self, spec: ConfigOption[T], where: str) -> T:
        """The typed value of `spec`; raises HudiConfigError naming `where` when it is absent."""
        key = self.given_key(spec)
        if key is None:
            raise HudiConfigError(f"required option {spec.key} is missing from {where}")
        return spec.parse(self._raw[key], key)


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


@dataclass(frozen=True)
class NumberRange(Generic[N]):
    """Parser of a numeric option whose value must lie between `low` and `high` (None: unbounded).

    `exclusive` leaves the bounds themselves out (a probability in (0, 1)). Values outside the
    range are refused when options are validated, before any instant is requested, so a write
    never fails half-way over a setting.
    """

    number: Callable[[str], N]
    low: N | None = None
    high: N | None = None
    exclusive: bool = False

    def __call__(self, raw: str) -> N:
        try:
            value = self.number(raw.strip())
        except ValueError:
            raise ValueError(f"expected {self.describe()}") from None
        if not self.contains(value):
            raise ValueError(f"expected {self.describe()}")
        return value

    def contains(self, value: N) -> bool:
        if self.exclusive:
            return (self.low is None or value > self.low) and (self.high is None or value < self.high)
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def describe(self) -> str:
        noun = "an integer" if self.number is int else "a number"
        low_op, high_op = (">", "<") if self.exclusive else (">=", "<=")
        bounds = [f"{op} {bound}" for op, bound in ((low_op, self.low), (high_op, self.high)) if bound is not None]
        return f"{noun} {' and '.join(bounds)}" if bounds else noun


def int_at_least(low: int) -> NumberRange[int]:
    """An integer option of at least `low` (sizes and counts: 1; thresholds: 0)."""
    return NumberRange(int, low)


def int_in_range(low: int, high: int) -> NumberRange[int]:
    """An integer option in [low, high]."""
    return NumberRange(int, low, high)


def fraction_between(low: float, high: float) -> NumberRange[float]:
    """A number strictly between `low` and `high` (a false-positive rate in (0, 1))."""
    return NumberRange(float, low, high, exclusive=True)


def one_of(*values: str) -> Callable[[str], str]:
    """Case-insensitive parser of a string option with a closed set of values (upper-cased)."""

    def parse(raw: str) -> str:
        value = raw.strip().upper()
        if value not in values:
            raise ValueError(f"expected one of {', '.join(values)}")
        return value

    return parse


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
from hudi_core.config import concurrency, metadata, read, services, sync, table, write  # noqa: E402, F401
from hudi_core.config.catalog import register_catalog  # noqa: E402

register_catalog()
