"""Rolling back an instant: its data files go, the timeline records why (notes §1.3, App. A.4).

A rollback is itself an instant: `<r>.rollback.requested` holds a `HoodieRollbackPlan` naming the
files to delete, and the completed `<r>_<c>.rollback` a `HoodieRollbackMetadata`. The files of
the rolled-back instant are found from its markers (written before every data file), from its
commit metadata when it completed, and by name (base and v8 log files carry the instant). The
order keeps readers safe at every step: a completed target is first made pending (its completed
file removed) so no reader trusts its files, then files are deleted, the rollback completes, and
the target's remaining instant files are removed. An uncommitted target's files, which no reader
trusts, are deleted before the rollback's own instant files are written, so that a rollback after a
full disk finds the room its failed write took. Re-running an interrupted rollback is harmless.
"""

from __future__ import annotations

import posixpath
import time
from collections import defaultdict

from hudi_core.errors import TimelineError
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.heartbeat import heartbeat_path
from hudi_core.lifecycle.markers import Markers
from hudi_core.lifecycle.recorded_paths import planned_file, planned_partition, written_file
from hudi_core.storage import Storage
from hudi_core.table.listing import list_partitions
from hudi_core.table.scan import TableScanner
from hudi_core.table.state import TableState
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import TABLE_SERVICE_ACTIONS, Action, Instant, State
from hudi_core.timeline.schemas import ROLLBACK_METADATA, ROLLBACK_PLAN
from hudi_core.timeline.serde import decode_instant_content, encode_avro_container
from hudi_core.timeline.writer import TimelineWriter, latest_time_on, new_instant_time


def files_written_by(storage: Storage, timeline: Timeline, instant: Instant) -> dict[str, list[str]]:
    """Data files (relative paths, by partition) the instant wrote, found every way they can be."""
    found: set[str] = set(Markers(storage, instant.requested_time).data_files())
    if instant.is_completed and instant.action in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT):
        source = f"the commit metadata of {instant.requested_time}"
        found.update(written_file(storage, s.path, source) for s in timeline.commit_metadata(instant).write_stats())
    partitions = {posixpath.dirname(p) for p in found} or set(list_partitions(storage))
    for partition in partitions:
        for entry in storage.list_dir(partition):
            base = parse_base_file_name(entry.name)
            log = parse_log_file_name(entry.name)
            if (base and base.instant_time == instant.requested_time) or (
                log and log.instant_time == instant.requested_time and timeline.layout_version >= 2
            ):
                found.add(posixpath.join(partition, entry.name))
    by_partition: dict[str, list[str]] = defaultdict(list)
    for path in sorted(found):
        if storage.exists(path):
            by_partition[posixpath.dirname(path)].append(path)
    return dict(by_partition)


def check_nothing_lost(storage: Storage, state: TableState, target: Instant) -> None:
    """Refuses to roll back completed `target` when a file group it wrote would fall back to a
    version the cleaner removed: the group's records would be gone (Hudi rolls back regardless,
    apache/hudi#8654).

    Raises:
        TimelineError: naming the instants whose cleaned files the previous versions need.
    """
    timeline = state.timeline
    metadata = timeline.commit_metadata(target)
    groups = metadata.touched_file_groups()
    groups |= {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}
    before = [i for i in timeline.completed_data_instants() if i.requested_time != target.requested_time]
    lost = TableScanner(storage, state.config, timeline, use_metadata=False).unavailable(before, groups)
    if lost:
        raise TimelineError(
            f"rolling back {target.requested_time} would lose records: the cleaner removed the files of "
            f"{', '.join(lost)} that the previous versions of its file groups need; restore a savepoint instead"
        )


