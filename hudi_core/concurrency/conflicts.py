"""Conflict detection of optimistic concurrency (seed 001 "Relational Model"; Hudi's default
`SimpleConcurrentFileWritesConflictResolutionStrategy`).

A writer plans against a snapshot of the timeline. Just before it commits, under the table lock,
the concurrent set is every data action (commit, deltacommit, replacecommit: writes, compaction,
log compaction, clustering) completed since that snapshot, plus every compaction, log compaction
or clustering planned since. The writer loses if any of them wrote, replaced or plans to rewrite a
file group it wrote or replaced: its files were based on a slice that is no longer the latest.
Writers that only add new file groups never conflict with each other, unless the optional key-overlap
check (seed 001's third rule, `hoodie.write.concurrency.check.key.overlap`) is on: then a writer
also loses if a concurrent action wrote any record key it wrote, which stops two concurrent inserts
of the same new key from storing it twice. A writer whose own instant is no longer pending (another
writer took it for a dead one and rolled it back) loses too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hudi_core.concurrency.key_overlap import record_keys_of, shared_keys
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import WriteConflictError
from hudi_core.lifecycle.pending import FileGroupId, clustering_slices, compaction_operations, read_plan
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.timeline.instant import DATA_ACTIONS, Action, Instant


@dataclass(frozen=True)
class WriteSnapshot:
    """What a writer saw when it planned: the instants completed and the service plans pending then."""

    completed: frozenset[str]
    pending_services: frozenset[str]

    @classmethod
    def of(cls, timeline: Timeline) -> WriteSnapshot:
        return cls(
            frozenset(i.requested_time for i in timeline.completed()),
            frozenset(i.requested_time for i in timeline.pending()),
        )

    @classmethod
    def before(cls, timeline: Timeline, instant_time: str) -> WriteSnapshot:
        """The snapshot of a writer that planned when it requested `instant_time` (every time on the
        timeline is generated under the lock, so later completions have later times)."""
        return cls(
            frozenset(
                i.requested_time for i in timeline.completed() if (i.completion_time or i.requested_time) < instant_time
            ),
            frozenset(i.requested_time for i in timeline.instants() if i.requested_time < instant_time),
        )


def written_file_groups(stats: Iterable[WriteStat], replaced: dict[str, list[str]] | None) -> set[FileGroupId]:
    """The file groups a write touched: those it wrote and those it replaced."""
    groups = {(s.partition_path, s.file_id) for s in stats}
    for partition, file_ids in (replaced or {}).items():
        groups.update((partition, file_id) for file_id in file_ids)
    return groups


def _completed_touches(timeline: Timeline, instant: Instant) -> set[FileGroupId]:
    metadata = timeline.commit_metadata(instant)
    groups = metadata.touched_file_groups()
    for partition, file_ids in metadata.partition_to_replace_file_ids.items():
        groups.update((partition, file_id) for file_id in file_ids)
    return groups


def _planned_touches(storage: Storage, timeline: Timeline, instant: Instant) -> set[FileGroupId]:
    action = timeline.pending_action(instant)
    if action in (Action.COMPACTION, Action.LOG_COMPACTION):
        plan = read_plan(storage, timeline, instant, action)
        return {(op.get("partitionPath") or "", op["fileId"]) for op in compaction_operations(plan)}
    if action in (Action.CLUSTERING, Action.REPLACE_COMMIT):
        requested = read_plan(storage, timeline, instant, action)
        return {(s.get("partitionPath") or "", s["fileId"]) for s in clustering_slices(requested)}
    return set()


def rolled_back_meanwhile(instant_time: str) -> WriteConflictError:
    """The error of a write about to complete whose instant another writer rolled back.

    Its heartbeat looked stale to that writer (a starved heartbeat thread, a paused process):
    completing it now would publish files that are gone.
    """
    return WriteConflictError(
        f"write {instant_time} is no longer pending: another writer rolled it back, taking it for a dead "
        f"write (its heartbeat was older than {HudiWriteConfig.HEARTBEAT_INTERVAL_MS.key} x "
        f"{HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES.key}); nothing of it remains and it is safe to retry"
    )


def check_write_conflicts(
    storage: Storage,
    timeline: Timeline,
    snapshot: WriteSnapshot,
    instant_time: str,
    mine: set[FileGroupId],
    my_files: Sequence[str] | None = None,
) -> None:
    """Raises WriteConflictError if an action concurrent with the write touched its file groups.

    Args:
        timeline: the timeline as of now (loaded under the lock).
        snapshot: what the writer planned against.
        instant_time: the writer's instant.
        mine: the file groups it wrote or replaced.
        my_files: the files it wrote (relative paths) when record keys must not overlap either.
    """
    own = timeline.find(instant_time)
    if own is None or own.is_completed:
        raise rolled_back_meanwhile(instant_time)
    if not mine:
        return
    concurrent_writes: list[Instant] = []
    for instant in timeline.instants():
        if instant.requested_time == instant_time:
            continue
        if instant.is_completed:
            if instant.action not in DATA_ACTIONS or instant.requested_time in snapshot.completed:
                continue
            touched = _completed_touches(timeline, instant)
            concurrent_writes.append(instant)
        else:
            if instant.requested_time in snapshot.pending_services or not timeline.is_table_service(instant):
                continue
            touched = _planned_touches(storage, timeline, instant)
        overlap = [f"{p or '<root>'}/{f}" for p, f in sorted(mine & touched)]
        if overlap:
            raise _conflict(timeline, instant, instant_time, f"{len(overlap)} file group(s)", overlap)
    if my_files and concurrent_writes:
        _check_key_overlap(storage, timeline, concurrent_writes, instant_time, my_files)


def _conflict(
    timeline: Timeline, instant: Instant, instant_time: str, what: str, names: Sequence[str]
) -> WriteConflictError:
    state = "completed" if instant.is_completed else "planned"
    listed = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
    return WriteConflictError(
        f"write {instant_time} conflicts with {timeline.pending_action(instant).value} "
        f"{instant.requested_time}, {state} since this write started, on {what}: {listed}; "
        "the write was rolled back and is safe to retry"
    )


def _check_key_overlap(
    storage: Storage, timeline: Timeline, concurrent: Sequence[Instant], instant_time: str, my_files: Sequence[str]
) -> None:
    mine = record_keys_of(storage, my_files)
    if not len(mine):
        return
    for instant in concurrent:
        if timeline.is_table_service(instant):
            continue  # services move keys between file groups the file-group check covers; they add none
        theirs = record_keys_of(storage, [s.path for s in timeline.commit_metadata(instant).write_stats()])
        shared = shared_keys(mine, theirs)
        if shared:
            raise _conflict(timeline, instant, instant_time, f"{len(shared)} record key(s)", shared)
