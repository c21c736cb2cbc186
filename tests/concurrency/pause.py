"""Deterministic interleavings: a writer thread that stops at a named crash point until resumed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from hudi_core.lifecycle import crash
from hudi_core.write.client import WriteResult


class PausedWriter:
    """Runs `write` on a thread that stops at crash point `point` until `resume()`."""

    def __init__(self, write: Callable[[], WriteResult], point: str = "write.after_files") -> None:
        self.point = point
        self.paused = False  # set by the hook only: the write stopped at `point`
        self.held = True  # False if the pause ran out before `resume()`: the interleaving did not happen
        self.reached = threading.Event()  # it paused, or it ended without pausing
        self._go = threading.Event()
        self.result: WriteResult | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(write,), name=f"paused-{id(self)}")

    def _run(self, write: Callable[[], WriteResult]) -> None:
        try:
            self.result = write()
        except BaseException as e:
            self.error = e
        finally:
            self.reached.set()

    def hook(self, name: str) -> None:
        if name == self.point and threading.current_thread() is self.thread:
            self.paused = True
            self.reached.set()
            self.held = self._go.wait(timeout=60)

    def resume(self) -> None:
        self._go.set()
        self.thread.join(timeout=60)


@contextmanager
def paused(monkeypatch: pytest.MonkeyPatch, write: Callable[[], WriteResult]) -> Iterator[PausedWriter]:
    writer = PausedWriter(write)
    original = crash.crash_point

    def hook(name: str) -> None:
        original(name)
        writer.hook(name)

    monkeypatch.setattr(crash, "crash_point", hook)
    writer.thread.start()
    assert writer.reached.wait(timeout=60), "the paused writer neither paused nor ended"
    assert writer.paused, f"the writer ended without pausing at {writer.point} (error: {writer.error!r})"
    try:
        yield writer
    finally:
        writer.resume()
    assert writer.held, f"the writer paused at {writer.point} went on before it was resumed"
