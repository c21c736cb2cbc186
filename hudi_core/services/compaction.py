"""Compaction of Merge-on-Read file slices: base file + log files -> a new base file.

Timeline (notes §1.3, App. A.1): `<t>.compaction.requested` holds a `HoodieCompactionPlan`,
`<t>.compaction.inflight` is empty, and the compaction completes as `<t>_<c>.commit`
(`operationType` COMPACT, `compacted` true). Each operation names a slice by bare file names; its
metrics are Hudi's five (`TOTAL_LOG_FILES`, `TOTAL_IO_MB`, ...), in Hudi's order.

Planning takes the latest slice of every file group that has log files, skipping file groups of
pending compactions, log compactions and clusterings; the strategy (`hoodie.compaction.strategy`)
filters and orders them. The plan is written under the table lock with an instant time newer than
every completion on the timeline, so it holds exactly the logs completed before it: logs of
deltacommits completing later fall into the new slice the compaction starts (file slicing by
completion time) and nothing is lost or applied twice (Hudi #5110).

Executing reads each planned slice merged (the same file-group reader as queries), keeps every
record's meta columns (commit time, sequence number), and writes the new base file named with the
compaction instant; with `hoodie.table.cdc.enabled` it also writes the slice's changes to a `.cdc`
log, as Hudi does for Merge-on-Read tables.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config import pass_through_keys
from hudi_core.config.services import CompactionStrategy, CompactionTrigger, HudiCompactionConfig
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import HudiError, UnsupportedFeatureError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet import read_parquet
from hudi_core.file_group.compaction_plan import CompactionOperation, plan_record
from hudi_core.file_group.log_file.format import HeaderKey
from hudi_core.file_group.log_file.scanner import scan_log_files
from hudi_core.file_group.naming import log_file_version
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.markers import IOType, Markers
from hudi_core.lifecycle.pending import compaction_operations, pending_services, read_plan
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest, read_log_chunks
from hudi_core.merge.record_merger import merge_log_chunks
from hudi_core.schema.arrow_avro import table_avro_schema, with_meta_fields_avro
from hudi_core.schema.meta_fields import COMMIT_TIME, without_meta_fields
from hudi_core.services.base import ServiceContext
from hudi_core.storage import Storage
from hudi_core.table.listing import latest_slices
from hudi_core.table.scan import TableScanner
from hudi_core.table.state import TableState
from hudi_core.timeline.commit_metadata import WriteStat, commit_metadata_record, written_paths
from hudi_core.timeline.instant import Action, Instant
from hudi_core.timeline.schemas import COMMIT_METADATA, COMPACTION_PLAN
from hudi_core.timeline.serde import encode_avro_container
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.client import check_writable, write_context
from hudi_core.write.handles import WriteContext, change_records, log_blocks, write_base, write_cdc_log, write_log_file

LOG_COMPACTION_EXECUTOR = "org.apache.hudi.table.action.compact.LogCompactionExecutionHelper"


@dataclass(frozen=True)
class _Kind:
    """What differs between compaction and log compaction."""

    action: Action
    operation_type: str
    compacted: bool
    crash_prefix: str


COMPACTION = _Kind(Action.COMPACTION, "COMPACT", True, "compaction")
LOG_COMPACTION = _Kind(Action.LOG_COMPACTION, "LOG_COMPACT", False, "logcompaction")


# ---- planning ---------------------------------------------------------------------------------


def candidate_slices(storage: Storage, state: TableState) -> list[FileSlice]:
    """Latest slices with log files, outside pending compactions, log compactions and clusterings."""
    busy = pending_services(storage, state.timeline).file_groups
    return [
        s
        for slices in latest_slices(storage, state.timeline).values()
        for s in slices
        if s.has_logs and (s.partition_path, s.file_id) not in busy
    ]


def select_operations(ctx: ServiceContext, slices: Sequence[FileSlice]) -> list[CompactionOperation]:
    """Applies `hoodie.compaction.strategy` to the candidate slices."""
    configs = ctx.configs
    max_file_size = configs.value(HudiWriteConfig.PARQUET_MAX_FILE_SIZE)
    ops = [CompactionOperation.for_slice(s, max_file_size) for s in slices]
    strategy = configs.value(HudiCompactionConfig.STRATEGY)
    if strategy is CompactionStrategy.LOG_FILE_SIZE_BASED:
        threshold = configs.value(HudiCompactionConfig.LOG_FILE_SIZE_THRESHOLD)
        ops = sorted((op for op in ops if op.log_size >= threshold), key=lambda op: -op.log_size)
    elif strategy is CompactionStrategy.LOG_FILE_NUM_BASED:
        threshold = configs.value(HudiCompactionConfig.LOG_FILE_NUM_THRESHOLD)
        ops = sorted((op for op in ops if len(op.log_files) >= threshold), key=lambda op: -len(op.log_files))
    if strategy is CompactionStrategy.UNBOUNDED:
        return ops
    remaining = float(configs.value(HudiCompactionConfig.TARGET_IO_MB))
    bounded = []
    for op in ops:  # the operation crossing the budget still goes in, as Hudi's BoundedIO does
        if remaining <= 0:
            break
        remaining -= op.io_mb
        bounded.append(op)
    return bounded


def schedule_compaction(ctx: ServiceContext, kind: _Kind = COMPACTION) -> Instant | None:
    """Writes a compaction (or log compaction) plan; None when no slice qualifies."""
    with ctx.locked(f"schedule {kind.action.value}") as state:
        _check_merge_on_read(ctx, state)
        candidates = candidate_slices(ctx.storage, state)
        if kind is LOG_COMPACTION:
            candidates = _log_compactable(ctx, state, candidates)
            operations = [
                CompactionOperation.for_slice(s, ctx.configs.value(HudiWriteConfig.PARQUET_MAX_FILE_SIZE))
                for s in candidates
            ]
            strategy = {"compactorClassName": LOG_COMPACTION_EXECUTOR, "strategyParams": {}, "version": 1}
        else:
            operations = select_operations(ctx, candidates)
            strategy = None
        if not operations:
            return None
        instant_time = new_instant_time(after=latest_time_on(state.timeline))
        content = encode_avro_container(COMPACTION_PLAN, plan_record(operations, strategy))
        requested = ctx.writer(state).request(instant_time, kind.action, content)
        crash.crash_point(f"{kind.crash_prefix}.after_plan")
        return requested


def _log_compactable(ctx: ServiceContext, state: TableState, slices: Sequence[FileSlice]) -> list[FileSlice]:
    """Slices with at least `hoodie.log.compaction.blocks.threshold` visible blocks, none partial."""
    threshold = ctx.configs.value(HudiCompactionConfig.LOG_COMPACTION_BLOCKS_THRESHOLD)
    _, request = TableScanner(ctx.storage, state.config, state.timeline).merge_request()
    assert request.visibility is not None
    chosen = []
    for file_slice in slices:
        blocks = scan_log_files(ctx.storage, file_slice.log_file_paths, request.visibility)
        partial = any(b.header.get(HeaderKey.IS_PARTIAL, "").lower() == "true" for b in blocks)
        if len(blocks) >= threshold and not partial:
            chosen.append(file_slice)
    return chosen


def _check_merge_on_read(ctx: ServiceContext, state: TableState) -> None:
    check_writable(state.config, ctx.storage.base_uri)
    if not state.config.is_mor:
        raise UnsupportedFeatureError(f"{ctx.storage.base_uri} is Copy-on-Write: only Merge-on-Read tables compact")


def compaction_due(ctx: ServiceContext, state: TableState) -> bool:
    """Whether the inline trigger (`hoodie.compact.inline.trigger.strategy`) is met."""
    timeline = state.timeline
    last = [
        i
        for i in timeline.instants()
        if timeline.pending_action(i) is Action.COMPACTION and (i.is_completed or _counts_pending(ctx))
    ]
    since = last[-1].requested_time if last else ""
    deltas = [
        i
        for i in timeline.completed()
        if i.action is Action.DELTA_COMMIT
        and i.requested_time > since
        and timeline.pending_action(i) is not Action.LOG_COMPACTION
    ]
    configs = ctx.configs
    enough = len(deltas) >= configs.value(HudiCompactionConfig.MAX_DELTA_COMMITS)
    reference = since or (deltas[0].requested_time if deltas else "")
    elapsed = bool(reference) and _seconds_between(reference, new_instant_time()) >= configs.value(
        HudiCompactionConfig.MAX_DELTA_SECONDS
    )
    trigger = configs.value(HudiCompactionConfig.TRIGGER_STRATEGY)
    if trigger in (CompactionTrigger.NUM_COMMITS, CompactionTrigger.NUM_COMMITS_AFTER_LAST_REQUEST):
        return enough
    if trigger is CompactionTrigger.TIME_ELAPSED:
        return elapsed
    if trigger is CompactionTrigger.NUM_OR_TIME:
        return enough or elapsed
    return enough and elapsed


def _counts_pending(ctx: ServiceContext) -> bool:
    return ctx.configs.value(HudiCompactionConfig.TRIGGER_STRATEGY) is CompactionTrigger.NUM_COMMITS_AFTER_LAST_REQUEST


def _seconds_between(earlier: str, later: str) -> float:
    def seconds(instant: str) -> float:
        parsed = time.strptime(instant[:14], "%Y%m%d%H%M%S")
        return time.mktime(parsed) + int(instant[14:17] or 0) / 1000

    return seconds(later) - seconds(earlier)


# ---- execution --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Task:
    context: WriteContext
    request: SliceReadRequest
    operation: CompactionOperation
    task_index: int

    @property
    def write_token(self) -> str:
        return f"{self.task_index}-0-{self.task_index}"


def compact_file_group(task: _Task) -> WriteStat:
    """Rewrites one planned slice into a base file of the compaction instant (engine-agnostic)."""
    context, op = task.context, task.operation
    storage = Storage(context.base_uri)
    started = time.monotonic()
    rows, scanned = FileGroupReader(storage).read_with_stats(op.file_slice(), task.request)
    scan_ms = int((time.monotonic() - started) * 1000)
    columns = context.full_schema.names
    rows = rows.select(columns).cast(context.full_schema)
    base = _base_rows(storage, context, op)
    keys = pc.cast(context.key_spec.keys(rows), pa.string())
    base_keys = pc.cast(context.key_spec.keys(base), pa.string())
    from_logs = _written_after(rows, op.base_instant, base.num_rows == 0)
    in_base = pc.is_in(keys, value_set=base_keys)
    updated = pc.and_(from_logs, in_base)
    inserted = pc.and_(from_logs, pc.invert(in_base))
    deleted = pc.invert(pc.is_in(base_keys, value_set=keys))
    io_type = IOType.MERGE if op.base_file else IOType.CREATE
    path, size = write_base(storage, context, op.partition_path, op.file_id, task.write_token, rows, io_type)
    cdc_stats = None
    if context.cdc_mode is not None:
        replaced = base.take(pc.index_in(keys.filter(updated), value_set=base_keys))
        changes = change_records(context, base.filter(deleted), replaced, rows.filter(updated), rows.filter(inserted))
        if changes.num_rows or op.base_file:  # a rewritten base file has its CDC log, as in a write
            cdc_stats = write_cdc_log(storage, context, op.partition_path, op.file_id, task.write_token, changes)
    num_updates = _count(updated)
    num_deletes = _count(deleted)
    return WriteStat(
        file_id=op.file_id,
        path=path,
        partition_path=op.partition_path,
        prev_commit=op.base_instant if op.base_file else None,
        num_writes=rows.num_rows,
        num_inserts=rows.num_rows - num_updates,  # Hudi 1.0 counts carried-over records as inserts
        num_update_writes=num_updates,
        num_deletes=num_deletes,
        total_write_bytes=size,
        file_size_in_bytes=size,
        total_log_records=scanned.records,
        base_file=None,
        log_files=(),
        cdc_stats=cdc_stats,
        prev_base_file=op.base_file,
        total_log_blocks=scanned.blocks,
        total_updated_records_compacted=num_updates + _count(inserted) + num_deletes,
        total_log_files_compacted=len(op.log_files),
        total_log_size_compacted=int(op.log_size),
        total_log_read_time_ms=scan_ms,
    )


def log_compact_file_group(task: _Task) -> WriteStat:
    """Merges one slice's log blocks into a single log-compacted block pair (engine-agnostic).

    The new log file is named with the log-compaction instant; its blocks list the instants they
    replace in COMPACTED_BLOCK_TIMES, so readers skip the originals. Deletes stay deletes (with
    their ordering values): they must still remove base records.
    """
    context, op = task.context, task.operation
    storage = Storage(context.base_uri)
    assert task.request.visibility is not None and task.request.merge is not None
    paths = op.file_slice().log_file_paths
    chunks = read_log_chunks(storage, paths, task.request.visibility)
    replaced = list(dict.fromkeys(b.instant_time for b, _ in reversed(chunks) if b.instant_time))
    merged = merge_log_chunks([chunk for _, chunk in chunks], task.request.merge)
    instant = context.instant_time
    content = log_blocks(
        instant,
        with_meta_fields_avro(context.avro_schema),
        merged.rows.select(context.full_schema.names).cast(context.full_schema),
        merged.deleted_keys.to_pylist(),
        op.partition_path,
        merged.delete_ordering if context.ordering_field else None,
        compacted_times=replaced,
    )
    path, name = write_log_file(storage, instant, op.partition_path, op.file_id, task.write_token, content)
    crash.crash_point(f"{context.crash_prefix}.after_first_file")
    return WriteStat(
        file_id=op.file_id,
        path=path,
        partition_path=op.partition_path,
        prev_commit=instant,
        num_writes=merged.rows.num_rows + len(merged.deleted_keys),
        num_inserts=0,
        num_update_writes=merged.rows.num_rows,
        num_deletes=len(merged.deleted_keys),
        total_write_bytes=len(content),
        file_size_in_bytes=len(content),
        total_log_records=sum(c.data.num_rows if c.data is not None else len(c.deletes or ()) for _, c in chunks),
        base_file="",
        log_files=(name,),
        cdc_stats=None,
        log_version=log_file_version(name),
        log_offset=0,
        total_log_blocks=len(chunks),
        total_log_files_compacted=len(op.log_files),
        total_log_size_compacted=int(op.log_size),
    )


def _base_rows(storage: Storage, context: WriteContext, op: CompactionOperation) -> pa.Table:
    if op.base_file is None:
        return context.full_schema.empty_table()
    return read_parquet(storage, op.file_slice().base_file_path or "", context.full_schema).table


def _written_after(rows: pa.Table, base_instant: str, log_only: bool) -> pa.Array | pa.ChunkedArray:
    """Rows whose record came from the logs: written after the slice's base file."""
    if log_only:
        return pa.repeat(True, rows.num_rows)
    commit_times = rows.column(COMMIT_TIME)
    return pc.fill_null(pc.greater(commit_times, base_instant), False)


