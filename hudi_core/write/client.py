"""WriteClient: one write operation, from a batch of rows to a completed instant.

Order of work (single writer, whole-write table lock):

1. validate and key the batch (`prepare`) — before anything is written, so a rejected batch leaves
   the table byte-identical;
2. take the table lock; finish interrupted rollbacks; roll back failed writes whose heartbeat
   expired (a live writer's instant raises ConcurrentWriteError instead);
3. tag records with the index and plan file-group writes (still read-only, so insert duplicate
   checks can reject the batch);
4. request the instant, publish the inflight workload, write the file groups (markers first),
   write partition metafiles, complete the instant with its commit metadata;
5. any failure after the request rolls the instant back before the error propagates.

Under optimistic concurrency (`hoodie.write.concurrency.mode=optimistic_concurrency_control`) the
lock is held only around short sections: a write plans against a snapshot without it, takes it to
recover and request its instant, writes its files without it, and takes it again to check the
actions completed since its snapshot for conflicts (`hudi_core.concurrency.conflicts`) and commit.
A loser rolls its files back and raises WriteConflictError. Live writers' instants are never rolled
back (failed writes are cleaned LAZY: only once their heartbeat expired).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.concurrency import (
    WriteSnapshot,
    check_write_conflicts,
    failed_writes_policy,
    is_optimistic,
    table_lock,
    written_file_groups,
)
from hudi_core.concurrency.conflicts import rolled_back_meanwhile
from hudi_core.config import ConfigOption, HudiConfigs, pass_through_keys, validate_options
from hudi_core.config.concurrency import HudiLockConfig
from hudi_core.config.table import KEY_GENERATOR_CLASSES, TableConfig, TableType, payload_merge_mode
from hudi_core.config.write import (
    CONSISTENT_HASHING,
    WRITABLE_TABLE_VERSIONS,
    FailedWritesCleanPolicy,
    HudiIndexConfig,
    HudiWriteConfig,
    InsertDupPolicy,
)
from hudi_core.errors import (
    ConcurrentWriteError,
    HudiConfigError,
    HudiError,
    InstantNotFoundError,
    UnsupportedFeatureError,
    UnsupportedTableVersionError,
)
from hudi_core.file_group import FileSlice
from hudi_core.index.tagger import IndexSpec
from hudi_core.keygen import KeyGenerator
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.heartbeat import InstantHeartbeat, heartbeat_expired, heartbeat_path, touch_heartbeat
from hudi_core.lifecycle.markers import IOType, Markers
from hudi_core.lifecycle.metadata_sync import DataTimelineWriter, data_timeline_writer
from hudi_core.lifecycle.process_identity import this_process
from hudi_core.lifecycle.rollback import check_nothing_lost, resume_pending_rollbacks, rollback_instant
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.merge.behaviour import merge_behaviour
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.parallel import default_parallelism, ordered_map
from hudi_core.schema.arrow_avro import table_avro_schema
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.meta_fields import without_meta_fields
from hudi_core.schema.resolver import resolve_avro_schema
from hudi_core.storage import Storage
from hudi_core.table.create import write_partition_metafile
from hudi_core.table.state import FRESH_STATE_ATTEMPTS, TableState, load_table_state, on_fresh_state
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import (
    CHECKPOINT_IDENTIFIER_KEY,
    CHECKPOINT_KEY,
    WriteStat,
    commit_metadata_record,
    written_paths,
)
from hudi_core.timeline.instant import DATA_ACTIONS, Action, Instant
from hudi_core.timeline.schemas import COMMIT_METADATA, REPLACE_COMMIT_METADATA, REQUESTED_REPLACE_METADATA
from hudi_core.timeline.serde import encode_avro_container
from hudi_core.timeline.writer import latest_time_on, new_instant_time
from hudi_core.write.decisions import bulk_insert_sizing, decide, partitions_to_delete, route_batch
from hudi_core.write.handles import FileGroupWrite, WriteContext, write_file_groups
from hudi_core.write.operation import WriteOperation, operation_on_generated_keys, write_action
from hudi_core.write.planner import (
    file_group_writes,
)
from hudi_core.write.prepare import (
    PARTITION,
    PreparedBatch,
    check_insert_duplicates,
    prepare_batch,
    with_deletes,
)

FileGroupEngine = Callable[[WriteContext, Sequence[FileGroupWrite]], list[WriteStat]]

logger = logging.getLogger(__name__)


# Records of one batch of appends: what a batch holds at once (its records, their Avro datums).
APPEND_BATCH_RECORDS = 500_000


def arrow_engine(context: WriteContext, tasks: Sequence[FileGroupWrite]) -> list[WriteStat]:
    """Writes file groups on the in-process thread pool: the appends in a batch per thread (their
    records are prepared together, see `write_file_groups`), every other file group on its own."""
    batches = write_batches(tasks, default_parallelism())
    stats: list[WriteStat | None] = [None] * len(tasks)
    written = ordered_map(lambda batch: write_file_groups(context, [tasks[i] for i in batch]), batches)
    for batch, batch_stats in zip(batches, written, strict=True):
        for i, stat in zip(batch, batch_stats, strict=True):
            stats[i] = stat
    return [stat for stat in stats if stat is not None]


def write_batches(tasks: Sequence[FileGroupWrite], parallelism: int) -> list[list[int]]:
    """Task indices in the batches one thread writes together: the appends spread over
    `parallelism` batches of similar record counts (more when they exceed `APPEND_BATCH_RECORDS`),
    first; then every other task alone."""
    appends = sorted(
        (i for i, task in enumerate(tasks) if task.io_type is IOType.APPEND), key=lambda i: -tasks[i].num_records
    )
    bins: list[list[int]] = []
    sizes: list[int] = []
    for i in appends:
        records = tasks[i].num_records
        fits = [b for b in range(len(bins)) if sizes[b] + records <= APPEND_BATCH_RECORDS]
        if len(bins) < parallelism or not fits:
            bins.append([i])
            sizes.append(records)
            continue
        smallest = min(fits, key=lambda b: sizes[b])
        bins[smallest].append(i)
        sizes[smallest] += records
    alone = [[i] for i, task in enumerate(tasks) if task.io_type is not IOType.APPEND]
    return [sorted(b) for b in bins] + alone


@dataclass(frozen=True)
class PartitionWriteStats:
    """What a write did in one partition."""

    inserts: int = 0
    updates: int = 0
    deletes: int = 0
    files_written: int = 0
    bytes_written: int = 0


@dataclass(frozen=True)
class WriteResult:
    """The outcome of a write.

    Attributes:
        instant_time: the instant (requested time) of the commit; `_hoodie_commit_time` of its rows.
        completion_time: when it completed (table version 8).
        operation: the write operation.
        stats: per partition: inserts, updates, deletes, files written, bytes.
        write_stats: the write stats recorded in the commit metadata.
        replaced_file_groups: file groups replaced (insert_overwrite*, delete_partition).
        table_services: the services that ran inline after the commit (compaction, clean, ...).
        service_warnings: one message per inline service that failed after the commit. The write
            stands; the failed service's pending plan, if any, is finished or rolled back by its
            next run.
    """

    instant_time: str
    completion_time: str | None
    operation: WriteOperation
    stats: dict[str, PartitionWriteStats]
    write_stats: tuple[WriteStat, ...] = ()
    replaced_file_groups: dict[str, list[str]] = field(default_factory=dict)
    table_services: tuple[ServiceResult, ...] = ()
    service_warnings: tuple[str, ...] = ()

    @property
    def inserts(self) -> int:
        return sum(s.inserts for s in self.stats.values())

    @property
    def updates(self) -> int:
        return sum(s.updates for s in self.stats.values())

    @property
    def deletes(self) -> int:
        return sum(s.deletes for s in self.stats.values())

    @property
    def files_written(self) -> int:
        return sum(s.files_written for s in self.stats.values())


def _partition_stats(stats: Sequence[WriteStat]) -> dict[str, PartitionWriteStats]:
    result: dict[str, PartitionWriteStats] = {}
    for stat in stats:
        current = result.get(stat.partition_path, PartitionWriteStats())
        result[stat.partition_path] = PartitionWriteStats(
            current.inserts + stat.num_inserts,
            current.updates + stat.num_update_writes,
            current.deletes + stat.num_deletes,
            current.files_written + 1,
            current.bytes_written + stat.total_write_bytes,
        )
    return result


def write_context(
    storage: Storage,
    instant_time: str,
    schema: pa.Schema,
    avro_schema: dict[str, Any],
    config: TableConfig,
    configs: HudiConfigs,
    crash_prefix: str = "write",
) -> WriteContext:
    """What every file-group write of one instant shares, from the table config and write options."""
    keygen = KeyGenerator.from_table_config(config)
    return WriteContext(
        base_uri=storage.base_uri,
        instant_time=instant_time,
        schema=schema,
        avro_schema=avro_schema,
        populate_meta_fields=config.populate_meta_fields,
        merge_mode=merge_behaviour(config).mode,
        ordering_field=config.ordering_fields[0] if config.ordering_fields else None,
        key_spec=keygen.key_spec_for(config.populate_meta_fields),
        compression=configs.value(HudiWriteConfig.PARQUET_COMPRESSION),
        row_group_bytes=configs.value(HudiWriteConfig.PARQUET_BLOCK_SIZE),
        page_bytes=configs.value(HudiWriteConfig.PARQUET_PAGE_SIZE),
        bloom_type=configs.value(HudiIndexConfig.BLOOM_FILTER_TYPE),
        bloom_entries=configs.value(HudiIndexConfig.BLOOM_NUM_ENTRIES),
        bloom_fpp=configs.value(HudiIndexConfig.BLOOM_FPP),
        bloom_max_entries=configs.value(HudiIndexConfig.BLOOM_DYNAMIC_MAX_ENTRIES),
        log_block_format=configs.value(HudiWriteConfig.LOG_BLOCK_FORMAT),
        cdc_enabled=config.cdc_enabled,
        # Merge-on-Read deltacommits log no CDC: readers infer it, compaction persists it.
        cdc_mode=config.cdc_logging_mode
        if config.cdc_enabled and (config.table_type is TableType.COPY_ON_WRITE or crash_prefix == "compaction")
        else None,
        crash_prefix=crash_prefix,
        auto_key_prefix=f"{instant_time}_" if keygen.generates_keys and crash_prefix == "write" else None,
    )


def _remove_stray_files(storage: Storage, instant_time: str, stats: Sequence[WriteStat]) -> None:
    """Deletes files the instant's markers list but its stats do not (a retried task's leftovers)."""
    Markers(storage, instant_time).delete_unlisted(written_paths(stats))


def _check_conflicts(
    storage: Storage,
    timeline: Timeline,
    snapshot: WriteSnapshot,
    instant_time: str,
    stats: Sequence[WriteStat],
    replaced: dict[str, list[str]] | None,
    configs: HudiConfigs,
) -> None:
    """The optimistic-concurrency check of a write about to complete (under the table lock)."""
    my_files = [s.path for s in stats] if configs.get(HudiLockConfig.CHECK_KEY_OVERLAP) else None
    check_write_conflicts(storage, timeline, snapshot, instant_time, written_file_groups(stats, replaced), my_files)


def check_no_pending_restore(timeline: Timeline) -> None:
    """Nothing may be written while a restore is half done."""
    pending = [i for i in timeline.pending() if i.action is Action.RESTORE]
    if pending:
        raise ConcurrentWriteError(
            f"restore {pending[0].requested_time} is pending: run restore again to finish it before writing"
        )


def check_writable(config: TableConfig, where: str) -> None:
    """Raises unless this build can write the table."""
    if config.version not in WRITABLE_TABLE_VERSIONS:
        raise UnsupportedTableVersionError(
            f"{where} is table version {config.version}; hudi_core writes table versions 8 and 9 only"
        )
    behaviour = merge_behaviour(config, where)  # refuses merge rules not implemented here
    if not behaviour.plain:
        asked = (
            f"payload class {config.payload_class}"
            if config.payload_class
            else "partial updates (IGNORE_DEFAULTS)"
            if behaviour.ignore_defaults
            else f"delete marker {behaviour.delete_field}={behaviour.delete_marker}"
        )
        raise UnsupportedFeatureError(
            f"{where} merges with {asked}; hudi_core reads such tables but does not write them yet"
        )
    unknown = [p for p in config.metadata_partitions if p and MetadataPartition.named(p) is None]
    if unknown:
        raise UnsupportedFeatureError(
            f"{where} keeps metadata-table partitions {unknown} in sync (secondary or expression indexes); "
            "writing without maintaining them would leave them stale for readers that trust them"
        )


def current_data_schema(timeline: Timeline, config: TableConfig) -> pa.Schema | None:
    avro = resolve_avro_schema(timeline, config, timeline.completed_data_instants())
    return None if avro is None else without_meta_fields(avro_to_arrow_schema(avro))


# Options a write takes that hoodie.properties also persists: a different value is a conflict.
_PERSISTED_WRITE_OPTIONS: dict[str, Callable[[TableConfig], str]] = {
    HudiWriteConfig.RECORD_KEY_FIELD.key: lambda c: ",".join(c.record_key_fields),
    HudiWriteConfig.PRECOMBINE_FIELD.key: lambda c: ",".join(c.ordering_fields),
    HudiWriteConfig.TABLE_TYPE.key: lambda c: c.table_type.value,
}


class WriteClient:
    """Writes to one table.

    Args:
        storage: the table's storage.
        options: Hudi write options (`hoodie.*`), validated here.
        engine: runs file-group writes (default: the in-process Arrow engine).
    """

    def __init__(self, storage: Storage, options: Mapping[str, str], engine: FileGroupEngine = arrow_engine) -> None:
        validate_options(options)
        self._storage = storage
        self._options = dict(options)
        self._engine = engine

    # ---- settings ---------------------------------------------------------------------------

    def settings(self, state: TableState | None = None) -> WriteSettings:
        """The table's config with the write options checked against it (engines plan with these);
        `state`: the table state the caller already loaded."""
        config = (state or load_table_state(self._storage)).config
        check_writable(config, self._storage.base_uri)
        configs = self._configs(config)
        keygen = KeyGenerator.from_table_config(config)
        ordering = config.ordering_fields[0] if config.ordering_fields else None
        return WriteSettings(config, configs, keygen, self._index(configs, keygen, config), ordering)

    def _configs(self, config: TableConfig) -> HudiConfigs:
        """The write options, checked against what the table persisted (which always wins)."""
        configs = HudiConfigs(self._options)
        for key, persisted in _PERSISTED_WRITE_OPTIONS.items():
            given = self._options.get(key)
            if given is not None and given.replace(" ", "") != persisted(config) and persisted(config):
                raise HudiConfigError(
                    f"option {key}={given} conflicts with the table's persisted value {persisted(config)!r}"
                )
        payload = configs.get(HudiWriteConfig.PAYLOAD_CLASS)
        if payload is not None and payload_merge_mode(payload) is not config.record_merge_mode:
            raise HudiConfigError(
                f"payload class {payload} means {payload_merge_mode(payload).value}, but the table merges by "
                f"{config.record_merge_mode.value}"
            )
        mode = configs.get(HudiWriteConfig.RECORD_MERGE_MODE)
        if mode is not None and mode is not config.record_merge_mode:
            raise HudiConfigError(
                f"merge mode {mode.value} conflicts with the table's {config.record_merge_mode.value}"
            )
        keygen_class = configs.get(HudiWriteConfig.KEY_GENERATOR_CLASS)
        if keygen_class is not None and KEY_GENERATOR_CLASSES.get(keygen_class) is not config.key_generator_type:
            raise HudiConfigError(
                f"key generator class {keygen_class} conflicts with the table's {config.key_generator_type.value} "
                "key generator"
            )
        return configs

    def _index(self, configs: HudiConfigs, keygen: KeyGenerator, config: TableConfig) -> IndexSpec:
        index_type = configs.value(HudiIndexConfig.INDEX_TYPE)
        update = (
            configs.value(HudiIndexConfig.BLOOM_UPDATE_PARTITION_PATH)
            if index_type == "GLOBAL_BLOOM"
            else configs.value(HudiIndexConfig.SIMPLE_UPDATE_PARTITION_PATH)
        )
        hash_fields = configs.get(HudiIndexConfig.BUCKET_HASH_FIELD)
        bucket_engine = configs.value(HudiIndexConfig.BUCKET_ENGINE)
        if index_type == "BUCKET" and bucket_engine == CONSISTENT_HASHING and not config.is_mor:
            # Hudi's rule: a Copy-on-Write write rewrites base files, which a bucket resize cannot follow.
            raise HudiConfigError(
                f"{HudiIndexConfig.BUCKET_ENGINE.key}=CONSISTENT_HASHING needs a MERGE_ON_READ table; "
                "use the SIMPLE bucket engine on COPY_ON_WRITE"
            )
        return IndexSpec(
            index_type=index_type,
            update_partition_path=update,
            bucket_count=configs.value(HudiIndexConfig.BUCKET_NUM),
            bucket_engine=bucket_engine,
            bucket_hash_fields=tuple(f.strip() for f in hash_fields.split(","))
            if hash_fields
            else keygen.record_key_fields,
            prune_by_ranges=configs.value(HudiIndexConfig.BLOOM_PRUNE_BY_RANGES),
        )

    # ---- the write --------------------------------------------------------------------------

    def write(
        self,
        operation: WriteOperation,
        data: Any = None,
        partitions: Sequence[str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
        deletes: Any = None,
    ) -> WriteResult:
        """Performs one write operation (see module docstring); an upsert also deletes the records
        `deletes` names (`hudi_core.write.prepare.with_deletes`)."""
        state = load_table_state(self._storage)
        settings = self.settings(state)
        config, keygen, index = settings.config, settings.keygen, settings.index
        if keygen.generates_keys:
            if deletes is not None:
                raise HudiConfigError("a table without record key fields cannot delete records by key")
            operation = operation_on_generated_keys(operation)
        batch = None
        if operation is not WriteOperation.DELETE_PARTITION:
            batch = prepare_batch(
                data,
                operation,
                current_data_schema(state.timeline, config),
                keygen,
                settings.ordering,
                dedup=settings.dedup(operation),
                global_index=index.is_global,
            )
            if operation is WriteOperation.INSERT and settings.dup_policy is InsertDupPolicy.FAIL:
                check_insert_duplicates(batch, index.is_global)
            if deletes is not None:
                if operation is not WriteOperation.UPSERT:
                    raise HudiConfigError(f"only an upsert deletes records as it writes, not {operation.value}")
                batch = with_deletes(batch, deletes, keygen, settings.ordering, index.is_global)

        def planner(state: TableState, config: TableConfig, configs: HudiConfigs) -> WritePlan:
            return self.plan_batch(operation, batch, partitions, state.timeline, config, configs, keygen, index)

        return self.run(operation, planner, checkpoint, checkpoint_identifier, settings)

    def run(
        self,
        operation: WriteOperation,
        planner: Callable[[TableState, TableConfig, HudiConfigs], WritePlan],
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
        settings: WriteSettings | None = None,
    ) -> WriteResult:
        """The commit protocol every engine shares: lock, recover, plan, instant, execute, complete.

        Single writer: `planner` runs under the table lock after failed writes were rolled back, so
        what it tags and plans cannot change before the instant completes. Optimistic concurrency:
        it runs against a snapshot without the lock; the commit checks what changed since.
        `settings`: the ones the caller planned with (else read from the table now).
        """
        settings = settings or self.settings()
        config, configs = settings.config, settings.configs
        finish = _Finish(operation, config, configs, checkpoint, checkpoint_identifier)
        if is_optimistic(configs):
            snapshot_state, plan = self._plan_on_snapshot(planner, config, configs)
            with self._recovered(configs, operation.value) as (state, writer):
                requested = self._request(operation, config, state, writer)
            snapshot = WriteSnapshot.of(snapshot_state.timeline)
            return self._write_requested(requested, plan, writer, finish, snapshot)
        with self._recovered(configs, operation.value) as (state, writer):
            plan = planner(state, config, configs)
            requested = self._request(operation, config, state, writer)
            return self._write_requested(requested, plan, writer, finish, None)

    def _plan_on_snapshot(
        self,
        planner: Callable[[TableState, TableConfig, HudiConfigs], WritePlan],
        config: TableConfig,
        configs: HudiConfigs,
        attempts: int = FRESH_STATE_ATTEMPTS,
    ) -> tuple[TableState, WritePlan]:
        """Plans without the lock; other writers may archive or roll back instants meanwhile, so a
        plan whose timeline changed underneath is made again on a fresh snapshot."""

        def plan(state: TableState) -> tuple[TableState, WritePlan]:
            check_no_pending_restore(state.timeline)
            return state, planner(state, config, configs)

        return on_fresh_state(lambda: load_table_state(self._storage), plan, attempts)

    def _request(
        self,
        operation: WriteOperation,
        config: TableConfig,
        state: TableState,
        writer: DataTimelineWriter,
        runs_whole_write: bool = True,
    ) -> Instant:
        """Requests a new instant (under the lock), with a first heartbeat so others see it live.

        `runs_whole_write`: this process writes until the instant ends, so its first heartbeat names
        it (a kill at once is seen at once); `start()`'s caller hands the write to other processes.
        """
        instant_time = new_instant_time(after=latest_time_on(state.timeline))
        action = write_action(operation, config.table_type)
        touch_heartbeat(self._storage, instant_time, this_process() if runs_whole_write else None)
        try:
            return writer.request(instant_time, action, self._requested_content(action))
        except BaseException:
            self._storage.delete(heartbeat_path(instant_time))
            raise

    def _write_requested(
        self,
        requested: Instant,
        plan: WritePlan,
        writer: DataTimelineWriter,
        finish: _Finish,
        snapshot: WriteSnapshot | None,
    ) -> WriteResult:
        heartbeat_ms = finish.configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
        with contextlib.ExitStack() as heartbeat:
            try:
                heartbeat.enter_context(InstantHeartbeat(self._storage, requested.requested_time, heartbeat_ms))
                return self._execute(plan, requested, writer, finish, snapshot)
            except BaseException:
                # Rolled back while the heartbeat still shows the instant live (no one else takes it).
                self._abort(requested, requested.action, finish.configs)
                raise

    @contextlib.contextmanager
    def _recovered(self, configs: HudiConfigs, purpose: str) -> Iterator[tuple[TableState, DataTimelineWriter]]:
        """Holds the table lock; yields the table state after failed writes were rolled back."""
        with table_lock(self._storage, configs, purpose):
            state = load_table_state(self._storage)
            check_no_pending_restore(state.timeline)
            writer = data_timeline_writer(self._storage, state, configs)
            if self._recover(state.timeline, writer, configs):
                state = load_table_state(self._storage)
                writer.vouch(state)
            yield state, writer

    def _recover(self, timeline: Timeline, writer: DataTimelineWriter, configs: HudiConfigs) -> bool:
        """Finishes interrupted rollbacks, rolls back writes whose writer died, drops stale markers;
        returns whether the timeline changed.

        EAGER (single writer): a pending write with a live heartbeat means a second writer, which
        is refused. LAZY (optimistic concurrency): live writes are left alone. NEVER: nothing is
        rolled back here.
        """
        heartbeat_ms = configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
        misses = configs.value(HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES)
        policy = failed_writes_policy(configs)
        changed = any(i.action is Action.ROLLBACK for i in timeline.pending())
        if changed:
            resume_pending_rollbacks(self._storage, timeline, writer)
            timeline = load_table_state(self._storage).timeline  # the resumed rollbacks changed it
        for instant in timeline.completed():
            # A writer that died right after completing leaves its markers and heartbeat behind.
            Markers(self._storage, instant.requested_time).delete_all()
            self._storage.delete(heartbeat_path(instant.requested_time))
        if policy is FailedWritesCleanPolicy.NEVER:
            return changed
        for instant in timeline.pending():
            if instant.action not in DATA_ACTIONS or timeline.is_table_service(instant):
                continue
            if not heartbeat_expired(self._storage, instant.requested_time, heartbeat_ms, misses):
                if policy is FailedWritesCleanPolicy.LAZY:
                    continue
                raise ConcurrentWriteError(
                    f"instant {instant.requested_time} ({instant.action.value}) is being written by a live writer"
                )
            rollback_instant(self._storage, timeline, writer, instant, timeline.pending_action(instant))
            changed = True
        return changed

    @contextlib.contextmanager
    def _commit_section(
        self,
        finish: _Finish,
        writer: DataTimelineWriter,
        instant_time: str,
        stats: Sequence[WriteStat],
        replaced: dict[str, list[str]] | None,
        snapshot: WriteSnapshot | None,
    ) -> Iterator[str | None]:
        """Single writer: nothing to do (the lock is held). Optimistic: takes the lock, checks the
        actions since `snapshot` for conflicts, hands `writer` the state loaded under it, and yields
        the latest time on the timeline (the completion time must follow it)."""
        if snapshot is None:
            yield None
            return
        with table_lock(self._storage, finish.configs, f"commit {instant_time}"):
            state = load_table_state(self._storage)
            _check_conflicts(self._storage, state.timeline, snapshot, instant_time, stats, replaced, finish.configs)
            writer.vouch(state)
            yield latest_time_on(state.timeline)

    def _requested_content(self, action: Action) -> bytes:
        if action is Action.REPLACE_COMMIT:
            record = {"operationType": None, "clusteringPlan": None, "extraMetadata": None, "version": 1}
            return encode_avro_container(REQUESTED_REPLACE_METADATA, record)
        return b""

    def _abort(self, instant: Instant, action: Action, configs: HudiConfigs) -> None:
        """Rolls back a failed write of this process; if that fails too, the next writer will.

        An instant that completed is never rolled back here: whatever failed after the commit, the
        committed data stays.
        """
        try:
            # Single writer: the lock is still held. Optimistic: the rollback instant needs it.
            lock = (
                table_lock(self._storage, configs, f"rollback {instant.requested_time}")
                if is_optimistic(configs)
                else contextlib.nullcontext()
            )
            with lock:
                state = load_table_state(self._storage)
                current = state.timeline.find(instant.requested_time) or instant
                if current.is_completed:
                    return
                writer = data_timeline_writer(self._storage, state, configs)
                rollback_instant(self._storage, state.timeline, writer, current, action)
        except Exception as e:
            logger.warning("rollback of failed write %s failed; the next writer rolls it back: %s", instant, e)

    # ---- planning ---------------------------------------------------------------------------

    def plan_batch(
        self,
        operation: WriteOperation,
        batch: PreparedBatch | None,
        partitions: Sequence[str] | None,
        timeline: Timeline,
        config: TableConfig,
        configs: HudiConfigs,
        keygen: KeyGenerator,
        index: IndexSpec,
    ) -> WritePlan:
        """The Arrow engine's plan of a write: the decisions every engine takes
        (`hudi_core.write.decisions`), carried out on the in-process batch."""
        if operation is WriteOperation.DELETE_PARTITION:
            return self._arrow_plan([], partitions_to_delete(self._storage, timeline, configs, partitions), None)
        assert batch is not None
        rows = batch.rows
        written = set(pc.unique(rows.column(PARTITION)).to_pylist()) if rows.num_rows else set()
        decided = decide(self._storage, operation, index, config, configs, timeline, written, keygen.is_partitioned)
        if operation is WriteOperation.BULK_INSERT:
            compression = configs.value(HudiWriteConfig.PARQUET_COMPRESSION)
            decided = replace(decided, sizing=bulk_insert_sizing(decided.sizing, rows, batch.schema.names, compression))
        key_spec = keygen.key_spec_for(config.populate_meta_fields)
        routed, slices = route_batch(self._storage, decided, rows, key_spec, config, timeline)
        return self._arrow_plan(file_group_writes(routed, slices, config.is_mor), decided.replaced, batch)

    def _arrow_plan(
        self, writes: list[FileGroupWrite], replaced: dict[str, list[str]] | None, batch: PreparedBatch | None
    ) -> WritePlan:
        workload: dict[str, int] = {}
        for task in writes:
            workload[task.partition_path] = workload.get(task.partition_path, 0) + task.num_records
        engine = self._engine
        return WritePlan(
            schema=batch.schema if batch is not None else None,
            replaced=replaced,
            workload=workload,
            execute=lambda context: engine(context, writes) if writes else [],
        )

    # ---- execution --------------------------------------------------------------------------

    def _execute(
        self,
        plan: WritePlan,
        requested: Instant,
        writer: DataTimelineWriter,
        finish: _Finish,
        snapshot: WriteSnapshot | None,
    ) -> WriteResult:
        crash.crash_point("write.after_requested")
        config = finish.config
        schema = (
            plan.schema
            if plan.schema is not None
            else current_data_schema(load_table_state(self._storage).timeline, config)
        )
        assert schema is not None
        avro_schema = table_avro_schema(schema, config.name)
        metadata_class = REPLACE_COMMIT_METADATA if plan.replaced is not None else COMMIT_METADATA
        workload = self._workload(finish.operation, plan)
        inflight = writer.to_inflight(requested, encode_avro_container(metadata_class, workload))
        crash.crash_point("write.after_inflight")
        context = replace(
            write_context(self._storage, requested.requested_time, schema, avro_schema, config, finish.configs),
            inflight_file=writer.file_of(inflight),
        )
        stats = plan.execute(context)
        crash.crash_point("write.after_files")
        if snapshot is None and not self._storage.exists(writer.file_of(inflight)):
            # A single writer whose lock and heartbeat went stale (a paused process) was rolled back.
            raise rolled_back_meanwhile(requested.requested_time)
        with self._commit_section(finish, writer, requested.requested_time, stats, plan.replaced, snapshot) as after:
            return self._complete(finish, inflight, writer, stats, avro_schema, plan.replaced, after)

    def _complete(
        self,
        finish: _Finish,
        inflight: Instant,
        writer: DataTimelineWriter,
        stats: Sequence[WriteStat],
        avro_schema: dict[str, Any],
        replaced: dict[str, list[str]] | None,
        after: str | None,
    ) -> WriteResult:
        """Publishes a written instant: stray files removed, metafiles, commit metadata, markers gone."""
        instant_time = inflight.requested_time
        _remove_stray_files(self._storage, instant_time, stats)
        for partition in sorted({s.partition_path for s in stats}):
            write_partition_metafile(self._storage, partition, instant_time)
        extra = {**pass_through_keys(finish.configs.raw), "schema": json.dumps(avro_schema, separators=(",", ":"))}
        if finish.checkpoint is not None:
            extra[CHECKPOINT_KEY] = finish.checkpoint
        identifier = finish.checkpoint_identifier or finish.configs.get(HudiWriteConfig.CHECKPOINT_IDENTIFIER)
        if identifier is not None:
            extra[CHECKPOINT_IDENTIFIER_KEY] = identifier
        record = commit_metadata_record(stats, finish.operation.operation_type, extra, replaced)
        metadata_class = REPLACE_COMMIT_METADATA if replaced is not None else COMMIT_METADATA
        completed = writer.complete(inflight, encode_avro_container(metadata_class, record), after=after)
        crash.crash_point("write.after_complete")
        try:
            Markers(self._storage, instant_time).delete_all()
        except HudiError as e:  # committed: the next writer removes a completed instant's markers
            logger.warning("write %s committed; its markers stay until the next write: %s", instant_time, e)
        return WriteResult(
            instant_time,
            completed.completion_time,
            finish.operation,
            _partition_stats(stats),
            tuple(stats),
            replaced or {},
        )

    # ---- instants written by tasks in other processes (Spark data source writers) ---------------

    def start(self, operation: WriteOperation, workload: Mapping[str, int] | None = None) -> Instant:
        """Requests an instant and makes it inflight, for writers whose tasks run elsewhere.

        Tasks keep the instant's heartbeat fresh (`touch_heartbeat`); `finish` completes it and
        `abort` rolls it back. Until then other writers see a live pending write.
        """
        settings = self.settings()
        with self._recovered(settings.configs, operation.value) as (state, writer):
            requested = self._request(operation, settings.config, state, writer, runs_whole_write=False)
            replaced: dict[str, list[str]] | None = {} if operation.replaces_file_groups else None
            plan = WritePlan(None, replaced, dict(workload or {}), lambda _: [])
            metadata_class = REPLACE_COMMIT_METADATA if replaced is not None else COMMIT_METADATA
            return writer.to_inflight(requested, encode_avro_container(metadata_class, self._workload(operation, plan)))

    def finish(
        self,
        operation: WriteOperation,
        inflight: Instant,
        stats: Sequence[WriteStat],
        schema: pa.Schema,
        replaced: dict[str, list[str]] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Completes an instant begun with `start` once its tasks wrote `stats`.

        Under optimistic concurrency the actions completed after `start` are checked for conflicts.
        """
        settings = self.settings()
        finish = _Finish(operation, settings.config, settings.configs, checkpoint, checkpoint_identifier)
        with table_lock(self._storage, settings.configs, f"commit {inflight.requested_time}"):
            state = load_table_state(self._storage)
            current = state.timeline.find(inflight.requested_time)
            if current is None or current.is_completed:
                raise ConcurrentWriteError(
                    f"instant {inflight.requested_time} is no longer pending (rolled back as a dead write?)"
                )
            after = None
            if is_optimistic(settings.configs):
                snapshot = WriteSnapshot.before(state.timeline, inflight.requested_time)
                _check_conflicts(
                    self._storage, state.timeline, snapshot, inflight.requested_time, stats, replaced, settings.configs
                )
                after = latest_time_on(state.timeline)
            writer = data_timeline_writer(self._storage, state, settings.configs)
            avro_schema = table_avro_schema(schema, settings.config.name)
            try:
                return self._complete(finish, current, writer, stats, avro_schema, replaced, after)
            finally:
                self._storage.delete(heartbeat_path(inflight.requested_time))

    def abort(self, inflight: Instant, operation: WriteOperation) -> None:
        """Rolls back an instant begun with `start` whose tasks failed."""
        config = load_table_state(self._storage).config
        self._abort(inflight, write_action(operation, config.table_type), self._configs(config))
        self._storage.delete(heartbeat_path(inflight.requested_time))

    def _workload(self, operation: WriteOperation, plan: WritePlan) -> dict[str, Any]:
        """The inflight workload profile: records per partition, as Spark writes it."""
        profile = [
            WriteStat("", "", partition, None, 0, count, 0, 0, 0, 0, 0, None, (), None)
            for partition, count in sorted(plan.workload.items())
        ]
        return commit_metadata_record(profile, operation.operation_type, {}, plan.replaced)

    # ---- rollback ---------------------------------------------------------------------------

    def rollback(self, instant_time: str) -> Instant:
        """Rolls back an instant: a pending write whose writer died, or the latest completed write."""
        configs = HudiConfigs(self._options)
        heartbeat_ms = configs.value(HudiWriteConfig.HEARTBEAT_INTERVAL_MS)
        misses = configs.value(HudiWriteConfig.HEARTBEAT_TOLERABLE_MISSES)
        with table_lock(self._storage, configs, "rollback"):
            state = load_table_state(self._storage)
            check_writable(state.config, self._storage.base_uri)
            timeline = state.timeline
            target = timeline.get(instant_time)
            if target.action not in DATA_ACTIONS and target.action not in (Action.COMPACTION, Action.CLUSTERING):
                raise HudiConfigError(f"instant {instant_time} is a {target.action.value}; only writes roll back")
            if any(i.action is Action.SAVEPOINT and i.requested_time == instant_time for i in timeline.completed()):
                raise HudiConfigError(f"instant {instant_time} is savepointed: delete the savepoint to roll it back")
            if target.is_completed:
                later = [i for i in timeline.completed_data_instants() if i.requested_time > instant_time]
                if later:
                    raise InstantNotFoundError(
                        f"instant {instant_time} is not the latest completed write ({later[-1].requested_time} "
                        "is newer); restore to a savepoint instead"
                    )
                check_nothing_lost(self._storage, state, target)
            elif not heartbeat_expired(self._storage, instant_time, heartbeat_ms, misses):
                raise ConcurrentWriteError(f"instant {instant_time} is being written by a live writer")
            writer = data_timeline_writer(self._storage, state, configs)
            return rollback_instant(self._storage, timeline, writer, target, timeline.pending_action(target))


