"""File groups under pending table services, read from their plans.

A file group in a pending compaction or log compaction must not be compacted again; one in a
pending clustering must not be updated (Hudi's default reject strategy), compacted or packed with
inserts; the cleaner keeps what a pending compaction will read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hudi_core.storage import Storage
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import TABLE_SERVICE_ACTIONS, Action, Instant, State, instant_file_name
from hudi_core.timeline.serde import decode_instant_content

FileGroupId = tuple[str, str]  # (partition path, file id)


@dataclass(frozen=True)
class PendingServices:
    """File groups of the pending compaction, log compaction and clustering plans.

    Attributes:
        compaction: file group -> (service instant, base instant of the slice it compacts), for
            compactions and log compactions.
        clustering: file group -> clustering instant.
    """

    compaction: dict[FileGroupId, tuple[str, str]]
    clustering: dict[FileGroupId, str]

    @property
    def file_groups(self) -> set[FileGroupId]:
        return set(self.compaction) | set(self.clustering)


def read_plan(storage: Storage, timeline: Timeline, instant: Instant, action: Action) -> dict[str, Any]:
    """The requested plan of a service instant (an empty dict for an empty file)."""
    name = instant_file_name(instant.requested_time, action, State.REQUESTED, timeline.layout_version)
    path = posixpath.join(timeline.timeline_dir, name)
    # A plan rolled back by another writer after the timeline was loaded: TimelineChangedError (re-plan).
    return decode_instant_content(timeline.read_instant_file(path), storage.full_path(path)) or {}


def compaction_operations(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from plan.get("operations") or ()


def clustering_slices(requested: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every slice of a clustering plan (given the requested replace metadata)."""
    plan = requested.get("clusteringPlan") or {}
    for group in plan.get("inputGroups") or ():
        yield from group.get("slices") or ()


def pending_services(storage: Storage, timeline: Timeline) -> PendingServices:
    """The file groups every pending service instant of `timeline` holds."""
    compaction: dict[FileGroupId, tuple[str, str]] = {}
    clustering: dict[FileGroupId, str] = {}
    for instant in timeline.pending():
        action = timeline.pending_action(instant)
        if action in (Action.COMPACTION, Action.LOG_COMPACTION):
            for op in compaction_operations(read_plan(storage, timeline, instant, action)):
                group = (op.get("partitionPath") or "", op["fileId"])
                compaction[group] = (instant.requested_time, op.get("baseInstantTime") or "")
        elif action in (Action.CLUSTERING, Action.REPLACE_COMMIT):
            requested = read_plan(storage, timeline, instant, action)
            for piece in clustering_slices(requested):
                clustering[(piece.get("partitionPath") or "", piece["fileId"])] = instant.requested_time
    return PendingServices(compaction, clustering)


@dataclass(frozen=True)
class PendingService:
    """A pending table service instant and how many file groups its plan holds."""

    instant: Instant
    action: Action
    file_groups: int


def pending_table_services(storage: Storage, timeline: Timeline) -> list[PendingService]:
    """Every pending compaction, log compaction and clustering of `timeline`, oldest first."""
    plans = pending_services(storage, timeline)
    file_groups: dict[str, int] = {}
    for service_instant, _base in plans.compaction.values():
        file_groups[service_instant] = file_groups.get(service_instant, 0) + 1
    for service_instant in plans.clustering.values():
        file_groups[service_instant] = file_groups.get(service_instant, 0) + 1
    services = []
    for instant in timeline.pending():
        action = timeline.pending_action(instant)
        # Table version 6 plans clustering as a plain replacecommit: only its plan tells.
        if action in TABLE_SERVICE_ACTIONS or (
            action is Action.REPLACE_COMMIT and instant.requested_time in file_groups
        ):
            services.append(PendingService(instant, action, file_groups.get(instant.requested_time, 0)))
    return services
