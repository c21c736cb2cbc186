"""Storage: every byte hudi_core reads or writes goes through :class:`Storage`.

A Storage is rooted at a table's base path and addresses files by paths relative to it
("" is the base path itself, "city=sf/x.parquet" a data file). It wraps a
`pyarrow.fs.FileSystem`, chosen from the URI scheme (plain paths and `file://` are local).

Publishing must be atomic: :meth:`Storage.create_exclusive` creates a file only if it does not
exist (O_EXCL locally), and :meth:`Storage.write_atomic` replaces a file by writing a temporary
sibling and renaming it, so readers never see a partial file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import uuid
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

    def full_uri(self, relative: str) -> str:
        """The URI of `relative` as Hudi records it in plans (`file:/...` for local paths)."""
        if self.is_local:
            return "file:" + self.full_path(relative)
        return posixpath.join(self.base_uri, relative) if relative else self.base_uri

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

    # ---- writing -------------------------------------------------------------------------------

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def makedirs(self, relative: str) -> None:
        try:
            self.fs.create_dir(self.full_path(relative), recursive=True)
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot create directory {self.full_path(relative)}: {e}") from e

    def open_output(self, relative: str) -> pa.NativeFile:
        """A new output stream at `relative` (parents created), replacing any existing file."""
        parent = posixpath.dirname(relative)
        if parent:
            self.makedirs(parent)
        try:
            return self.fs.open_output_stream(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot write {self.full_path(relative)}: {e}") from e

    def write_bytes(self, relative: str, data: bytes) -> None:
        """Writes a whole file (not atomically: for files no reader trusts before publication)."""
        with self.open_output(relative) as stream:
            stream.write(data)

    def write_atomic(self, relative: str, data: bytes) -> None:
        """Replaces `relative` with `data` so that readers see the old or the new file, never a part."""
        temporary = f"{relative}.{uuid.uuid4().hex}.tmp"
        self.write_bytes(temporary, data)
        self.rename(temporary, relative)

    def create_exclusive(self, relative: str, data: bytes) -> bool:
        """Creates `relative` holding `data` unless it exists; returns whether this call created it.

        Locally a fully written temporary file is hard-linked to the name: link() fails if the name
        exists, so creation is exclusive and readers never see a partial file.
        """
        if not self.is_local:
            raise HudiStorageError(f"create-if-absent is not available on {type(self.fs).__name__} yet")
        path = self.full_path(relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{uuid.uuid4().hex}.tmp"
        try:
            with open(temporary, "wb") as f:
                f.write(data)
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError as e:
            raise HudiStorageError(f"cannot create {path}: {e}") from e
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        return True

    def rename(self, source: str, target: str) -> None:
        try:
            self.fs.move(self.full_path(source), self.full_path(target))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot rename {self.full_path(source)} to {self.full_path(target)}: {e}") from e

    def delete(self, relative: str, missing_ok: bool = True) -> None:
        try:
            self.fs.delete_file(self.full_path(relative))
        except FileNotFoundError:
            if not missing_ok:
                raise HudiStorageError(f"file not found: {self.full_path(relative)}") from None
        except OSError as e:
            if e.errno == errno.ENOENT and missing_ok:
                return
            raise HudiStorageError(f"cannot delete {self.full_path(relative)}: {e}") from e

    def delete_dir(self, relative: str) -> None:
        try:
            self.fs.delete_dir(self.full_path(relative))
        except FileNotFoundError:
            return
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot delete {self.full_path(relative)}: {e}") from e

    def modified_ms(self, relative: str) -> int | None:
        """When `relative` was last modified (epoch ms), or None if it does not exist."""
        try:
            info = self.fs.get_file_info(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot stat {self.full_path(relative)}: {e}") from e
        if info.type == pafs.FileType.NotFound or info.mtime_ns is None:
            return None
        return int(info.mtime_ns // 1_000_000)

    def size(self, relative: str) -> int:
        info = self.fs.get_file_info(self.full_path(relative))
        if info.type == pafs.FileType.NotFound:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}")
        return int(info.size or 0)
