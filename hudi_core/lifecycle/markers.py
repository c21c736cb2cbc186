"""Direct markers: `.hoodie/.temp/<instant>/<partition>/<file>.marker.<IOType>` (notes §3.4).

A marker is created before each data file is written, so a rollback finds every file a failed
write may have left, even half-written ones, and so can a Java rollback of our failed writes.

A rollback of an uncommitted instant first puts a fence in the instant's marker directory. A task
that finished a file checks, after closing it, that the fence is absent and its marker still there:
otherwise the rollback may have listed the markers before this task made its own, and the task
deletes its file itself. A task whose check came before the fence made its marker before the
rollback listed them, so the rollback deletes its file. Either way a task still running when its
write failed (a Spark task the job no longer waits for) leaves no orphan.

The marker folder is read like any input: an entry that is no marker of a data file a writer could
have written (a `.crc` checksum, `MARKERS.type`, a crafted `...marker.CREATE` that would name `..`,
a folder into `.hoodie`) is skipped, so a rollback never deletes what a marker cannot name.
"""

from __future__ import annotations

import enum
import posixpath
import re
from collections.abc import Iterable

from hudi_core.keygen.partition_path import partition_path_problem
from hudi_core.storage import Storage

TEMP_DIR = ".hoodie/.temp"
MARKER_EXTENSION = ".marker"
ROLLBACK_FENCE = "ROLLBACK_STARTED"  # no marker extension: marker readers (ours, Hudi's) skip it
_MARKER_NAME = re.compile(r"^(.+)\.marker\.(CREATE|MERGE|APPEND)$")


class IOType(enum.Enum):
    CREATE = "CREATE"
    MERGE = "MERGE"
    APPEND = "APPEND"


class Markers:
    """The markers of one instant."""

    def __init__(self, storage: Storage, instant_time: str) -> None:
        self._storage = storage
        self.directory = posixpath.join(TEMP_DIR, instant_time)

    def _marker(self, data_file_path: str, io_type: IOType) -> str:
        return posixpath.join(self.directory, f"{data_file_path}{MARKER_EXTENSION}.{io_type.value}")

    def create(self, data_file_path: str, io_type: IOType) -> None:
        """Marks `data_file_path` (relative to the base path) as about to be written."""
        self._storage.write_bytes(self._marker(data_file_path, io_type), b"")

    def fence(self) -> None:
        """Tells tasks still writing for this instant that a rollback has started."""
        self._storage.write_bytes(posixpath.join(self.directory, ROLLBACK_FENCE), b"")

    def rolled_back_under(self, data_file_path: str, io_type: IOType) -> bool:
        """Whether a rollback started or ended since `data_file_path` was marked (see the module)."""
        fenced = self._storage.exists(posixpath.join(self.directory, ROLLBACK_FENCE))
        return fenced or not self._storage.exists(self._marker(data_file_path, io_type))

    def data_files(self) -> list[str]:
        """Paths (relative to the base path, in normal form) of every data file marked by this instant."""
        found: list[str] = []
        pending = [""]
        while pending:
            relative = pending.pop()
            for entry in self._storage.list_dir(
                posixpath.join(self.directory, relative) if relative else self.directory
            ):
                child = posixpath.join(relative, entry.name) if relative else entry.name
                marked = _MARKER_NAME.match(entry.name)
                if entry.is_dir and entry.name not in (".", ".."):
                    pending.append(child)
                elif marked and partition_path_problem(posixpath.join(relative, marked.group(1))) is None:
                    found.append(posixpath.join(relative, marked.group(1)))
        return sorted(found)

    def unlisted(self, written: Iterable[str]) -> list[str]:
        """Marked data files that are not among `written` (the instant's write stats): what a retried
        task left behind. Both sides are compared in normal form, so `p/./f` and `p/f` are one file."""
        listed = {self._storage.relative(path) for path in written}
        return [path for path in self.data_files() if self._storage.relative(path) not in listed]

    def delete_unlisted(self, written: Iterable[str]) -> None:
        """Deletes the marked data files not among `written` (a retried or lost task's leftovers)."""
        for path in self.unlisted(written):
            self._storage.delete(path)

    def delete_all(self) -> None:
        self._storage.delete_dir(self.directory)
