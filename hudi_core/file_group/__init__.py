"""File groups and file slices.

A file group (partition path + file id) holds successive file slices; a slice is one base file
(or none, for log-only groups) plus the log files written on top of it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass


@dataclass(frozen=True)
class FileSlice:
    """One version of a file group.

    Attributes:
        partition_path: the partition, relative to the base path ("" when non-partitioned).
        file_id: the file group id.
        base_instant: the instant that created the slice (its base file's instant, or for a
            log-only slice the instant of its first log file).
        base_file: the base file name, or None for a log-only slice.
        log_files: log file names, in merge order.
        base_file_size: the base file's size in bytes (0 when there is none).
        log_file_sizes: sizes of `log_files`, in the same order.
    """

    partition_path: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...] = ()
    base_file_size: int = 0
    log_file_sizes: tuple[int, ...] = ()

    @property
    def base_file_path(self) -> str | None:
        """The base file path relative to the table base path."""
        return posixpath.join(self.partition_path, self.base_file) if self.base_file else None

    @property
    def log_file_paths(self) -> list[str]:
        """Log file paths relative to the table base path."""
        return [posixpath.join(self.partition_path, name) for name in self.log_files]

    @property
    def has_logs(self) -> bool:
        return bool(self.log_files)

    @property
    def total_size(self) -> int:
        return self.base_file_size + sum(self.log_file_sizes)
