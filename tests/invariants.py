"""Table health after faults: what every crash, conflict and soak test checks once the dust settles."""

from __future__ import annotations

from pathlib import Path

from hudi_core import HudiTable


def assert_healthy(base: Path | str, *, settled: bool = True) -> None:
    """The metadata table agrees with storage and, once `settled` (no writer left to recover), no
    instant is pending and no data file is orphaned."""
    table = HudiTable(str(base))
    if table.storage.exists(".hoodie/metadata/.hoodie/hoodie.properties"):
        validation = table.validate_metadata()
        assert validation.ok, f"metadata table out of step with storage: {validation}"
    if settled:
        assert not table.timeline.pending(), f"left pending: {table.timeline.pending()}"
        assert table.orphan_files() == [], f"orphan files: {table.orphan_files()}"
