"""Cleaning: deleting the file slices no query within the retention needs any more.

Timeline: `<t>.clean.requested` holds a `HoodieCleanerPlan` (absolute paths of every file to delete,
per partition), `<t>.clean.inflight` the same plan again (as Hudi 1.0 writes it), and the completed
`<t>_<c>.clean` a `HoodieCleanMetadata` (file names deleted per partition). Plans are version 2.

Policies (`hoodie.clean.policy`, Hudi's CleanPlanner):

* KEEP_LATEST_COMMITS: the earliest commit to retain (ECTR) is the `commits.retained`-th newest
  completed commit, pulled back before the earliest pending write; in every file group the slices
  at or after the ECTR stay, plus the newest one before it (it serves time travel to the ECTR);
* KEEP_LATEST_BY_HOURS: the same with the ECTR the first commit of the last `hours.retained` hours;
* KEEP_LATEST_FILE_VERSIONS: the newest `fileversions.retained` slices of every file group stay.

Never deleted: the latest slice of a file group, slices a savepoint lists, and slices a pending
compaction reads. File groups replaced (insert_overwrite, clustering) by a replacecommit older than
the ECTR go entirely; a partition left without file groups is removed. `.cdc` logs go with the
slice that wrote them.
"""

from __future__ import annotations

import posixpath
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hudi_core.config.services import CleaningPolicy, HudiCleanConfig
from hudi_core.errors import TimelineError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.fs_view import file_group_slices, visible_instants
from hudi_core.file_group.naming import parse_log_file_name
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.pending import FileGroupId, pending_services, read_plan
from hudi_core.lifecycle.recorded_paths import planned_file, planned_partition
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.services.base import ServiceContext
from hudi_core.storage import Storage
from hudi_core.table.listing import list_partitions
from hudi_core.table.state import TableState
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import TABLE_SERVICE_ACTIONS, Action, Instant, State, format_instant_time
from hudi_core.timeline.schemas import CLEAN_METADATA, CLEANER_PLAN
from hudi_core.timeline.serde import decode_instant_content, encode_avro_container
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.client import check_writable

PLAN_VERSION = 2
SAVEPOINTED_TIMESTAMPS = "savepointed_timestamps"


@dataclass
class CleanPlan:
    """What one clean deletes (relative paths by partition) and why."""

    policy: CleaningPolicy
    earliest_to_retain: Instant | None
    last_completed_commit: str
    files: dict[str, list[str]] = field(default_factory=dict)
    partitions_to_delete: list[str] = field(default_factory=list)
    savepoints: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not any(self.files.values()) and not self.partitions_to_delete

    def to_record(self, storage: Storage) -> dict[str, Any]:
        ectr = self.earliest_to_retain
        return {
            "earliestInstantToRetain": None
            if ectr is None
            else {"timestamp": ectr.requested_time, "action": ectr.action.value, "state": "COMPLETED"},
            "lastCompletedCommitTimestamp": self.last_completed_commit,
            "policy": self.policy.value,
            "filesToBeDeletedPerPartition": {},
            "version": PLAN_VERSION,
            "filePathsToBeDeletedPerPartition": {
                partition: [{"filePath": storage.full_uri(p), "isBootstrapBaseFile": False} for p in paths]
                for partition, paths in sorted(self.files.items())
                if paths
            },
            "partitionsToBeDeleted": list(self.partitions_to_delete),
            "extraMetadata": {SAVEPOINTED_TIMESTAMPS: ",".join(self.savepoints)} if self.savepoints else {},
        }


# ---- retention ----------------------------------------------------------------------------------


def _commits(timeline: Timeline) -> list[Instant]:
    """Completed commits, deltacommits and replacecommits (services included), by requested time."""
    return sorted(timeline.completed_data_instants(), key=lambda i: i.requested_time)


