"""Timestamp-based partition paths (`TimestampBasedAvroKeyGenerator`).

The partition field holds a time (epoch seconds, millis or micros, a date string, or a scalar in
some unit); the partition path is that time formatted with `output.dateformat` (a Java
`SimpleDateFormat` pattern such as `yyyy/MM/dd/HH`) in the configured time zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.write import HudiKeyGenConfig
from hudi_core.errors import HudiConfigError, SchemaError

# Java SimpleDateFormat letters and their strftime equivalents (the subset partition paths use).
_JAVA_TO_STRFTIME = {
    "yyyy": "%Y",
    "yy": "%y",
    "MM": "%m",
    "dd": "%d",
    "HH": "%H",
    "hh": "%I",
    "mm": "%M",
    "ss": "%S",
    "SSS": "%f",  # milliseconds: handled specially (strftime %f is unit-dependent)
    "a": "%p",
    "EEE": "%a",
    "MMM": "%b",
    "D": "%j",
    "Z": "%z",
    "X": "%z",
    "XXX": "%z",
}
_TOKEN = re.compile(r"'[^']*'|yyyy|yy|MMM|MM|dd|HH|hh|mm|ss|SSS|EEE|XXX|Z|X|a|D")

_EPOCH_UNITS = {"UNIX_TIMESTAMP": "s", "EPOCHMILLISECONDS": "ms", "EPOCHMICROSECONDS": "us"}
_SCALAR_UNITS = {"NANOSECONDS": "ns", "MICROSECONDS": "us", "MILLISECONDS": "ms", "SECONDS": "s"}


def java_pattern_to_strftime(pattern: str) -> str:
    """Translates a Java date pattern to strftime; quoted text is kept literally."""

    def convert(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith("'"):
            return token[1:-1].replace("%", "%%") or "'"
        return _JAVA_TO_STRFTIME[token]

    pieces = []
    last = 0
    for match in _TOKEN.finditer(pattern):
        pieces.append(pattern[last : match.start()].replace("%", "%%"))
        pieces.append(convert(match))
        last = match.end()
    pieces.append(pattern[last:].replace("%", "%%"))
    return "".join(pieces)


@dataclass(frozen=True)
class TimestampPartitionFormat:
    """How one table turns a partition field's value into a time and a path."""

    timestamp_type: str
    output_format: str
    input_formats: tuple[str, ...] = ()
    timezone: str = "UTC"
    scalar_unit: str = "SECONDS"

    @classmethod
    def from_options(cls, options: dict[str, str]) -> TimestampPartitionFormat:
        """From `hoodie.keygen.timebased.*` settings keyed without that prefix."""
        timestamp_type = options.get("timestamp.type", "").strip().upper()
        if not timestamp_type and options.get("input.dateformat"):
            timestamp_type = "DATE_STRING"  # Hudi 0.x did not persist the type of date-string tables
        if timestamp_type not in (*_EPOCH_UNITS, "DATE_STRING", "SCALAR", "MIXED"):
            raise HudiConfigError(
                f"{HudiKeyGenConfig.TIMESTAMP_TYPE.key}={timestamp_type!r} is not supported "
                "(UNIX_TIMESTAMP, EPOCHMILLISECONDS, EPOCHMICROSECONDS, DATE_STRING, SCALAR, MIXED)"
            )
        delimiter = options.get("input.dateformat.list.delimiter.regex", ",") or ","
        inputs = tuple(p for p in re.split(delimiter, options.get("input.dateformat", "")) if p)
        zone = options.get("output.timezone") or options.get("timezone") or "UTC"
        return cls(
            timestamp_type=timestamp_type,
            output_format=options.get("output.dateformat", "yyyy-MM-dd"),
            input_formats=inputs,
            timezone=zone,
            scalar_unit=options.get("timestamp.scalar.time.unit", "SECONDS").upper(),
        )

    def to_times(self, values: Any, field: str) -> pa.Array | pa.ChunkedArray:
        """The partition field's values as UTC timestamps."""
        kind = self.timestamp_type
        if kind in _EPOCH_UNITS or kind == "SCALAR":
            unit = _EPOCH_UNITS.get(kind) or _SCALAR_UNITS.get(self.scalar_unit)
            if unit is None:
                raise HudiConfigError(f"unsupported scalar time unit {self.scalar_unit!r}")
            if pa.types.is_timestamp(values.type):
                return pc.cast(values, pa.timestamp(unit, tz="UTC"))
            numbers = pc.cast(values, pa.int64()) if not pa.types.is_integer(values.type) else values
            return pc.cast(pc.cast(numbers, pa.int64()), pa.timestamp(unit, tz="UTC"))
        if pa.types.is_timestamp(values.type):
            return values
        if pa.types.is_date(values.type):
            return pc.cast(pc.cast(values, pa.date32()), pa.timestamp("s", tz="UTC"))
        text = pc.cast(values, pa.string())
        for java_format in self.input_formats or ("yyyy-MM-dd'T'HH:mm:ss.SSSZ",):
            try:
                return _parse_dates(text, java_format)
            except (pa.ArrowInvalid, ValueError):
                continue
        raise SchemaError(f"partition field {field!r} holds dates that match none of {self.input_formats}")

    def format(self, values: Any, field: str) -> pa.Array | pa.ChunkedArray:
        """Partition path segments for the field's values (null stays null)."""
        epoch_ms = pc.cast(pc.cast(self.to_times(values, field), pa.timestamp("ms", tz="UTC")), pa.int64())
        # Whole seconds for strftime (its %S would print fractions); milliseconds formatted apart.
        seconds = pc.cast(pc.floor(pc.divide(pc.cast(epoch_ms, pa.float64()), 1000.0)), pa.int64())
        local = pc.cast(pc.cast(seconds, pa.timestamp("s", tz="UTC")), pa.timestamp("s", tz=self.timezone))
        pattern = java_pattern_to_strftime(self.output_format)
        if "%f" not in pattern:
            return pc.strftime(local, format=pattern)
        millis = pc.utf8_lpad(pc.cast(pc.subtract(epoch_ms, pc.multiply(seconds, 1000)), pa.string()), 3, "0")
        head, tail = pattern.split("%f", 1)
        return pc.binary_join_element_wise(pc.strftime(local, format=head), millis, pc.strftime(local, format=tail), "")


