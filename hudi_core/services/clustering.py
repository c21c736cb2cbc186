"""Clustering: rewriting a partition's small file groups into fewer, ordered ones.

Timeline (notes §1.3, App. A.2/A.3): `<t>.clustering.requested` holds a
`HoodieRequestedReplaceMetadata` (operationType CLUSTER) whose `HoodieClusteringPlan` lists input
groups of slices, `<t>.clustering.inflight` is empty, and clustering completes as
`<t>_<c>.replacecommit` whose `partitionToReplaceFileIds` names every input file group.

Planning (Hudi's SparkSizeBasedClusteringPlanStrategy): per partition, the latest slices whose base
file is smaller than `hoodie.clustering.plan.strategy.small.file.limit` (log-only slices too),
outside pending services, largest first, packed greedily into groups of at most
`max.bytes.per.group`; each group writes ceil(bytes / `target.file.max.bytes`) files.

Executing reads each group's slices merged, orders the rows by the sort columns
(`hoodie.layout.optimize.strategy` linear, z-order or hilbert), and writes them into new file
groups named with the clustering instant, keeping every record's meta columns: clustering changes
layout, never data, so incremental and CDC readers see no change. Until the clustering completes,
writes that would update its file groups fail (Hudi's reject strategy).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hudi_core.config import pass_through_keys
from hudi_core.config.services import HudiClusteringConfig, refuse_bucket_index_clustering
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import HudiConfigError, HudiError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.markers import IOType, Markers
from hudi_core.lifecycle.pending import clustering_slices, pending_services, read_plan
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest
from hudi_core.schema.arrow_avro import table_avro_schema
from hudi_core.schema.meta_fields import COMMIT_SEQNO, COMMIT_TIME, without_meta_fields
from hudi_core.services.base import ServiceContext
from hudi_core.services.layout import LayoutStrategy, parse_layout_strategy, sort_indices
from hudi_core.storage import Storage
from hudi_core.table.listing import latest_slices
from hudi_core.table.scan import TableScanner
from hudi_core.table.state import TableState
from hudi_core.timeline.commit_metadata import WriteStat, commit_metadata_record, written_paths
from hudi_core.timeline.instant import Action, Instant
from hudi_core.timeline.schemas import REPLACE_COMMIT_METADATA, REQUESTED_REPLACE_METADATA
from hudi_core.timeline.serde import encode_avro_container
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.client import check_writable, write_context
from hudi_core.write.handles import WriteContext, base_file_stat, write_base
from hudi_core.write.planner import new_file_id

EXECUTION_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
SORT_COLUMNS_PARAM = HudiClusteringConfig.SORT_COLUMNS.key
LAYOUT_PARAM = HudiClusteringConfig.LAYOUT_STRATEGY.key
_MB = 1024 * 1024


@dataclass(frozen=True)
class ClusteringGroup:
    """One input group: slices of one partition rewritten together."""

    slices: tuple[FileSlice, ...]
    num_output_file_groups: int

    @property
    def partition_path(self) -> str:
        return self.slices[0].partition_path

    @property
    def input_bytes(self) -> int:
        return sum(s.total_size for s in self.slices)


# ---- planning ---------------------------------------------------------------------------------


def _slice_size(file_slice: FileSlice, max_file_size: int) -> int:
    return file_slice.base_file_size if file_slice.base_file else max_file_size


def plan_groups(ctx: ServiceContext, state: TableState) -> list[ClusteringGroup]:
    """The groups a clustering plan would rewrite now (empty when nothing qualifies)."""
    configs = ctx.configs
    small = configs.value(HudiClusteringConfig.SMALL_FILE_LIMIT)
    max_group = configs.value(HudiClusteringConfig.MAX_BYTES_PER_GROUP)
    target = configs.value(HudiClusteringConfig.TARGET_FILE_MAX_BYTES)
    max_groups = configs.value(HudiClusteringConfig.MAX_NUM_GROUPS)
    single = configs.value(HudiClusteringConfig.SINGLE_GROUP)
    max_file_size = configs.value(HudiWriteConfig.PARQUET_MAX_FILE_SIZE)
    selected = configs.get(HudiClusteringConfig.PARTITIONS_SELECTED)
    pattern = configs.get(HudiClusteringConfig.PARTITION_REGEX)
    regex = re.compile(pattern) if pattern else None
    busy = pending_services(ctx.storage, state.timeline).file_groups
    wanted = [p.strip() for p in selected.split(",")] if selected else None
    groups: list[ClusteringGroup] = []
    for partition, slices in latest_slices(ctx.storage, state.timeline, wanted).items():
        if regex is not None and not regex.fullmatch(partition):
            continue
        eligible = [
            s
            for s in slices
            if (partition, s.file_id) not in busy and (s.base_file is None or s.base_file_size < small)
        ]
        eligible.sort(key=lambda s: -_slice_size(s, max_file_size))
        current: list[FileSlice] = []
        total = 0
        for file_slice in eligible:
            size = _slice_size(file_slice, max_file_size)
            if current and total + size > max_group:
                groups.append(ClusteringGroup(tuple(current), max(1, math.ceil(total / target))))
                current, total = [], 0
            current.append(file_slice)
            total += size
        if current and (len(current) > 1 or single):
            groups.append(ClusteringGroup(tuple(current), max(1, math.ceil(total / target))))
    return groups[:max_groups]


def _slice_info(storage: Storage, file_slice: FileSlice) -> dict[str, Any]:
    return {
        "dataFilePath": storage.full_uri(file_slice.base_file_path) if file_slice.base_file_path else "",
        "deltaFilePaths": [storage.full_uri(p) for p in file_slice.log_file_paths],
        "fileId": file_slice.file_id,
        "partitionPath": file_slice.partition_path,
        "bootstrapFilePath": "",
        "version": 1,
    }


def _metrics(group: ClusteringGroup, max_file_size: int) -> dict[str, float]:
    base = sum(s.base_file_size for s in group.slices)
    logs = sum(sum(s.log_file_sizes) for s in group.slices)
    write = sum(s.base_file_size if s.base_file else max_file_size for s in group.slices)
    return {  # Hudi's HashMap order
        "TOTAL_LOG_FILES": float(sum(len(s.log_files) for s in group.slices)),
        "TOTAL_IO_MB": float((base + logs) // _MB + write // _MB),
        "TOTAL_IO_READ_MB": float((base + logs) // _MB),
        "TOTAL_LOG_FILES_SIZE": float(logs),
        "TOTAL_IO_WRITE_MB": float(write // _MB),
    }


def requested_record(
    storage: Storage, groups: Sequence[ClusteringGroup], params: Mapping[str, str], max_file_size: int
) -> dict[str, Any]:
    plan = {
        "inputGroups": [
            {
                # Slices go largest first, as Hudi lists them.
                "slices": [
                    _slice_info(storage, s) for s in sorted(group.slices, key=lambda s: -_slice_size(s, max_file_size))
                ],
                "metrics": _metrics(group, max_file_size),
                "numOutputFileGroups": group.num_output_file_groups,
                "extraMetadata": None,
                "version": 1,
            }
            for group in groups
        ],
        "strategy": {"strategyClassName": EXECUTION_STRATEGY, "strategyParams": dict(params), "version": 1},
        "extraMetadata": {},
        "version": 1,
        "preserveHoodieMetadata": True,
        "missingSchedulePartitions": [],
    }
    return {"operationType": "CLUSTER", "clusteringPlan": plan, "extraMetadata": {}, "version": 1}


def _strategy_params(ctx: ServiceContext, state: TableState) -> dict[str, str]:
    params: dict[str, str] = {}
    columns = ctx.configs.get(HudiClusteringConfig.SORT_COLUMNS)
    if columns:
        names = [c.strip() for c in columns.split(",") if c.strip()]
        known = set(TableScanner(ctx.storage, state.config, state.timeline).data_schema().names)
        unknown = [c for c in names if c not in known]
        if unknown:
            raise HudiConfigError(f"{SORT_COLUMNS_PARAM}: no column(s) {unknown} in the table")
        params[SORT_COLUMNS_PARAM] = ",".join(names)
        # Java reads the layout from its own config at execution; keeping it in the plan makes
        # our execution follow the plan.
        layout = parse_layout_strategy(ctx.configs.value(HudiClusteringConfig.LAYOUT_STRATEGY))
        params[LAYOUT_PARAM] = layout.name
    return params


def schedule_clustering(ctx: ServiceContext) -> Instant | None:
    """Writes a clustering plan; None when no file group qualifies."""
    refuse_bucket_index_clustering(ctx.configs, "clustering")
    with ctx.locked("schedule clustering") as state:
        check_writable(state.config, ctx.storage.base_uri)
        groups = plan_groups(ctx, state)
        if not groups:
            return None
        params = _strategy_params(ctx, state)
        max_file_size = ctx.configs.value(HudiWriteConfig.PARQUET_MAX_FILE_SIZE)
        content = encode_avro_container(
            REQUESTED_REPLACE_METADATA, requested_record(ctx.storage, groups, params, max_file_size)
        )
        instant_time = new_instant_time(after=latest_time_on(state.timeline))
        requested = ctx.writer(state).request(instant_time, Action.CLUSTERING, content)
        crash.crash_point("clustering.after_plan")
        return requested


def clustering_due(ctx: ServiceContext, state: TableState) -> bool:
    """Whether `hoodie.clustering.inline.max.commits` commits completed since the last clustering."""
    timeline = state.timeline
    last = [i for i in timeline.instants() if timeline.pending_action(i) is Action.CLUSTERING]
    since = last[-1].requested_time if last else ""
    commits = [
        i for i in timeline.completed_data_instants() if i.requested_time > since and not timeline.is_table_service(i)
    ]
    return len(commits) >= ctx.configs.value(HudiClusteringConfig.INLINE_MAX_COMMITS)


# ---- execution --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Task:
    context: WriteContext
    request: SliceReadRequest
    slices: tuple[FileSlice, ...]
    num_output_file_groups: int
    target_file_bytes: int
    sort_columns: tuple[str, ...]
    layout: LayoutStrategy
    preserve_commit_metadata: bool
    task_index: int


def cluster_group(task: _Task) -> list[WriteStat]:
    """Rewrites one clustering group into new, ordered file groups (engine-agnostic)."""
    context = task.context
    storage = Storage(context.base_uri)
    reader = FileGroupReader(storage)
    pieces = [reader.read(s, task.request).select(context.full_schema.names) for s in task.slices]
    rows = pa.concat_tables(pieces).cast(context.full_schema) if pieces else context.full_schema.empty_table()
    rows = rows.take(sort_indices(rows, task.sort_columns, task.layout))
    if not task.preserve_commit_metadata and rows.num_rows:
        rows = rows.set_column(
            rows.schema.get_field_index(COMMIT_TIME),
            COMMIT_TIME,
            pa.repeat(pa.scalar(context.instant_time), rows.num_rows),
        )
        seqnos = [f"{context.instant_time}_{task.task_index}_{i}" for i in range(rows.num_rows)]
        rows = rows.set_column(rows.schema.get_field_index(COMMIT_SEQNO), COMMIT_SEQNO, pa.array(seqnos, pa.string()))
    files = max(task.num_output_file_groups, 1)  # the plan sized them from the input files
    per_file = max(1, math.ceil(rows.num_rows / files))
    partition = task.slices[0].partition_path
    stats = []
    for number, start in enumerate(range(0, max(rows.num_rows, 1), per_file)):
        chunk = rows.slice(start, per_file)
        if chunk.num_rows == 0 and rows.num_rows:
            continue
        file_id = new_file_id()
        token = f"{task.task_index}-{number}-{task.task_index}"
        path, size = write_base(storage, context, partition, file_id, token, chunk, IOType.CREATE)
        stats.append(base_file_stat(partition, file_id, path, size, writes=chunk.num_rows, inserts=chunk.num_rows))
    return stats


def _slice_from_info(info: Mapping[str, Any]) -> FileSlice:
    partition = info.get("partitionPath") or ""
    data = info.get("dataFilePath") or ""
    base_file = data.rsplit("/", 1)[-1] if data else None
    logs = tuple(p.rsplit("/", 1)[-1] for p in info.get("deltaFilePaths") or ())
    parsed = parse_base_file_name(base_file) if base_file else None
    first_log = parse_log_file_name(logs[0]) if logs else None
    base_instant = parsed.instant_time if parsed else first_log.instant_time if first_log else ""
    return FileSlice(partition, str(info["fileId"]), base_instant, base_file, logs)


def run_clustering(
    ctx: ServiceContext,
    instant_time: str | None = None,
) -> ServiceResult | None:
    """Executes a pending clustering (the given one, else the earliest; else schedules one first)."""
    refuse_bucket_index_clustering(ctx.configs, "clustering")
    with ctx.run("clustering"):
        return _run(ctx, instant_time)


def _run(
    ctx: ServiceContext,
    instant_time: str | None,
) -> ServiceResult | None:
    with ctx.locked("start clustering") as state:
        check_writable(state.config, ctx.storage.base_uri)
        timeline = state.timeline
        pending = [i for i in timeline.pending() if timeline.pending_action(i) is Action.CLUSTERING]
        if instant_time is not None:
            pending = [i for i in pending if i.requested_time == instant_time]
        instant = ctx.reclaim(state, pending[0]) if pending else None
    if instant is None:
        if instant_time is not None:
            raise HudiError(f"no pending clustering {instant_time} on {ctx.storage.base_uri}")
        instant = schedule_clustering(ctx)
        if instant is None:
            return None
    return _execute(ctx, instant)


def _execute(
    ctx: ServiceContext,
    instant: Instant,
) -> ServiceResult:
    storage = ctx.storage
    with ctx.heartbeat(instant.requested_time):
        with ctx.locked("execute clustering") as state:
            requested = read_plan(storage, state.timeline, instant, Action.CLUSTERING)
            inflight = ctx.writer(state).to_inflight(instant)
            # Under the lock: the request reads replacecommits, which an archival may remove after.
            schema, request = TableScanner(storage, state.config, state.timeline).merge_request()
        crash.crash_point("clustering.after_inflight")
        plan = requested.get("clusteringPlan") or {}
        params = (plan.get("strategy") or {}).get("strategyParams") or {}
        sort_columns = tuple(c for c in (params.get(SORT_COLUMNS_PARAM) or "").split(",") if c)
        layout = parse_layout_strategy(
            params.get(LAYOUT_PARAM) or ctx.configs.value(HudiClusteringConfig.LAYOUT_STRATEGY)
        )
        data_schema = without_meta_fields(schema)
        avro_schema = table_avro_schema(data_schema, state.config.name)
        context = write_context(
            storage, instant.requested_time, data_schema, avro_schema, state.config, ctx.configs, "clustering"
        )
        preserve = bool(plan.get("preserveHoodieMetadata", True)) and ctx.configs.value(
            HudiClusteringConfig.PRESERVE_COMMIT_METADATA
        )
        target = ctx.configs.value(HudiClusteringConfig.TARGET_FILE_MAX_BYTES)
        tasks = [
            _Task(
                context,
                request,
                tuple(_slice_from_info(s) for s in group.get("slices") or ()),
                int(group.get("numOutputFileGroups") or 1),
                target,
                sort_columns,
                layout,
                preserve,
                index,
            )
            for index, group in enumerate(plan.get("inputGroups") or ())
        ]
        stats = [stat for group_stats in ctx.runner(cluster_group, tasks) for stat in group_stats]
        crash.crash_point("clustering.after_files")
        Markers(storage, instant.requested_time).delete_unlisted(written_paths(stats))
        replaced: dict[str, list[str]] = {}
        for piece in clustering_slices(requested):
            replaced.setdefault(piece.get("partitionPath") or "", []).append(str(piece["fileId"]))
        with ctx.locked("complete clustering") as state:
            # Options under hoodie.datasource.write.commitmeta.key.prefix, as write commits record them.
            extra = {**pass_through_keys(ctx.configs.raw), "schema": json.dumps(avro_schema, separators=(",", ":"))}
            record = commit_metadata_record(stats, "CLUSTER", extra, replaced)
            completed = ctx.writer(state).complete(inflight, encode_avro_container(REPLACE_COMMIT_METADATA, record))
    Markers(storage, instant.requested_time).delete_all()
    return ServiceResult(
        "clustering",
        completed.requested_time,
        completed.completion_time,
        {
            "file_groups_replaced": sum(len(ids) for ids in replaced.values()),
            "files_written": len(stats),
            "records": sum(s.num_writes for s in stats),
        },
    )
