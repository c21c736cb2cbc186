"""File-name grammars of base and log files (spec notes §3).

* base file: `<fileId>_<writeToken>_<instantTime>.<ext>`, e.g.
  `6e1d5cc4-...-0_2-986-2794_20251220210108078.parquet`; the instant is the commit, compaction
  or clustering that wrote it.
* log file: `.<fileId>_<instant>.log.<version>_<writeToken>[.cdc]`; on layout 2 (table v8+) the
  instant is the deltacommit that wrote the file, on layout 1 (v6) the base instant of its slice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BASE_RE = re.compile(r"^([A-Za-z0-9-]+)_([A-Za-z0-9-]+)_([0-9]+)\.([A-Za-z0-9]+)$")
_LOG_RE = re.compile(r"^\.([^_/]+)_([0-9]+)\.(log|archive)\.([0-9]+)(?:_([0-9]+-[0-9]+-[0-9]+))?(\.cdc)?$")

PARTITION_METAFILE_PREFIX = ".hoodie_partition_metadata"


@dataclass(frozen=True, slots=True)
class BaseFileName:
    file_id: str
    write_token: str
    instant_time: str
    extension: str

    @property
    def name(self) -> str:
        return f"{self.file_id}_{self.write_token}_{self.instant_time}.{self.extension}"


@dataclass(frozen=True, slots=True)
class LogFileName:
    file_id: str
    instant_time: str
    version: int
    write_token: str
    is_cdc: bool = False
    extension: str = "log"

    @property
    def name(self) -> str:
        token = f"_{self.write_token}" if self.write_token else ""
        cdc = ".cdc" if self.is_cdc else ""
        return f".{self.file_id}_{self.instant_time}.{self.extension}.{self.version}{token}{cdc}"

    def sort_key(self) -> tuple[str, int, str]:
        """Hudi's log-file order: instant, then version, then write token."""
        return (self.instant_time, self.version, self.write_token)


def parse_base_file_name(name: str) -> BaseFileName | None:
    """Parses a base file name; None when `name` is not one."""
    match = _BASE_RE.match(name)
    if match is None:
        return None
    file_id, token, instant, ext = match.groups()
    return BaseFileName(file_id, token, instant, ext)


def parse_log_file_name(name: str) -> LogFileName | None:
    """Parses a log file name; None when `name` is not one (e.g. a `.crc` checksum file)."""
    match = _LOG_RE.match(name)
    if match is None:
        return None
    file_id, instant, ext, version, token, cdc = match.groups()
    return LogFileName(file_id, instant, int(version), token or "", cdc is not None, ext)


def log_file_version(name: str) -> int:
    """The version of a log file name (the `N` of `.log.N_token`)."""
    parsed = parse_log_file_name(name)
    if parsed is None:
        raise ValueError(f"not a log file name: {name!r}")
    return parsed.version