def _count(mask: pa.Array | pa.ChunkedArray) -> int:
    return int(pc.sum(pc.cast(mask, pa.int64())).as_py() or 0)


def run_compaction(
    ctx: ServiceContext,
    instant_time: str | None = None,
    kind: _Kind = COMPACTION,
) -> ServiceResult | None:
    """Executes a pending compaction (the given one, else the earliest; else schedules one first).

    Returns None when there was nothing to compact.
    """
    with ctx.run(kind.action.value):
        return _run(ctx, instant_time, kind)


def _run(
    ctx: ServiceContext,
    instant_time: str | None,
    kind: _Kind,
) -> ServiceResult | None:
    with ctx.locked(f"start {kind.action.value}") as state:
        _check_merge_on_read(ctx, state)
        instant = _pending(state, instant_time, kind)
        if instant is not None:
            instant = ctx.reclaim(state, instant)
    if instant is None:
        if instant_time is not None:
            raise HudiError(f"no pending {kind.action.value} {instant_time} on {ctx.storage.base_uri}")
        instant = schedule_compaction(ctx, kind)
        if instant is None:
            return None
    return _execute(ctx, instant, kind)


def _pending(state: TableState, instant_time: str | None, kind: _Kind) -> Instant | None:
    timeline = state.timeline
    pending = [i for i in timeline.pending() if timeline.pending_action(i) is kind.action]
    if instant_time is not None:
        pending = [i for i in pending if i.requested_time == instant_time]
    return pending[0] if pending else None


