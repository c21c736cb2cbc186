"""What changed in a table since a catalog was last synced, read off its timeline.

A sync records the table's latest completed commit in the catalog (`last_commit_time_sync`, and on
table version 8+ its completion time, `last_commit_completion_time_sync`), as Apache Hudi does. The
next sync reads the commits completed after it and touches only the partitions they wrote or
replaced. When that commit is no longer on the active timeline (archived, or undone by a restore),
the window cannot be read, and the sync lists every partition instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant


@dataclass(frozen=True)
class SyncPoint:
    """The latest completed commit a catalog knows (both None: never synced)."""

    commit_time: str | None
    completion_time: str | None


def latest_sync_point(timeline: Timeline) -> SyncPoint:
    """The sync point of the table as it is now: its latest completed commit, deltacommit or
    replacecommit, and the latest completion time among them (Hudi's `updateLastCommitTimeSynced`)."""
    completed = timeline.completed_data_instants()
    if not completed:
        return SyncPoint(None, None)
    completions = [i.completion_time for i in completed if i.completion_time]
    return SyncPoint(max(i.requested_time for i in completed), max(completions) if completions else None)


def _after(instant: Instant, since: SyncPoint) -> bool:
    if since.completion_time is not None and instant.completion_time is not None:
        return instant.completion_time > since.completion_time
    return since.commit_time is not None and instant.requested_time > since.commit_time


def changed_partitions(timeline: Timeline, since: SyncPoint) -> set[str] | None:
    """Partition paths written or replaced by the commits completed after `since`; None when they
    cannot be told from the active timeline (never synced, or `since` archived)."""
    if since.commit_time is None:
        return None
    completed = timeline.completed_data_instants()
    if since.commit_time not in {i.requested_time for i in completed}:
        return None  # archived, or undone by a restore: what happened since is not on the timeline
    partitions: set[str] = set()
    for instant in completed:
        if _after(instant, since):
            metadata = timeline.commit_metadata(instant)
            partitions.update(metadata.partition_to_write_stats)
            partitions.update(metadata.partition_to_replace_file_ids)
    return partitions