def earliest_commit_to_retain(ctx: ServiceContext, timeline: Timeline) -> Instant | None:
    """Hudi's `CleanerUtils.getEarliestCommitToRetain` for the configured policy."""
    policy = ctx.configs.value(HudiCleanConfig.POLICY)
    completed = _commits(timeline)
    if policy is CleaningPolicy.KEEP_LATEST_FILE_VERSIONS:
        return None
    if policy is CleaningPolicy.KEEP_LATEST_BY_HOURS:
        hours = ctx.configs.value(HudiCleanConfig.HOURS_RETAINED)
        try:
            floor = format_instant_time(datetime.now(UTC) - timedelta(hours=hours))
        except OverflowError:  # more hours than the calendar reaches back: every commit is retained
            return None
        return next((i for i in completed if i.requested_time >= floor), None)
    retained = ctx.configs.value(HudiCleanConfig.COMMITS_RETAINED)
    if len(completed) <= retained:
        return None
    nth = completed[len(completed) - retained]
    pending = [
        i
        for i in timeline.pending()
        if i.action in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, *TABLE_SERVICE_ACTIONS)
    ]
    if pending and nth.requested_time > pending[0].requested_time:
        before = [i for i in completed if i.requested_time < pending[0].requested_time]
        return before[-1] if before else None
    return nth


def savepoints(storage: Storage, timeline: Timeline) -> tuple[list[str], set[str]]:
    """Savepoint instants and the file names they protect."""
    times: list[str] = []
    files: set[str] = set()
    for instant in timeline.completed():
        if instant.action is not Action.SAVEPOINT:
            continue
        times.append(instant.requested_time)
        path = posixpath.join(timeline.timeline_dir, instant.file_name(timeline.layout_version))
        metadata = decode_instant_content(storage.read_bytes(path), storage.full_path(path)) or {}
        for partition in (metadata.get("partitionMetadata") or {}).values():
            files.update(partition.get("savepointDataFile") or ())
    return times, files


def _needs_cleaning(ctx: ServiceContext, timeline: Timeline) -> bool:
    last = [i for i in timeline.completed() if i.action is Action.CLEAN]
    since = ""
    if last:
        path = posixpath.join(timeline.timeline_dir, last[-1].file_name(timeline.layout_version))
        metadata = decode_instant_content(ctx.storage.read_bytes(path), ctx.storage.full_path(path)) or {}
        since = metadata.get("lastCompletedCommitTimestamp") or ""
    commits = [i for i in _commits(timeline) if i.requested_time > since]
    return len(commits) >= ctx.configs.value(HudiCleanConfig.MAX_COMMITS)


# ---- planning -----------------------------------------------------------------------------------


def plan_clean(ctx: ServiceContext, state: TableState) -> CleanPlan:
    """The files cleaning would delete now (an empty plan when none)."""
    storage, timeline = ctx.storage, state.timeline
    policy = ctx.configs.value(HudiCleanConfig.POLICY)
    commits = _commits(timeline)
    ectr = earliest_commit_to_retain(ctx, timeline)
    plan = CleanPlan(policy, ectr, commits[-1].requested_time if commits else "")
    plan.savepoints, protected = savepoints(storage, timeline)
    if policy is not CleaningPolicy.KEEP_LATEST_FILE_VERSIONS and ectr is None:
        return plan
    compacting = pending_services(storage, timeline).compaction
    view = visible_instants(timeline, timeline.completed_data_instants(), None)
    replaced_at = _replacing_instants(timeline)
    partitioned = bool(state.config.partition_fields)
    listed = list_partitions(storage)
    for partition, entries in listed.items():
        groups = file_group_slices(partition, entries, view)
        cdc = _cdc_logs(entries)
        doomed: list[list[str]] = []
        active_left = 0
        for group, slices in groups.items():
            replaced_by = replaced_at.get(group)
            if replaced_by is not None:
                if policy is CleaningPolicy.KEEP_LATEST_FILE_VERSIONS or (ectr and replaced_by < ectr.requested_time):
                    doomed.extend(_files(s, cdc) for s in slices if not _savepointed(s, protected))
                    active_left += any(_savepointed(s, protected) for s in slices)
                else:
                    active_left += 1
                continue
            active_left += 1
            for file_slice in _deletable(slices, policy, ectr, ctx, compacting.get(group)):
                if not _savepointed(file_slice, protected):
                    doomed.append(_files(file_slice, cdc))
        paths = sorted(posixpath.join(partition, name) for names in doomed for name in names)
        if paths:
            plan.files[partition] = paths
        if partitioned and partition and groups and active_left == 0 and not _holds_partitions(partition, listed):
            plan.partitions_to_delete.append(partition)
    return plan