@dataclass(frozen=True)
class WriteSettings:
    """A write's view of the table: persisted config, checked options, keys and index."""

    config: TableConfig
    configs: HudiConfigs
    keygen: KeyGenerator
    index: IndexSpec
    ordering: str | None

    def dedup(self, operation: WriteOperation) -> bool:
        """Whether the batch is de-duplicated by key first (`hoodie.combine.before.*`)."""
        option: ConfigOption[bool] = {
            WriteOperation.UPSERT: HudiWriteConfig.COMBINE_BEFORE_UPSERT,
            WriteOperation.DELETE: HudiWriteConfig.COMBINE_BEFORE_DELETE,
        }.get(operation, HudiWriteConfig.COMBINE_BEFORE_INSERT)
        return bool(self.configs.value(option))

    @property
    def dup_policy(self) -> InsertDupPolicy:
        return self.configs.value(HudiWriteConfig.INSERT_DUP_POLICY)


@dataclass(frozen=True)
class _Finish:
    """What completing a write needs besides its files: the operation, table, options, checkpoint."""

    operation: WriteOperation
    config: TableConfig
    configs: HudiConfigs
    checkpoint: str | None
    checkpoint_identifier: str | None


@dataclass(frozen=True)
class WritePlan:
    """A planned write, ready to run under its instant (any engine).

    Attributes:
        schema: the table's data schema after the write (None keeps the current one).
        replaced: file groups a replacecommit replaces (None for other writes).
        workload: records per partition, for the inflight workload profile.
        execute: writes every file group for the instant of the given context; returns the stats.
    """

    schema: pa.Schema | None
    replaced: dict[str, list[str]] | None
    workload: Mapping[str, int]
    execute: Callable[[WriteContext], list[WriteStat]]


__all__ = ["FileSlice", "PartitionWriteStats", "WriteClient", "WriteResult"]
