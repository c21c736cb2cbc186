"""What the test peers installed into the user's cache share: where the cache is, the stamp that
says what is installed, the lock that serialises concurrent installs, and when a missing peer fails
a run instead of skipping its tests. Standard library only (runs before any virtualenv exists)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

STAMP = "installed.json"


def cache_dir(env: Mapping[str, str], name: str) -> Path:
    """``$XDG_CACHE_HOME/hudi-dagster/<name>`` or ``~/.cache/hudi-dagster/<name>``."""
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path(env.get("HOME", "").strip() or Path.home()) / ".cache"
    return base / "hudi-dagster" / name


def read_stamp(root: Path) -> dict[str, object] | None:
    """The stamp's document, or None when there is none (or it is unreadable)."""
    try:
        document = json.loads((root / STAMP).read_text())
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def write_stamp(root: Path, document: Mapping[str, object]) -> None:
    """Writes the stamp atomically: a reader sees the old one or the new one, never half of one."""
    partial = root / f".{STAMP}.partial"
    partial.write_text(json.dumps(document, indent=2) + "\n")
    partial.replace(root / STAMP)


@contextlib.contextmanager
def install_lock(root: Path) -> Iterator[None]:
    """Serialise installs of concurrent test runs that share the cache."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".install.lock").open("w") as handle:
        if os.name == "posix":
            import fcntl  # noqa: PLC0415 - POSIX only

            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def is_required(env: Mapping[str, str], required_variable: str) -> bool:
    """Missing is a failure, not a skip: under CI, or when dev.py installed it for this run."""
    return env.get("CI", "").strip().lower() in {"true", "1"} or env.get(required_variable) == "1"