_FIELD_REGEX = {
    "yyyy": r"(?P<year>\d{4})",
    "MM": r"(?P<month>\d{2})",
    "dd": r"(?P<day>\d{2})",
    "HH": r"(?P<hour>\d{2})",
    "mm": r"(?P<minute>\d{2})",
    "ss": r"(?P<second>\d{2})",
    "SSS": r"(?P<milli>\d{3})",
    "Z": r"(?P<zone>Z|[+-]\d{2}:?\d{2})",
    "X": r"(?P<zone>Z|[+-]\d{2}:?\d{2})",
    "XXX": r"(?P<zone>Z|[+-]\d{2}:?\d{2})",
}


def _parse_dates(text: Any, java_format: str) -> pa.Array | pa.ChunkedArray:
    """Parses date strings with a Java pattern: fields are extracted with a regex, then combined."""
    regex = []
    last = 0
    for match in _TOKEN.finditer(java_format):
        regex.append(re.escape(java_format[last : match.start()]))
        token = match.group(0)
        if token.startswith("'"):
            regex.append(re.escape(token[1:-1]))
        elif token in _FIELD_REGEX:
            regex.append(_FIELD_REGEX[token])
        else:
            raise ValueError(f"date pattern letter {token!r} is not supported in input dates")
        last = match.end()
    regex.append(re.escape(java_format[last:]))
    parts = pc.extract_regex(text, pattern="^" + "".join(regex) + "$")
    names = [parts.type.field(i).name for i in range(parts.type.num_fields)]

    def part(name: str, default: str) -> Any:
        return pc.struct_field(parts, name) if name in names else default

    iso = pc.binary_join_element_wise(
        part("year", "1970"),
        "-",
        part("month", "01"),
        "-",
        part("day", "01"),
        "T",
        part("hour", "00"),
        ":",
        part("minute", "00"),
        ":",
        part("second", "00"),
        "",
    )
    seconds = pc.cast(pc.strptime(iso, format="%Y-%m-%dT%H:%M:%S", unit="ms", error_is_null=False), pa.int64())
    millis = pc.cast(part("milli", "0"), pa.int64()) if "milli" in names else 0
    offset_ms: Any = 0
    if "zone" in names:
        zone = pc.replace_substring(pc.struct_field(parts, "zone"), ":", "")
        zone = pc.if_else(pc.equal(zone, "Z"), "+0000", zone)
        sign = pc.if_else(pc.starts_with(zone, "-"), -1, 1)
        hours = pc.cast(pc.utf8_slice_codeunits(zone, 1, 3), pa.int64())
        minutes = pc.cast(pc.utf8_slice_codeunits(zone, 3, 5), pa.int64())
        offset_ms = pc.multiply(sign, pc.multiply(pc.add(pc.multiply(hours, 60), minutes), 60_000))
    return pc.cast(pc.subtract(pc.add(seconds, millis), offset_ms), pa.timestamp("ms", tz="UTC"))