def _holds_partitions(partition: str, listed: Mapping[str, object]) -> bool:
    """Whether other partitions lie below `partition` (values `a` and `a/b` of one column): its folder
    then stays, as deleting it would take them along."""
    return any(p.startswith(partition + "/") for p in listed)


def _deletable(
    slices: Sequence[FileSlice],
    policy: CleaningPolicy,
    ectr: Instant | None,
    ctx: ServiceContext,
    pending_compaction: tuple[str, str] | None,
) -> list[FileSlice]:
    newest_first = sorted(slices, key=lambda s: s.base_instant, reverse=True)

    def needed_by_compaction(file_slice: FileSlice) -> bool:
        return pending_compaction is not None and file_slice.base_instant >= pending_compaction[1]

    if policy is CleaningPolicy.KEEP_LATEST_FILE_VERSIONS:
        keep = ctx.configs.value(HudiCleanConfig.FILE_VERSIONS_RETAINED) - (1 if pending_compaction else 0)
        candidates = [s for s in newest_first if not needed_by_compaction(s)]
        return candidates[max(keep, 0) :]
    assert ectr is not None
    latest = newest_first[0].base_instant
    before = next((s.base_instant for s in newest_first if s.base_instant < ectr.requested_time), None)
    return [
        s
        for s in newest_first
        if s.base_instant not in (latest, before)
        and s.base_instant < ectr.requested_time
        and not needed_by_compaction(s)
    ]


def _replacing_instants(timeline: Timeline) -> dict[FileGroupId, str]:
    """File group -> requested time of the completed replacecommit that replaced it."""
    found: dict[FileGroupId, str] = {}
    for instant in timeline.completed_data_instants():
        if instant.action is not Action.REPLACE_COMMIT:
            continue
        for partition, ids in timeline.commit_metadata(instant).partition_to_replace_file_ids.items():
            for file_id in ids:
                found.setdefault((partition, file_id), instant.requested_time)
    return found