def _execute(
    ctx: ServiceContext,
    instant: Instant,
    kind: _Kind,
) -> ServiceResult:
    storage = ctx.storage
    # The heartbeat beats before the instant turns inflight: an inflight instant without a fresh
    # heartbeat is an abandoned one.
    with ctx.heartbeat(instant.requested_time):
        with ctx.locked(f"execute {kind.action.value}") as state:
            plan = read_plan(storage, state.timeline, instant, kind.action)
            inflight = ctx.writer(state).to_inflight(instant)
            # Under the lock: the request reads replacecommits, which an archival may remove after.
            schema, request = TableScanner(storage, state.config, state.timeline).merge_request()
        crash.crash_point(f"{kind.crash_prefix}.after_inflight")
        operations = [CompactionOperation.from_record(r) for r in compaction_operations(plan)]
        data_schema = without_meta_fields(schema)
        avro_schema = table_avro_schema(data_schema, state.config.name)
        context = write_context(
            storage, instant.requested_time, data_schema, avro_schema, state.config, ctx.configs, kind.crash_prefix
        )
        tasks = [_Task(context, request, op, index) for index, op in enumerate(operations)]
        stats = ctx.runner(compact_file_group if kind is COMPACTION else log_compact_file_group, tasks)
        crash.crash_point(f"{kind.crash_prefix}.after_files")
        Markers(storage, instant.requested_time).delete_unlisted(written_paths(stats))
        with ctx.locked(f"complete {kind.action.value}") as state:
            # Options under hoodie.datasource.write.commitmeta.key.prefix, as write commits record them.
            extra = {**pass_through_keys(ctx.configs.raw), "schema": json.dumps(avro_schema, separators=(",", ":"))}
            record = commit_metadata_record(stats, kind.operation_type, extra, compacted=kind.compacted)
            completed = ctx.writer(state).complete(inflight, encode_avro_container(COMMIT_METADATA, record))
    Markers(storage, instant.requested_time).delete_all()
    return ServiceResult(
        kind.action.value,
        completed.requested_time,
        completed.completion_time,
        {
            "file_groups": len(stats),
            "files_written": len(stats),
            "records": sum(s.num_writes for s in stats),
            "log_files_compacted": sum(len(op.log_files) for op in operations),
        },
    )
