"""What one table service run did: the result every service, and a write's inline services, return."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServiceResult:
    """The outcome of one table service run.

    Attributes:
        action: compaction, logcompaction, clustering, clean, archive, rollback, savepoint or restore.
        instant_time: the service's instant (None when it wrote none, e.g. archival).
        completion_time: when that instant completed.
        counts: what it did, e.g. {"file_groups": 3, "files_written": 3, "records": 1200}.
    """

    action: str
    instant_time: str | None
    completion_time: str | None
    counts: Mapping[str, int] = field(default_factory=dict)

    def __getitem__(self, name: str) -> int:
        return self.counts.get(name, 0)
