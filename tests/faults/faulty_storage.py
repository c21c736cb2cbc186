"""A full disk on demand: every write hudi_core makes is counted, and the Nth fails with ENOSPC.

`inject(monkeypatch, fail_at=N)` makes every Storage created afterwards (any module, any thread)
write through :class:`FaultyFileSystem`, a local file system whose writes are counted: an output
stream (the fault surfaces at its first `write()`, or at `close()` when `at_close` is set, as a
failed flush does), a rename, and a hard link (how `Storage.create_exclusive` publishes a file).
Only the Nth write fails (or the Nth of those whose path contains `matching`): the space is back
for the rollback and for the next writer, as when the failed write's partial file was removed.
`fail_at=None` only records the writes, to learn how many an operation makes.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from hudi_core.storage import Storage


def no_space(path: str) -> Exception:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


@dataclass
class DiskFull:
    """Records every write; the `fail_at`-th (1-based) of those whose path contains `matching`
    raises `error(path)` (ENOSPC by default)."""

    fail_at: int | None = None
    at_close: bool = False
    matching: str = ""
    error: Callable[[str], Exception] = no_space
    writes: list[tuple[str, str]] = field(default_factory=list)
    failed: tuple[str, str] | None = None
    _matched: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def attempt(self, kind: str, path: str) -> None:
        with self._lock:
            self.writes.append((kind, path))
            if self.matching not in path:
                return
            self._matched += 1
            if self._matched != self.fail_at:
                return
            self.failed = (kind, path)
        raise self.error(path)

    @property
    def count(self) -> int:
        return len(self.writes)


class _FaultyStream:
    """An output stream whose one counted write happens at its first write() or at close()."""

    def __init__(self, inner: pa.NativeFile, full: DiskFull, path: str) -> None:
        self._inner = inner
        self._full = full
        self._path = path
        self._counted = False

    def _count(self) -> None:
        if not self._counted:
            self._counted = True
            self._full.attempt("stream", self._path)

    @property
    def closed(self) -> bool:
        return bool(self._inner.closed)

    def write(self, data: Any) -> int:
        if not self._full.at_close:
            self._count()
        return int(self._inner.write(data))

    def flush(self) -> None:
        self._inner.flush()

    def tell(self) -> int:
        return int(self._inner.tell())

    def close(self) -> None:
        if self._inner.closed:
            return
        self._inner.close()  # the bytes reached the file; the flush "fails" after
        self._count()


class FaultyFileSystem(pafs.LocalFileSystem):
    """The local file system, with every write counted by `full` (set right after construction)."""

    full: DiskFull

    def open_output_stream(self, path: str, *args: Any, **kwargs: Any) -> pa.NativeFile:
        inner = super().open_output_stream(path, *args, **kwargs)
        return pa.PythonFile(_FaultyStream(inner, self.full, path), mode="w")

    def move(self, src: str, dest: str) -> None:
        self.full.attempt("rename", dest)
        super().move(src, dest)


def inject(
    monkeypatch: pytest.MonkeyPatch,
    fail_at: int | None = None,
    at_close: bool = False,
    matching: str = "",
    error: Callable[[str], Exception] = no_space,
) -> DiskFull:
    """Makes every local Storage created from now on write through a FaultyFileSystem."""
    full = DiskFull(fail_at, at_close, matching, error)
    original_init = Storage.__init__
    real_link = os.link

    def faulty_init(self: Storage, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if type(self.fs) is pafs.LocalFileSystem:
            fs = FaultyFileSystem()
            fs.full = full
            self.fs = fs

    def faulty_link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        full.attempt("link", os.fspath(dst))
        real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(Storage, "__init__", faulty_init)
    monkeypatch.setattr(os, "link", faulty_link)
    return full
