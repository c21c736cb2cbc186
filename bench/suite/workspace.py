"""Where one scale of a run keeps its files.

A run's work directory holds one folder per scale (row count)::

    <workdir>/<rows>/input/base/part-NNNNN.parquet   the base rows (several files: Spark reads them in parallel)
    <workdir>/<rows>/input/<batch>.parquet           the update and delete batches
    <workdir>/<rows>/fixtures/<name>/                tables loaded once per scale, never modified afterwards
    <workdir>/<rows>/fixtures.json                   facts about them (commit times, written files)
    <workdir>/<rows>/scratch/<operation>/            a write operation's private copy, removed afterwards
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Workspace:
    """The folders of one scale (`rows`) under a run's work directory."""

    workdir: Path
    rows: int

    @property
    def root(self) -> Path:
        return self.workdir / str(self.rows)

    @property
    def input_dir(self) -> Path:
        return self.root / "input"

    @property
    def base_dir(self) -> Path:
        return self.input_dir / "base"

    def batch_path(self, name: str) -> Path:
        return self.input_dir / f"{name}.parquet"

    def fixture(self, name: str) -> Path:
        return self.root / "fixtures" / name

    def scratch(self, operation: str) -> Path:
        return self.root / "scratch" / operation.replace("/", "__")

    @property
    def facts_path(self) -> Path:
        return self.root / "fixtures.json"

    def facts(self) -> dict[str, Any]:
        """What the fixture builder recorded (commit times, files written, versions)."""
        if not self.facts_path.exists():
            return {}
        loaded: dict[str, Any] = json.loads(self.facts_path.read_text())
        return loaded

    def has_fixture(self, name: str) -> bool:
        """Whether fixture `name` was completed (its folder alone may be a crashed build's leftover)."""
        return self.fixture(name).exists() and name in self.facts()

    def record_facts(self, name: str, values: dict[str, Any]) -> None:
        facts = self.facts()
        facts[name] = values
        self.facts_path.write_text(json.dumps(facts, indent=2, sort_keys=True))

    def fresh_scratch(self, operation: str) -> Path:
        """An empty scratch folder for `operation` (whatever a crashed earlier run left is removed)."""
        path = self.scratch(operation)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

    def copy_fixture(self, name: str, operation: str) -> Path:
        """A private copy of fixture `name` for a write operation (the copying is never timed)."""
        target = self.fresh_scratch(operation) / name
        shutil.copytree(self.fixture(name), target)
        return target


def dir_size(path: Path) -> int:
    """Bytes of all files under `path`."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
