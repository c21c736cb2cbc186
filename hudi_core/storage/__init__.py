"""Storage: every byte hudi_core reads or writes goes through :class:`Storage`.

A Storage is rooted at a table's base path and addresses files by paths relative to it
("" is the base path itself, "city=sf/x.parquet" a data file). It wraps a
`pyarrow.fs.FileSystem`, chosen from the URI scheme (plain paths and `file://` are local).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs

from hudi_core.errors import HudiStorageError


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One directory entry: a name relative to the listed directory, its size and kind."""

    name: str
    size: int
    is_dir: bool


def _resolve(base_uri: str, options: Mapping[str, str]) -> tuple[pafs.FileSystem, str, str]:
    if "://" not in base_uri:
        path = os.path.abspath(os.path.expanduser(base_uri))
        return pafs.LocalFileSystem(), path, "file://" + path
    if base_uri.startswith("file://"):
        path = os.path.abspath(base_uri[len("file://") :])
        return pafs.LocalFileSystem(), path, "file://" + path
    try:
        fs, path = pafs.FileSystem.from_uri(base_uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
        raise HudiStorageError(f"cannot open storage for {base_uri}: {e}") from e
    return fs, path.rstrip("/"), base_uri.rstrip("/")


class Storage:
    """Files under one base path.

    Args:
        base_uri: a local path, a `file://` URI, or any URI pyarrow has a file system for.
        options: storage options (reserved for object-store credentials).
    """

    def __init__(self, base_uri: str, options: Mapping[str, str] | None = None) -> None:
        self.fs, self.base_path, self.base_uri = _resolve(base_uri, options or {})

    def full_path(self, relative: str) -> str:
        """The file-system path of `relative` (which may be "" for the base path)."""
        return posixpath.join(self.base_path, relative) if relative else self.base_path

    def sub(self, relative: str) -> Storage:
        """A Storage rooted at `relative` below this one (sharing the file system)."""
        child = Storage.__new__(Storage)
        child.fs = self.fs
        child.base_path = self.full_path(relative)
        child.base_uri = posixpath.join(self.base_uri, relative)
        return child

    def list_dir(self, relative: str = "") -> list[FileEntry]:
        """Entries directly in `relative`; an absent directory lists as empty."""
        selector = pafs.FileSelector(self.full_path(relative), allow_not_found=True, recursive=False)
        try:
            infos = self.fs.get_file_info(selector)
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot list {self.full_path(relative)}: {e}") from e
        return [
            FileEntry(info.base_name, info.size or 0, info.type == pafs.FileType.Directory)
            for info in infos
            if info.type in (pafs.FileType.File, pafs.FileType.Directory)
        ]

    def exists(self, relative: str) -> bool:
        try:
            info = self.fs.get_file_info(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot stat {self.full_path(relative)}: {e}") from e
        return bool(info.type != pafs.FileType.NotFound)

    def read_bytes(self, relative: str) -> bytes:
        try:
            with self.fs.open_input_stream(self.full_path(relative)) as stream:
                return bytes(stream.read())
        except FileNotFoundError as e:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}") from e
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot read {self.full_path(relative)}: {e}") from e

    def open_input_file(self, relative: str) -> pa.NativeFile:
        """A random-access file (for Parquet readers)."""
        try:
            return self.fs.open_input_file(self.full_path(relative))
        except FileNotFoundError as e:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}") from e
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot open {self.full_path(relative)}: {e}") from e
