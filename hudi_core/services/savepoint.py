"""Savepoints and restore: pin a commit's files, and later return the table to that commit.

A savepoint of commit `t` is `<t>.savepoint.inflight` (empty) then `<t>_<c>.savepoint` holding a
`HoodieSavepointMetadata` that lists, per partition, the file names of every file slice as of `t`.
The cleaner never deletes them and archival stops before the earliest savepoint.

Restore to savepoint `t` is `<r>.restore.requested` (a `HoodieRestorePlan` naming every write after
`t`: pending clusterings first, then the rest newest completion first), an empty inflight, one
rollback per listed instant, and `<r>_<c>.restore` (`HoodieRestoreMetadata` embedding each
rollback's metadata). As Hudi does, the rollback instants of the restore are removed afterwards so
only the restore remains on the timeline; the savepoint stays. Writers refuse to start while a
restore is pending; running restore again finishes it.
"""

from __future__ import annotations

import posixpath
import time
from collections import defaultdict
from typing import Any

from hudi_core.errors import HudiError, InstantNotFoundError
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.pending import read_plan
from hudi_core.lifecycle.rollback import rollback_instant
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.services.base import ServiceContext
from hudi_core.storage import Storage
from hudi_core.table.listing import list_partitions
from hudi_core.table.scan import TableScanner
from hudi_core.table.state import TableState
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import TABLE_SERVICE_ACTIONS, Action, Instant, State, instant_file_name
from hudi_core.timeline.schemas import RESTORE_METADATA, RESTORE_PLAN, SAVEPOINT_METADATA
from hudi_core.timeline.serde import decode_instant_content, encode_avro_container
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.client import check_writable

WRITE_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, *TABLE_SERVICE_ACTIONS})


def savepoint_instants(timeline: Timeline) -> list[Instant]:
    return [i for i in timeline.completed() if i.action is Action.SAVEPOINT]


def _earliest_retained(storage: Storage, timeline: Timeline) -> str:
    """The oldest commit the last clean kept (Hudi's savepoint retention check)."""
    cleans = [i for i in timeline.instants() if i.action is Action.CLEAN]
    if cleans:
        last = cleans[-1]
        if last.is_completed:
            path = posixpath.join(timeline.timeline_dir, last.file_name(timeline.layout_version))
            metadata = decode_instant_content(storage.read_bytes(path), storage.full_path(path)) or {}
            return str(metadata.get("earliestCommitToRetain") or "")
        plan = read_plan(storage, timeline, last, Action.CLEAN)
        return str((plan.get("earliestInstantToRetain") or {}).get("timestamp") or "")
    commits = timeline.completed_data_instants()
    return commits[0].requested_time if commits else ""


def create_savepoint(ctx: ServiceContext, instant_time: str, user: str = "", comment: str = "") -> ServiceResult:
    """Savepoints completed commit `instant_time`."""
    storage = ctx.storage
    with ctx.locked("savepoint") as state:
        check_writable(state.config, storage.base_uri)
        timeline = state.timeline
        target = timeline.find(instant_time)
        if target is None or not target.is_completed:
            raise InstantNotFoundError(f"cannot savepoint {instant_time}: no completed commit at that instant")
        if target not in timeline.completed_data_instants():
            raise HudiError(f"cannot savepoint {instant_time}: it is a {target.action.value}, not a commit")
        if any(i.requested_time == instant_time for i in savepoint_instants(timeline)):
            raise HudiError(f"commit {instant_time} is already savepointed")
        retained = _earliest_retained(storage, timeline)
        if retained and instant_time < retained:
            raise HudiError(
                f"cannot savepoint {instant_time}: the cleaner already removed files of commits before {retained}"
            )
        files: dict[str, list[str]] = {p: [] for p in list_partitions(storage)}
        for file_slice in TableScanner(storage, state.config, timeline).snapshot(None, None, instant_time).slices:
            names = files.setdefault(file_slice.partition_path, [])
            names.extend([file_slice.base_file] if file_slice.base_file else [])
            names.extend(file_slice.log_files)
        metadata = {
            "savepointedBy": user,
            "savepointedAt": int(time.time() * 1000),
            "comments": comment,
            "partitionMetadata": {p: {"partitionPath": p, "savepointDataFile": n} for p, n in sorted(files.items())},
            "version": 1,
        }
        writer = ctx.writer(state)
        leftover = instant_file_name(instant_time, Action.SAVEPOINT, State.INFLIGHT, timeline.layout_version)
        storage.delete(posixpath.join(timeline.timeline_dir, leftover))  # from a savepoint that crashed
        inflight = writer.to_inflight(Instant(instant_time, None, Action.SAVEPOINT, State.REQUESTED))
        crash.crash_point("savepoint.after_inflight")
        completed = writer.complete(inflight, encode_avro_container(SAVEPOINT_METADATA, metadata))
    return ServiceResult(
        "savepoint",
        completed.requested_time,
        completed.completion_time,
        {"files": sum(len(n) for n in files.values()), "partitions": len(files)},
    )


def delete_savepoint(ctx: ServiceContext, instant_time: str) -> None:
    """Removes the savepoint of `instant_time` (its files become cleanable again)."""
    with ctx.locked("delete savepoint") as state:
        timeline = state.timeline
        found = [i for i in savepoint_instants(timeline) if i.requested_time == instant_time]
        if not found:
            raise InstantNotFoundError(f"no savepoint at {instant_time}")
        storage = ctx.storage
        storage.delete(posixpath.join(timeline.timeline_dir, found[0].file_name(timeline.layout_version)))
        inflight = instant_file_name(instant_time, Action.SAVEPOINT, State.INFLIGHT, timeline.layout_version)
        storage.delete(posixpath.join(timeline.timeline_dir, inflight))