def rollback_instant(
    storage: Storage,
    timeline: Timeline,
    writer: TimelineWriter,
    target: Instant,
    pending_action: Action,
    keep_plan: bool | None = None,
) -> Instant:
    """Rolls back `target` (pending or completed); returns the completed rollback instant.

    A pending table service (compaction, log compaction, clustering) keeps its requested plan by
    default, as Hudi does, so the next run executes it again; `keep_plan=False` removes it too.
    """
    if keep_plan is None:
        keep_plan = _keeps_plan(target, pending_action)
    started = time.monotonic()
    if not target.is_completed:
        Markers(storage, target.requested_time).fence()  # before the markers are listed
    files = files_written_by(storage, timeline, target)
    if not target.is_completed:
        # No reader trusts an uncommitted instant's files: they go first, so that on a full disk the
        # space they took makes room for the rollback's own instant files (markers keep the record).
        _delete_files(storage, files)
    rollback_time = new_instant_time(after=latest_time_on(timeline))
    plan = {
        "instantToRollback": {"commitTime": target.requested_time, "action": pending_action.value},
        "RollbackRequests": [
            {
                "partitionPath": partition,
                "fileId": "",
                "latestBaseInstant": "",
                "filesToBeDeleted": [storage.full_path(p) for p in paths],
                "logBlocksToBeDeleted": {},
            }
            for partition, paths in files.items()
        ],
        "version": 1,
    }
    requested = writer.request(rollback_time, Action.ROLLBACK, encode_avro_container(ROLLBACK_PLAN, plan))
    crash.crash_point("rollback.after_plan")
    return _execute(storage, writer, requested, target, pending_action, files, started, keep_plan)


def _keeps_plan(target: Instant, pending_action: Action) -> bool:
    return not target.is_completed and pending_action in TABLE_SERVICE_ACTIONS


def _execute(
    storage: Storage,
    writer: TimelineWriter,
    rollback: Instant,
    target: Instant,
    pending_action: Action,
    files: dict[str, list[str]],
    started: float,
    keep_plan: bool,
) -> Instant:
    if target.is_completed:
        storage.delete(posixpath.join(writer.timeline_dir, target.file_name(writer.layout_version)))
    inflight = writer.to_inflight(rollback) if rollback.state is State.REQUESTED else rollback
    _delete_files(storage, files)
    deleted = {partition: [storage.full_path(p) for p in paths] for partition, paths in files.items()}
    crash.crash_point("rollback.after_delete")
    metadata = {
        "startRollbackTime": rollback.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": sum(len(p) for p in deleted.values()),
        "commitsRollback": [target.requested_time],
        "partitionMetadata": {
            partition: {
                "partitionPath": partition,
                "successDeleteFiles": paths,
                "failedDeleteFiles": [],
                "rollbackLogFiles": None,
                "logFilesFromFailedCommit": None,
            }
            for partition, paths in deleted.items()
        },
        "version": 1,
        "instantsRollback": [{"commitTime": target.requested_time, "action": pending_action.value}],
    }
    completed = writer.complete(inflight, encode_avro_container(ROLLBACK_METADATA, metadata))
    if keep_plan:
        writer.revert_to_requested(target, pending_action)
    else:
        writer.remove(target, pending_action)
    Markers(storage, target.requested_time).delete_all()
    storage.delete(heartbeat_path(target.requested_time))
    return completed


def _delete_files(storage: Storage, files: dict[str, list[str]]) -> None:
    for paths in files.values():
        for path in paths:
            storage.delete(path)


def resume_pending_rollbacks(storage: Storage, timeline: Timeline, writer: TimelineWriter) -> None:
    """Finishes rollbacks a crashed process left pending (their plans list what to delete)."""
    for instant in timeline.pending():
        if instant.action is not Action.ROLLBACK:
            continue
        requested_path = posixpath.join(writer.timeline_dir, f"{instant.requested_time}.rollback.requested")
        plan = decode_instant_content(storage.read_bytes(requested_path), storage.full_path(requested_path)) or {}
        info = plan.get("instantToRollback") or {}
        target_time = info.get("commitTime")
        action = Action(info.get("action", "commit"))
        target = timeline.find(target_time) if target_time else None
        source = f"the rollback plan of {instant.requested_time}"
        files = {  # every entry checked before the first delete
            planned_partition(request["partitionPath"], source): [
                planned_file(storage, p, source) for p in request.get("filesToBeDeleted") or []
            ]
            for request in plan.get("RollbackRequests") or []
        }
        if target is None:
            target = Instant(target_time or instant.requested_time, None, action, instant.state)
        _execute(storage, writer, instant, target, action, files, time.monotonic(), _keeps_plan(target, action))
