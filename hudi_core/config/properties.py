"""`hoodie.properties`: Java Properties text, with Hudi's table checksum.

Java's `Properties.store` escapes `:`, `=`, `#`, `!` and whitespace with a backslash and writes
non-ASCII characters as `\\uXXXX`; `Properties.load` accepts `=`, `:` or whitespace as the
key/value separator, `#`/`!` comment lines and backslash line continuations. Hudi stores
`hoodie.table.checksum` = CRC32 of "<database>.<table>" (spec notes §2.2) and Java refuses a
file whose checksum does not match.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from datetime import UTC, datetime

from hudi_core.errors import FileFormatError

PROPERTIES_NAME = "hoodie.properties"
PROPERTIES_FILE = f".hoodie/{PROPERTIES_NAME}"
PROPERTIES_BACKUP_FILE = f"{PROPERTIES_FILE}.backup"  # written beside it while it is updated

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    """Joins backslash-continued lines, dropping comments and blank lines."""
    lines: list[str] = []
    pending = ""
    for physical in text.splitlines():
        line = physical.lstrip() if pending else physical.lstrip(" \t\f")
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:  # an odd number of backslashes continues the line
            pending += line[:-1]
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _unescape(text: str, where: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2 : i + 6]
            try:
                out.append(chr(int(digits, 16)))
            except ValueError as e:
                raise FileFormatError(f"{where}: malformed \\u escape {text[i : i + 6]!r}") from e
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def parse_properties(text: str, where: str = PROPERTIES_NAME) -> dict[str, str]:
    """Parses Java Properties text into an ordered dict (later duplicates win, as in Java)."""
    result: dict[str, str] = {}
    for line in _logical_lines(text):
        key_end = 0
        while key_end < len(line):
            ch = line[key_end]
            if ch == "\\":
                key_end += 2
                continue
            if ch in "=: \t\f":
                break
            key_end += 1
        raw_key = line[:key_end]
        rest = line[key_end:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")
        result[_unescape(raw_key, where)] = _unescape(rest, where)
    return result


def _escape(text: str, is_key: bool) -> str:
    out: list[str] = []
    for index, ch in enumerate(text):
        if ch == " ":
            out.append("\\ " if is_key or index == 0 else " ")
        elif ch in "\\=:#!":
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\f":
            out.append("\\f")
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            out.extend(f"\\u{unit:04X}" for unit in _utf16_units(ch))
        else:
            out.append(ch)
    return "".join(out)


def _utf16_units(ch: str) -> list[int]:
    data = ch.encode("utf-16-be")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def format_properties(props: Mapping[str, str], comment: str, now: datetime | None = None) -> str:
    """Formats `props` as `Properties.store` does: a comment line, a date line, then key=value."""
    moment = now or datetime.now(UTC)
    lines = [f"#{comment}", "#" + moment.strftime("%a %b %d %H:%M:%S UTC %Y")]
    lines.extend(f"{_escape(k, True)}={_escape(v, False)}" for k, v in props.items())
    return "\n".join(lines) + "\n"


def table_checksum(database: str | None, table_name: str) -> int:
    """Hudi's `hoodie.table.checksum`: CRC32 of "<database>.<table>" (database "" when unset)."""
    return zlib.crc32(f"{database or ''}.{table_name}".encode())