# ---- restore ------------------------------------------------------------------------------------


def _instants_after(timeline: Timeline, savepoint: Instant) -> list[Instant]:
    """Writes to undo for a restore to `savepoint`, in rollback order (Hudi's RestorePlanActionExecutor)."""
    commit = timeline.find(savepoint.requested_time)
    assert commit is not None
    boundary = commit.completion_time or commit.requested_time
    writes = [
        i for i in timeline.instants() if timeline.pending_action(i) in WRITE_ACTIONS or i.action in WRITE_ACTIONS
    ]
    clustering = sorted(
        (
            i
            for i in writes
            if not i.is_completed
            and timeline.pending_action(i) is Action.CLUSTERING
            and i.requested_time > savepoint.requested_time
        ),
        key=lambda i: i.requested_time,
        reverse=True,
    )
    later = [
        i
        for i in writes
        if i not in clustering
        and i.requested_time != savepoint.requested_time
        and (not i.is_completed or (i.completion_time or i.requested_time) > boundary)
    ]
    # Pending ones first (they would complete last), then newest completion first.
    pending = [i for i in later if not i.is_completed]
    done = sorted((i for i in later if i.is_completed), key=lambda i: i.completion_time or "", reverse=True)
    return clustering + pending + done


def restore(ctx: ServiceContext, savepoint_time: str) -> ServiceResult:
    """Returns the table to savepoint `savepoint_time` (finishing an interrupted restore first)."""
    storage = ctx.storage
    with ctx.locked("restore") as state:
        check_writable(state.config, storage.base_uri)
        timeline = state.timeline
        pending = [i for i in timeline.pending() if i.action is Action.RESTORE]
        writer = ctx.writer(state)
        if pending:
            instant = pending[0]
            plan = read_plan(storage, timeline, instant, Action.RESTORE)
            if plan.get("savepointToRestoreTimestamp") not in (None, savepoint_time):
                raise HudiError(
                    f"restore {instant.requested_time} to savepoint {plan.get('savepointToRestoreTimestamp')} is "
                    f"pending; finish it before restoring to {savepoint_time}"
                )
        else:
            savepoint = next((i for i in savepoint_instants(timeline) if i.requested_time == savepoint_time), None)
            if savepoint is None:
                raise InstantNotFoundError(f"no savepoint at {savepoint_time}")
            later_savepoints = [
                i.requested_time for i in savepoint_instants(timeline) if i.requested_time > savepoint_time
            ]
            if later_savepoints:
                raise HudiError(
                    f"savepoint(s) {', '.join(later_savepoints)} are newer than {savepoint_time}: delete them first"
                )
            targets = _instants_after(timeline, savepoint)
            plan = {
                "instantsToRollback": [
                    {"commitTime": i.requested_time, "action": timeline.pending_action(i).value} for i in targets
                ],
                "version": 2,
                "savepointToRestoreTimestamp": savepoint_time,
            }
            restore_time = new_instant_time(after=latest_time_on(timeline))
            instant = writer.request(restore_time, Action.RESTORE, encode_avro_container(RESTORE_PLAN, plan))
            crash.crash_point("restore.after_plan")
        return _execute(ctx, instant, plan, savepoint_time)


def _execute(ctx: ServiceContext, instant: Instant, plan: dict[str, Any], savepoint_time: str) -> ServiceResult:
    storage = ctx.storage
    started = time.monotonic()
    state: TableState = ctx.state()
    writer = ctx.writer(state)
    inflight = writer.to_inflight(instant) if instant.state is State.REQUESTED else instant
    rolled_back: list[dict[str, str]] = []
    rollback_metadata: dict[str, list[dict[str, Any] | None]] = defaultdict(list)
    for entry in plan.get("instantsToRollback") or ():
        timeline = ctx.state().timeline
        target = next(
            (
                i
                for i in timeline.instants()
                if i.requested_time == entry["commitTime"] and timeline.pending_action(i).value == entry["action"]
            ),
            None,
        )
        if target is None:
            continue  # rolled back by an earlier, interrupted run
        done = rollback_instant(
            storage, timeline, ctx.writer(ctx.state()), target, timeline.pending_action(target), keep_plan=False
        )
        path = posixpath.join(timeline.timeline_dir, done.file_name(timeline.layout_version))
        rollback_metadata[target.requested_time].append(decode_instant_content(storage.read_bytes(path), path))
        rolled_back.append({"commitTime": target.requested_time, "action": entry["action"]})
        if len(rolled_back) == 1:
            crash.crash_point("restore.after_first_rollback")
    crash.crash_point("restore.after_rollbacks")
    metadata = {
        "startRestoreTime": instant.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "instantsToRollback": [r["commitTime"] for r in rolled_back],
        "hoodieRestoreMetadata": dict(rollback_metadata),
        "version": 1,
        "restoreInstantInfo": rolled_back,
    }
    completed = ctx.writer(ctx.state()).complete(inflight, encode_avro_container(RESTORE_METADATA, metadata))
    # As Hudi does, the restore's own rollbacks (and any after the savepoint) leave no instants.
    timeline = ctx.state().timeline
    for rollback in [
        i for i in timeline.instants() if i.action is Action.ROLLBACK and i.requested_time > savepoint_time
    ]:
        ctx.writer(ctx.state()).remove(rollback, Action.ROLLBACK)
    return ServiceResult(
        "restore",
        completed.requested_time,
        completed.completion_time,
        {"instants_rolled_back": len(rolled_back)},
    )