def _cdc_logs(entries: Sequence[Any]) -> dict[tuple[str, str], list[str]]:
    """`.cdc` log names by (file id, instant that wrote them)."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for entry in entries:
        log = parse_log_file_name(entry.name)
        if log is not None and log.is_cdc:
            found[(log.file_id, log.instant_time)].append(entry.name)
    return found


def _files(file_slice: FileSlice, cdc: Mapping[tuple[str, str], list[str]]) -> list[str]:
    names = [file_slice.base_file] if file_slice.base_file else []
    names.extend(file_slice.log_files)
    names.extend(cdc.get((file_slice.file_id, file_slice.base_instant), ()))
    return names


def _savepointed(file_slice: FileSlice, protected: set[str]) -> bool:
    return bool(protected) and (
        file_slice.base_file in protected or any(name in protected for name in file_slice.log_files)
    )


# ---- running ------------------------------------------------------------------------------------


def run_clean(ctx: ServiceContext, force: bool = False) -> ServiceResult | None:
    """Finishes pending cleans, then plans and runs a new one when due; None when nothing to clean.

    `force` ignores `hoodie.clean.trigger.max.commits` (an explicit `clean()` call).
    """
    result = None
    with ctx.locked("clean") as locked_state:
        check_writable(locked_state.config, ctx.storage.base_uri)
        pending_cleans = [i for i in locked_state.timeline.pending() if i.action is Action.CLEAN]
        for pending in pending_cleans:
            result = _execute(ctx, ctx.state(), pending)
        state = ctx.state() if pending_cleans else locked_state
        if not force and not _needs_cleaning(ctx, state.timeline):
            return result
        plan = plan_clean(ctx, state)
        if plan.is_empty:
            return result
        instant_time = new_instant_time(after=latest_time_on(state.timeline))
        content = encode_avro_container(CLEANER_PLAN, plan.to_record(ctx.storage))
        requested = ctx.writer(state).request(instant_time, Action.CLEAN, content)
        crash.crash_point("clean.after_plan")
        return _execute(ctx, ctx.state(), requested)


def _execute(ctx: ServiceContext, state: TableState, instant: Instant) -> ServiceResult:
    storage = ctx.storage
    started = time.monotonic()
    plan = read_plan(storage, state.timeline, instant, Action.CLEAN)
    source = f"the clean plan of {instant.requested_time}"
    to_delete = {planned_partition(p, source) for p in plan.get("partitionsToBeDeleted") or ()}
    doomed = _planned_files(storage, plan, source)  # every entry checked before anything changes
    content = encode_avro_container(CLEANER_PLAN, plan)
    writer = ctx.writer(state)
    inflight = writer.to_inflight(instant, content) if instant.state is State.REQUESTED else instant
    crash.crash_point("clean.after_inflight")
    partitions: dict[str, dict[str, Any]] = {}
    deleted_count = 0
    tasks = [_DeleteTask(storage, partition, tuple(relatives)) for partition, relatives in doomed.items()]
    for task, (success, failed) in zip(tasks, ctx.runner(delete_files, tasks), strict=True):
        deleted_count += len(success)
        partitions[task.partition] = {
            "partitionPath": task.partition,
            "policy": ctx.configs.value(HudiCleanConfig.POLICY).value,
            "deletePathPatterns": [posixpath.basename(relative) for relative in task.relatives],
            "successDeleteFiles": success,
            "failedDeleteFiles": failed,
            "isPartitionDeleted": task.partition in to_delete,
        }
    for partition in sorted(to_delete):
        if partition:
            storage.delete_dir(partition)
    crash.crash_point("clean.after_deletes")
    ectr = plan.get("earliestInstantToRetain") or {}
    metadata = {
        "startCleanTime": instant.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": deleted_count,
        "earliestCommitToRetain": ectr.get("timestamp") or "",
        "lastCompletedCommitTimestamp": plan.get("lastCompletedCommitTimestamp") or "",
        "partitionMetadata": partitions,
        "version": PLAN_VERSION,
        "bootstrapPartitionMetadata": {},
        "extraMetadata": plan.get("extraMetadata") or {},
    }
    completed = writer.complete(inflight, encode_avro_container(CLEAN_METADATA, metadata))
    return ServiceResult(
        "clean",
        completed.requested_time,
        completed.completion_time,
        {"files_deleted": deleted_count, "partitions_deleted": len([p for p in to_delete if p])},
    )


@dataclass(frozen=True)
class _DeleteTask:
    """The files a clean deletes in one partition (a task any runner executes)."""

    storage: Storage
    partition: str
    relatives: tuple[str, ...]


def delete_files(task: _DeleteTask) -> tuple[list[str], list[str]]:
    """Deletes a task's files; returns the names deleted and those already gone (Hudi 1.0 reports
    these as failed deletes)."""
    success: list[str] = []
    failed: list[str] = []
    for relative in task.relatives:
        name = posixpath.basename(relative)
        if task.storage.exists(relative):
            task.storage.delete(relative)
            success.append(name)
            if len(success) == 1:
                crash.crash_point("clean.after_first_delete")
        else:
            failed.append(name)
    return success, failed


def files_being_cleaned(storage: Storage, timeline: Timeline) -> set[str]:
    """Relative paths a pending (crashed or running) clean may already have deleted."""
    paths: set[str] = set()
    for instant in timeline.pending():
        if instant.action is Action.CLEAN:
            plan = read_plan(storage, timeline, instant, Action.CLEAN)
            for relatives in _planned_files(storage, plan, f"the clean plan of {instant.requested_time}").values():
                paths.update(relatives)
    return paths


def _planned_files(storage: Storage, plan: Mapping[str, Any], source: str) -> dict[str, list[str]]:
    """The plan's files to delete (relative paths) by partition, each a data file of its partition."""
    planned: dict[str, list[str]] = {}
    for partition, infos in (plan.get("filePathsToBeDeletedPerPartition") or {}).items():
        files = planned[planned_partition(partition, source)] = []
        for info in infos:
            relative = planned_file(storage, info["filePath"], source)
            if posixpath.dirname(relative) != partition:
                raise TimelineError(f"{source} lists {info['filePath']!r} under partition {partition!r}")
            files.append(relative)
    return planned
