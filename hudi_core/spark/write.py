"""Distributed writes: `hudi_core.spark.write(df, path, options)` for every write operation.

The commit protocol is the Arrow engine's (`WriteClient.run`: table lock, recovery of failed
writes, instant, markers, completion, rollback on failure); only where the work runs differs.
No data row reaches the driver:

1. executors validate and key each Arrow batch (`prepare_batch`, as the Arrow engine does);
   de-duplication by key shuffles rows of one key into one task;
2. the index: the record index is read by executors, each task the index shards its keys fall
   in; SIMPLE and BLOOM pair each incoming key with the base files that may hold it (BLOOM: by
   footer key range and bloom filter) and a task per file keeps the keys it holds; GLOBAL_SIMPLE
   joins every stored key with the incoming ones; bucket indexes compute their file groups per batch;
3. executors route each batch (`route`: updates to their file group, partition moves, deletes of
   unknown keys dropped); the driver collects only counts per partition and gives the inserts
   their file groups as Hudi does (small files first, then new ones), executors apply that by
   row number within the partition;
4. rows are repartitioned by target file group and each task writes its file groups with the
   shared `write_file_groups`; the write stats come back to the driver, which completes the instant.

Writes that never look outside a partition (upserts and deletes under a non-global SIMPLE or
BLOOM index, inserts, insert_overwrite) run steps 2 and 3 inside one task per group of table
partitions instead: the rows of a partition meet in one task, which de-duplicates and routes them
with the Arrow engine's own `route_batch` (base positions recorded for Merge-on-Read logs), and the
write takes one job after one count.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel, TaskContext
from pyspark.errors import PythonException
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as sf
from pyspark.sql.types import BooleanType, IntegerType, LongType, StringType, StructField, StructType

from hudi_core import errors
from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.table import TableConfig
from hudi_core.config.write import HudiWriteConfig, InsertDupPolicy
from hudi_core.engine.spark.jobs import collect_ending_tasks_on_failure, missing_package
from hudi_core.engine.spark.placement import placed
from hudi_core.engine.spark.tasks import task_identity
from hudi_core.engine.spark.types import arrow_schema, spark_schema
from hudi_core.errors import DuplicateKeyError, HudiError
from hudi_core.file_group import FileSlice
from hudi_core.hudi_table import table_for_write
from hudi_core.index.bucket import bucket_layout, bucket_targets
from hudi_core.index.partition_moves import (
    STORED_KEY,
    STORED_ORDERING,
    partition_moves,
    plan_stored_ordering,
)
from hudi_core.index.record_index import RecordIndexLookup
from hudi_core.index.tagger import (
    IndexSpec,
    Tags,
    bloom_candidates,
    footer_key_range,
    keys_found,
    rows_by_value,
    stored_keys,
)
from hudi_core.keygen import RecordKeySpec
from hudi_core.lifecycle.pending import PendingServices
from hudi_core.merge.dedup import last_per_key
from hudi_core.parallel import balanced_bins
from hudi_core.services.base import ServiceContext
from hudi_core.services.inline import with_inline_services
from hudi_core.spark.services import spark_runner
from hudi_core.storage import Storage
from hudi_core.sync import with_meta_sync
from hudi_core.table.state import TableState
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.write.client import (
    WriteClient,
    WritePlan,
    WriteResult,
    WriteSettings,
    current_data_schema,
)
from hudi_core.write.decisions import (
    WriteDecisions,
    bulk_insert_sizing,
    decide,
    reject_clustered_updates,
    route_batch,
    sizing,
)
from hudi_core.write.handles import WriteContext, write_file_groups
from hudi_core.write.operation import WriteOperation, operation_on_generated_keys
from hudi_core.write.planner import (
    TARGET_FILE,
    TARGET_PARTITION,
    Sizing,
    file_group_writes,
    full_file_groups,
    insert_bins,
    route,
)
from hudi_core.write.prepare import BASE_POSITION, DELETED, KEY, PARTITION, TAGGED, prepare_batch

TAG_KEY = "__hudi_tag_key"
TAG_PARTITION = "__hudi_tag_partition"
TAG_FILE = "__hudi_tag_file"
SHARD = "__hudi_index_shard"
FILES_SCHEMA = StructType([StructField(n, StringType()) for n in ("p", "f", "b")])
RANGES_SCHEMA = StructType([StructField(n, StringType()) for n in ("p", "f", "b", "lo", "hi")])
ROW = "__hudi_row"
GROUP = "__hudi_group"
STATS_SCHEMA = StructType([StructField("stat", StringType(), False)])
MAX_WRITE_TASKS = 256
# The most rows of one table partition a write plans in one task (a task holds them all).
MAX_ROWS_PLANNED_IN_ONE_TASK = 1_000_000


def write(
    df: DataFrame,
    path: str,
    options: Mapping[str, str],
    checkpoint: str | None = None,
    checkpoint_identifier: str | None = None,
) -> WriteResult:
    """Writes `df` into the Hudi table at `path` with Hudi's Spark datasource options.

    The table is created on first write (`hoodie.table.name`, `hoodie.datasource.write.recordkey.field`,
    ...); the operation is `hoodie.datasource.write.operation` (default upsert). Table services
    configured to run inline (compaction, clustering, cleaning, ...) run afterwards: planned and
    committed on the driver, their file-group tasks on executors (`hudi_core.spark.services`).
    """
    opts = dict(options)
    validate_options(opts)
    operation = HudiConfigs(opts).value(HudiWriteConfig.OPERATION)
    incoming = arrow_schema(df.schema)
    with table_for_write(path, incoming, opts) as table:
        client = WriteClient(table.storage, opts)
        settings = client.settings()
        if settings.keygen.generates_keys:
            operation = operation_on_generated_keys(operation)
        partitions = HudiConfigs(opts).get(HudiWriteConfig.PARTITIONS_TO_DELETE)
        job = _SparkWrite(df, table.storage, client, settings, operation, incoming, partitions)
        try:
            result = _translated(lambda: client.run(operation, job.plan, checkpoint, checkpoint_identifier, settings))
        finally:
            job.release()
    result = with_inline_services(result, ServiceContext(table.storage, opts, spark_runner(df.sparkSession)))
    return with_meta_sync(result, table.storage, opts)


def _translated(action: Callable[[], WriteResult]) -> WriteResult:
    """Runs `action`, re-raising our errors that executors raised as the same error types."""
    try:
        return action()
    except PythonException as e:
        missing = missing_package(e)
        if missing is not None:
            raise missing from e
        message = str(e)
        for name in dir(errors):
            kind = getattr(errors, name)
            if isinstance(kind, type) and issubclass(kind, HudiError) and f"{name}: " in message:
                detail = message.split(f"{name}: ", 1)[1].split("\n", 1)[0]
                raise kind(detail) from e
        raise


class _SparkWrite:
    """One distributed write: planned under the table lock, executed under its instant."""

    def __init__(
        self,
        df: DataFrame,
        storage: Storage,
        client: WriteClient,
        settings: WriteSettings,
        operation: WriteOperation,
        incoming: pa.Schema,
        partitions: Sequence[str] | None,
    ) -> None:
        self.df = df
        self.spark = df.sparkSession
        self.storage = storage
        self.client = client
        self.settings = settings
        self.operation = operation
        self.incoming = incoming
        self.partitions = partitions
        self._cached: list[DataFrame] = []
        self._prepared_schema = pa.schema([])  # the Arrow schema of prepared rows, once prepared

    def _persist(self, frame: DataFrame) -> DataFrame:
        frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
        self._cached.append(frame)
        return frame

    def release(self) -> None:
        for frame in self._cached:
            frame.unpersist()

    # ---- planning (under the table lock) -------------------------------------------------------

    def plan(self, state: TableState, config: TableConfig, configs: HudiConfigs) -> WritePlan:
        """The Spark engine's plan of a write: the decisions every engine takes
        (`hudi_core.write.decisions`), carried out by executors on the DataFrame."""
        operation, settings = self.operation, self.settings
        if operation is WriteOperation.DELETE_PARTITION:
            return self.client.plan_batch(
                operation, None, self.partitions, state.timeline, config, configs, settings.keygen, settings.index
            )
        timeline = state.timeline
        index = settings.index
        bulk = operation is WriteOperation.BULK_INSERT and index.index_type != "BUCKET"
        within = not bulk and self._plans_within_partitions()
        prepared, schema = self._prepare(current_data_schema(timeline, config), reused=not bulk, deduplicate=not within)
        if bulk:
            compression = configs.value(HudiWriteConfig.PARQUET_COMPRESSION)
            return self._bulk_insert(prepared, sizing(configs, timeline, pad=False), compression, config.is_mor, schema)
        partitioned = settings.keygen.is_partitioned
        if within:
            # Rows as received (de-duplicated later, in the task that plans their partition).
            rows_per_partition = {row[0]: int(row[1]) for row in prepared.groupBy(PARTITION).count().collect()}
            if max(rows_per_partition.values(), default=0) <= MAX_ROWS_PLANNED_IN_ONE_TASK:
                decided = decide(
                    self.storage, operation, index, config, configs, timeline, rows_per_partition, partitioned
                )
                return self._plan_within_partitions(prepared, decided, timeline, rows_per_partition, config, schema)
            prepared = self._persist(self._deduplicated(prepared))
            written = list(rows_per_partition)
        else:
            written = [row[0] for row in prepared.select(PARTITION).distinct().collect()]
        decided = decide(self.storage, operation, index, config, configs, timeline, written, partitioned)
        slices = decided.slices
        if decided.replaced is not None:
            if decided.fresh_buckets:
                # Every bucket written gets a new file group; the replaced ones keep their ids.
                fresh = self._tag_buckets(prepared, slices, index, timeline, written, fresh=True)
                routed = self._route(fresh, TAG_FILE, index)
            else:
                routed = self._route(prepared, None, IndexSpec("SIMPLE"))
            return self._finish(routed, {}, {}, decided.sizing, config, schema, decided.replaced)
        tagged = self._tag(prepared, slices, index, timeline, written) if decided.lookup else None
        if tagged is not None and decided.stored_ordering:
            tagged = self._with_stored_ordering(tagged, timeline, config)
        if tagged is not None and decided.known_inserts is not None:
            known = sf.col(TAG_FILE).isNotNull()
            if decided.known_inserts is InsertDupPolicy.FAIL and tagged.where(known).limit(1).count():
                example = tagged.where(known).select(KEY).limit(1).collect()[0][0]
                raise DuplicateKeyError(
                    f"record(s) already exist in the table, e.g. key {example!r} "
                    f"({HudiWriteConfig.INSERT_DUP_POLICY.key}=fail)"
                )
            tagged = tagged.where(~known).drop(TAG_FILE, TAG_PARTITION)
            routed = self._route(tagged, None, IndexSpec("SIMPLE"))
        elif tagged is None or decided.inserts_as_new:
            routed = self._route(prepared, None, index, settings.ordering)
        else:
            routed = self._route(tagged, TAG_FILE, index, settings.ordering)
        return self._finish(routed, slices, decided.packable, decided.sizing, config, schema, None, decided.pending)

    def _bulk_insert(
        self,
        prepared: DataFrame,
        file_sizing: Sizing,
        compression: str,
        is_mor: bool,
        schema: pa.Schema,
    ) -> WritePlan:
        """Bulk insert as Hudi's Spark writer does it: no lookup, no small-file packing.

        One shuffle brings each table partition's rows to one task (Hudi's PARTITION_SORT mode),
        which cuts them into new file groups of the target size (bytes per record measured on the
        task's first rows, `bulk_insert_sizing`). Nothing is counted up front: the input is read once.
        """
        tasks = max(1, min(self._shuffle_partitions(), MAX_WRITE_TASKS))
        data_columns = schema.names

        def execute(context: WriteContext) -> list[WriteStat]:
            def write_new_groups(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                # Rows arrive sorted by partition: a file group is written as soon as it is full
                # or its partition ends, so a task holds at most one file's rows.
                number, token = task_identity()
                stats: list[str] = []
                received = (b for b in batches if b.num_rows)
                first = next(received, None)
                if first is None:
                    return
                sample = pa.Table.from_batches([first])
                records_per_file = bulk_insert_sizing(file_sizing, sample, data_columns, compression).records_per_file
                for group in full_file_groups(itertools.chain([first], received), records_per_file):
                    writes = file_group_writes(group, {}, is_mor, task_index=number, token=token)
                    stats += [json.dumps(stat.to_record()) for stat in write_file_groups(context, writes)]
                if stats:
                    yield pa.RecordBatch.from_arrays([pa.array(stats, pa.string())], names=["stat"])

            ordered = prepared.repartition(tasks, PARTITION).sortWithinPartitions(PARTITION, KEY)
            return _collected_stats(ordered.mapInArrow(write_new_groups, STATS_SCHEMA), context)

        return WritePlan(schema=schema, replaced=None, workload={}, execute=execute)

    def _prepare(
        self, table_schema: pa.Schema | None, reused: bool, deduplicate: bool = True
    ) -> tuple[DataFrame, pa.Schema]:
        """Validated, keyed (and, with `deduplicate`, de-duplicated) rows, computed by executors;
        kept (memory, then disk) when `reused` by several jobs, else computed in the one job that
        consumes them."""
        operation, settings = self.operation, self.settings
        keygen, ordering, is_global = settings.keygen, settings.ordering, settings.index.is_global
        # The output schema: what preparing an empty batch of the incoming schema gives.
        sample = prepare_batch(self.incoming.empty_table(), operation, table_schema, keygen, ordering, False, is_global)
        out_schema = sample.rows.schema
        spark_out = spark_schema(out_schema)

        def prepare(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            # Generated keys number rows within the Spark partition, as Apache Hudi's do.
            task = TaskContext.get().partitionId() if keygen.generates_keys else 0  # type: ignore[union-attr]
            first_row = 0
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                rows = prepare_batch(
                    pa.Table.from_batches([batch]),
                    operation,
                    table_schema,
                    keygen,
                    ordering,
                    False,
                    is_global,
                    auto_key_start=(task, first_row),
                )
                first_row += batch.num_rows
                yield from rows.rows.cast(out_schema).to_batches()

        self._prepared_schema = out_schema
        prepared = self.df.mapInArrow(prepare, spark_out)
        if deduplicate:
            prepared = self._deduplicated(prepared)
        if reused:
            prepared = self._persist(prepared)
        if operation is WriteOperation.INSERT and settings.dup_policy is InsertDupPolicy.FAIL:
            group = [KEY] if is_global else [PARTITION, KEY]
            if prepared.groupBy(*group).count().where(sf.col("count") > 1).limit(1).count():
                raise DuplicateKeyError(
                    f"the insert batch holds duplicate record keys ({HudiWriteConfig.INSERT_DUP_POLICY.key}=fail)"
                )
        return prepared, sample.schema

    def _dedup_order(self) -> str | None:
        """The field the last record of a key is chosen by (None: arrival order), or no choice at all
        when the write does not de-duplicate (`hoodie.combine.before.*`, generated keys)."""
        ordering = self.settings.ordering
        if ordering in self._prepared_schema.names and self.operation is not WriteOperation.DELETE:
            return ordering
        return None

    def _dedups(self) -> bool:
        return self.settings.dedup(self.operation) and not self.settings.keygen.generates_keys

    def _deduplicated(self, prepared: DataFrame) -> DataFrame:
        """Prepared rows with one record per key (per partition and key under a non-global index):
        rows of a key meet in one task, which keeps the last by the ordering field."""
        if not self._dedups():
            return prepared
        schema, order = self._prepared_schema, self._dedup_order()
        group = [KEY] if self.settings.index.is_global else [PARTITION, KEY]

        def dedup(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            received = [b for b in batches if b.num_rows]
            if received:
                yield from _last_per_group(pa.Table.from_batches(received).cast(schema), group, order).to_batches()

        return prepared.repartition(self._parallelism(), *group).mapInArrow(dedup, prepared.schema)

    def _shuffle_partitions(self) -> int:
        return max(1, int(self.spark.conf.get("spark.sql.shuffle.partitions") or 8))

    def _parallelism(self) -> int:
        """The cluster's default parallelism; Spark Connect sessions have no SparkContext to ask."""
        try:
            return max(1, int(self.spark.sparkContext.defaultParallelism))
        except Exception:  # Connect raises its own "not supported" error types
            return max(1, int(self.spark.conf.get("spark.sql.shuffle.partitions") or 8))

    def _tag(
        self,
        prepared: DataFrame,
        slices: Mapping[str, Sequence[FileSlice]],
        index: IndexSpec,
        timeline: Timeline,
        written: Sequence[str],
    ) -> DataFrame:
        """The prepared rows with the file group and partition that hold their key (nulls when new)."""
        if index.index_type == "BUCKET":
            return self._tag_buckets(prepared, slices, index, timeline, written, fresh=False)
        if index.index_type == "RECORD_INDEX":
            lookup = RecordIndexLookup.of(self.storage, slices, timeline)
            if lookup is not None:
                return self._tag_by_record_index(prepared, lookup)
            # the record index is built by this write's commit: until then keys are joined with files
        files = [(s.partition_path, s.file_id, s.base_file) for group in slices.values() for s in group if s.base_file]
        if not files:
            return prepared.withColumn(TAG_FILE, sf.lit(None).cast(StringType())).withColumn(
                TAG_PARTITION, sf.lit(None).cast(StringType())
            )
        storage_uri = self.storage.base_uri
        key_spec = self.settings.keygen.key_spec_for(self.settings.config.populate_meta_fields)
        stored_schema = StructType(
            [
                StructField(TAG_KEY, StringType(), True),
                StructField(TAG_PARTITION, StringType(), True),
                StructField(TAG_FILE, StringType(), True),
            ]
        )

        def read_keys(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            storage = Storage(storage_uri)
            for batch in batches:
                for partition, file_id, base_file in zip(*(batch.column(i).to_pylist() for i in range(3)), strict=True):
                    keys = stored_keys(storage, FileSlice(partition, file_id, "", base_file), key_spec)
                    yield pa.RecordBatch.from_arrays(
                        [keys, pa.repeat(pa.scalar(partition), len(keys)), pa.repeat(pa.scalar(file_id), len(keys))],
                        names=[TAG_KEY, TAG_PARTITION, TAG_FILE],
                    )

        bloom = index.index_type in ("BLOOM", "GLOBAL_BLOOM")
        if bloom or not index.is_global:
            stored = self._file_matches(prepared, files, index, key_spec, stored_schema, bloom)
        else:  # GLOBAL_SIMPLE: every key stored anywhere is a candidate, so all of them are joined
            file_frame = self.spark.createDataFrame(files, FILES_SCHEMA).repartition(
                min(len(files), self._parallelism() * 4)
            )
            stored = file_frame.mapInArrow(read_keys, stored_schema)
        if index.is_global:
            stored = stored.dropDuplicates([TAG_KEY])
            condition = prepared[KEY] == stored[TAG_KEY]
        else:
            stored = stored.dropDuplicates([TAG_KEY, TAG_PARTITION])
            condition = (prepared[KEY] == stored[TAG_KEY]) & (prepared[PARTITION] == stored[TAG_PARTITION])
        return prepared.join(stored, condition, "left").drop(TAG_KEY)

    def _file_matches(
        self,
        prepared: DataFrame,
        files: list[tuple[str, str, str]],
        index: IndexSpec,
        key_spec: RecordKeySpec,
        stored_schema: StructType,
        bloom: bool,
    ) -> DataFrame:
        """The incoming keys found in base files, as (key, partition, file): each incoming key is
        paired with the files that may hold it, and a task per file reads the file's keys and keeps
        the matches, so only found keys leave the Python workers.

        SIMPLE pairs a key with every file of its partition. BLOOM (Hudi's BLOOM index) first has
        executors read the footers' key ranges (collected: two keys per file), pairs a key only with
        the files of its partition (any partition, for GLOBAL_BLOOM) whose range holds it, and a
        file's keys are read only if its bloom filter admits one of its pairs."""
        storage_uri = self.storage.base_uri
        by_ranges = bloom and index.prune_by_ranges

        def read_ranges(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            storage = Storage(storage_uri)
            for batch in batches:
                rows = zip(*(batch.column(i).to_pylist() for i in range(3)), strict=True)
                ranges = [footer_key_range(storage, FileSlice(p, f, "", b)) for p, f, b in rows]
                yield pa.RecordBatch.from_arrays(
                    [
                        *batch.columns,
                        pa.array([r[0] for r in ranges], pa.string()),
                        pa.array([r[1] for r in ranges], pa.string()),
                    ],
                    names=["p", "f", "b", "lo", "hi"],
                )

        spread = min(len(files), self._parallelism() * 4)
        found_ranges: list[tuple[str | None, ...]] = [(*file, None, None) for file in files]
        if by_ranges:
            file_frame = self.spark.createDataFrame(files, FILES_SCHEMA).repartition(spread)
            found_ranges = [tuple(row) for row in file_frame.mapInArrow(read_ranges, RANGES_SCHEMA).collect()]
        ranges = self.spark.createDataFrame(found_ranges, RANGES_SCHEMA)
        incoming = prepared.select(KEY, PARTITION).distinct()
        in_range = sf.col("lo").isNull() | sf.col("hi").isNull() | incoming[KEY].between(sf.col("lo"), sf.col("hi"))
        condition = in_range if index.is_global else (incoming[PARTITION] == sf.col("p")) & in_range
        pairs = incoming.join(sf.broadcast(ranges), condition).select(KEY, "p", "f", "b")

        def check(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            received = [b for b in batches if b.num_rows]
            if not received:
                return
            storage = Storage(storage_uri)
            table = pa.Table.from_batches(received)
            for file_id, rows in rows_by_value(table.column("f")).items():
                partition, base_file = table.column("p")[int(rows[0])].as_py(), table.column("b")[int(rows[0])].as_py()
                file_slice = FileSlice(partition, file_id, "", base_file)
                wanted = table.column(KEY).take(pa.array(rows)).combine_chunks()
                candidates = bloom_candidates(storage, file_slice, wanted, False, None) if bloom else wanted
                if len(candidates):
                    found = keys_found(storage, file_slice, key_spec, candidates)
                    yield pa.RecordBatch.from_arrays(
                        [found, pa.repeat(pa.scalar(partition), len(found)), pa.repeat(pa.scalar(file_id), len(found))],
                        names=[TAG_KEY, TAG_PARTITION, TAG_FILE],
                    )

        return pairs.repartition(spread, "f").mapInArrow(check, stored_schema)

    def _tag_by_record_index(self, prepared: DataFrame, lookup: RecordIndexLookup) -> DataFrame:
        """Keys looked up in the record index by executors: the rows go to tasks by the index shard
        their key falls in, and each task reads only its shards (no data file is read)."""
        keyed_schema = StructType([*prepared.schema.fields, StructField(SHARD, IntegerType(), False)])
        tag_fields = [StructField(TAG_FILE, StringType(), True), StructField(TAG_PARTITION, StringType(), True)]
        out = StructType([*prepared.schema.fields, *tag_fields])

        def with_shard(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                shards = pa.array(lookup.shard_of(batch.column(KEY)), pa.int32())
                yield pa.RecordBatch.from_arrays([*batch.columns, shards], [*batch.schema.names, SHARD])

        def locate(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            received = [b for b in batches if b.num_rows]
            if not received:
                return
            table = pa.Table.from_batches(received).drop_columns([SHARD])
            file_ids, partitions = lookup.locate(table.column(KEY).combine_chunks())
            yield from table.append_column(TAG_FILE, file_ids).append_column(TAG_PARTITION, partitions).to_batches()

        keyed = prepared.mapInArrow(with_shard, keyed_schema)
        return keyed.repartition(len(lookup.shards), SHARD).mapInArrow(locate, out)

    def _tag_buckets(
        self,
        prepared: DataFrame,
        slices: Mapping[str, Sequence[FileSlice]],
        index: IndexSpec,
        timeline: Timeline,
        written: Sequence[str],
        fresh: bool,
    ) -> DataFrame:
        """Executors compute each record's bucket file group (`fresh`: see `tag_buckets`)."""
        layout = bucket_layout(self.storage, written, slices, timeline, index.bucket_count, index.bucket_engine, fresh)
        hash_fields = index.bucket_hash_fields or self.settings.keygen.key_spec_for(True).fields
        tag_fields = [StructField(TAG_FILE, StringType(), True), StructField(TAG_PARTITION, StringType(), True)]
        out = StructType([*prepared.schema.fields, *tag_fields])

        def buckets(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                partitions = batch.column(PARTITION)
                files = bucket_targets(batch.column(KEY), partitions, hash_fields, layout, fresh)
                table = pa.Table.from_batches([batch]).append_column(TAG_FILE, files)
                yield from table.append_column(TAG_PARTITION, partitions).to_batches()

        return prepared.mapInArrow(buckets, out)

    def _with_stored_ordering(self, tagged: DataFrame, timeline: Timeline, config: TableConfig) -> DataFrame:
        """Tagged rows with the stored ordering value of the keys that change partition (null for
        the others): only the file groups holding such keys are read, by executors."""
        tagged = self._persist(tagged)
        group_schema = StructType([StructField(TAG_PARTITION, StringType(), True), StructField(TAG_FILE, StringType())])

        def moving(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                table = pa.Table.from_batches([batch])
                tags = Tags(table.column(TAG_FILE), table.column(TAG_PARTITION))
                moves = partition_moves(tags, table.column(PARTITION), table.column(DELETED))
                yield from table.select([TAG_PARTITION, TAG_FILE]).filter(moves).to_batches()

        found = tagged.select(TAG_PARTITION, TAG_FILE, PARTITION, DELETED).mapInArrow(moving, group_schema)
        groups = {(row[0], row[1]) for row in found.distinct().collect()}
        if not groups:
            return tagged
        read = plan_stored_ordering(self.storage, config, timeline, groups)
        if not read.plan.slices:
            return tagged
        storage_uri = self.storage.base_uri
        slices = read.plan.slices
        ordering_type = tagged.schema[read.ordering_field].dataType
        stored_schema = StructType(
            [StructField(STORED_KEY, StringType(), True), StructField(STORED_ORDERING, ordering_type, True)]
        )
        arrow_stored = arrow_schema(stored_schema)

        def read_ordering(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            storage = Storage(storage_uri)
            for batch in batches:
                for number in batch.column(0).to_pylist():
                    yield from read.read(storage, slices[number]).cast(arrow_stored).to_batches()

        numbers = self.spark.createDataFrame([(n,) for n in range(len(slices))], "n int")
        numbers = numbers.repartition(min(len(slices), self._parallelism() * 4))
        stored = numbers.mapInArrow(read_ordering, stored_schema).dropDuplicates([STORED_KEY])
        return tagged.join(stored, tagged[KEY] == stored[STORED_KEY], "left").drop(STORED_KEY)

    def _route(
        self, frame: DataFrame, tag_column: str | None, index: IndexSpec, ordering: str | None = None
    ) -> DataFrame:
        """Executors route each batch: target partition and file group (null: an insert)."""
        tag_columns = (TAG_FILE, TAG_PARTITION, STORED_ORDERING)
        data_fields = [f for f in frame.schema.fields if f.name not in tag_columns]
        out = StructType(
            [
                *data_fields,
                StructField(TAGGED, BooleanType(), True),
                StructField(TARGET_PARTITION, StringType(), True),
                StructField(TARGET_FILE, StringType(), True),
            ]
        )
        names = [f.name for f in data_fields]

        def routed(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                table = pa.Table.from_batches([batch])
                if tag_column is None:
                    nulls = pa.nulls(table.num_rows, pa.string())
                    tags = Tags(nulls, nulls)
                else:
                    stored = table.column(STORED_ORDERING) if STORED_ORDERING in table.column_names else None
                    tags = Tags(
                        table.column(TAG_FILE).combine_chunks(),
                        table.column(TAG_PARTITION).combine_chunks(),
                        stored.combine_chunks() if stored is not None else None,
                    )
                # The join-based lookups record no base positions: their logs merge by key.
                routed_table = route(table.select(names), tags, index, ordering).select(out.names)
                yield from _plain_targets(routed_table).to_batches()

        return self._persist(frame.mapInArrow(routed, out))

    def _plans_within_partitions(self) -> bool:
        """Whether the write is planned inside each table partition's own task: writes whose
        lookups, small files and replaced file groups never leave a partition (upserts and deletes
        under a non-global SIMPLE or BLOOM index, inserts, insert_overwrite). The Arrow engine's
        routing (`route_batch`) then runs as it is on each task's partitions, and the write is one
        job instead of a job per lookup, count and assignment step."""
        settings, operation = self.settings, self.operation
        keygen, index = settings.keygen, settings.index
        if not keygen.is_partitioned or keygen.generates_keys or index.index_type == "BUCKET":
            return False
        if operation.replaces_file_groups:
            return operation is not WriteOperation.DELETE_PARTITION
        if operation not in (WriteOperation.UPSERT, WriteOperation.DELETE, WriteOperation.INSERT):
            return False
        looks_up = operation is not WriteOperation.INSERT or settings.dup_policy is not InsertDupPolicy.NONE
        return not looks_up or index.index_type in ("SIMPLE", "BLOOM")

    def _plan_within_partitions(
        self,
        prepared: DataFrame,
        decided: WriteDecisions,
        timeline: Timeline,
        rows_per_partition: Mapping[str, int],
        config: TableConfig,
        schema: pa.Schema,
    ) -> WritePlan:
        """Each task receives whole table partitions and routes them as the Arrow engine routes a
        batch (`route_batch`: lookup with base positions, inserts given file groups, replaced
        groups left behind). When the partitions are as many as the file groups to write could
        keep busy, the same task writes them (one stage, no task without work); otherwise the
        routed rows go to a task per file group."""
        storage_uri = self.storage.base_uri
        is_mor = config.is_mor
        key_spec = self.settings.keygen.key_spec_for(config.populate_meta_fields)
        slices = {} if decided.replaced is not None else {p: list(group) for p, group in decided.slices.items()}
        prepared_schema, dedup_order = self._prepared_schema, self._dedup_order()
        dedups = self._dedups()

        def plan(batches: Iterator[pa.RecordBatch]) -> pa.Table | None:
            received = [b for b in batches if b.num_rows]
            if not received:
                return None
            rows = pa.Table.from_batches(received)
            if dedups:  # every record of a partition's keys is in this task
                rows = _last_per_group(rows.cast(prepared_schema), [PARTITION, KEY], dedup_order)
            routed, _ = route_batch(Storage(storage_uri), decided, rows, key_spec, config, timeline)
            return routed

        # At most every stored file group of the written partitions, and new ones for their rows.
        per_file = decided.sizing.records_per_file
        groups = sum(len(slices.get(p, ())) - (-rows // per_file) for p, rows in rows_per_partition.items())
        wanted = min(groups, self._parallelism() * 2)
        tasks = max(1, min(len(rows_per_partition), wanted))
        stored = {p: sum(s.base_file_size for s in group) for p, group in slices.items()} if not is_mor else {}
        work = _estimated_work(rows_per_partition, stored, decided.sizing.record_size)
        by_partition = placed(prepared, PARTITION, balanced_bins(work, tasks), tasks)
        workload = dict(rows_per_partition)
        if 2 * len(rows_per_partition) >= wanted:

            def execute(context: WriteContext) -> list[WriteStat]:
                def plan_and_write(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                    routed = plan(batches)
                    if routed is not None:
                        yield _written_stats(context, routed, slices, is_mor)

                return _collected_stats(by_partition.mapInArrow(plan_and_write, STATS_SCHEMA), context)

            return WritePlan(schema=schema, replaced=decided.replaced, workload=workload, execute=execute)

        routed_schema = StructType(
            [
                *prepared.schema.fields,
                StructField(TAGGED, BooleanType(), True),
                StructField(BASE_POSITION, LongType(), True),
                StructField(TARGET_PARTITION, StringType(), True),
                StructField(TARGET_FILE, StringType(), True),
            ]
        )

        def plan_partitions(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            routed = plan(batches)
            if routed is not None:
                yield from _plain_targets(routed.select(routed_schema.names)).to_batches()

        routed = by_partition.mapInArrow(plan_partitions, routed_schema)
        execute_writes = self._writes(routed, slices, is_mor, groups)
        return WritePlan(schema=schema, replaced=decided.replaced, workload=workload, execute=execute_writes)

    def _writes(
        self,
        routed: DataFrame,
        slices: Mapping[str, Sequence[FileSlice]],
        is_mor: bool,
        groups: int,
        work: Mapping[str, int] | None = None,
    ) -> Callable[[WriteContext], list[WriteStat]]:
        """The execution of a routed write: rows go to a task per target file group (at most
        `groups` tasks), which writes them with the shared `write_file_groups`. With the `work` of
        each file group known, no task receives two groups while another receives none, and past
        `MAX_WRITE_TASKS` groups share tasks by their work (`placement`)."""
        slices_by_partition = {p: list(group) for p, group in slices.items()}

        def execute(context: WriteContext) -> list[WriteStat]:
            if groups == 0:
                return []

            def write_groups(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                received = [b for b in batches if b.num_rows]
                if received:
                    yield _written_stats(context, pa.Table.from_batches(received), slices_by_partition, is_mor)

            tasks = min(groups, MAX_WRITE_TASKS)
            if work:
                by_group = placed(routed, TARGET_FILE, balanced_bins(work, tasks), tasks)
            else:
                by_group = routed.repartition(tasks, TARGET_PARTITION, TARGET_FILE)
            frame = by_group.mapInArrow(write_groups, STATS_SCHEMA)
            return _collected_stats(frame, context)

        return execute

    def _finish(
        self,
        routed: DataFrame,
        slices: Mapping[str, Sequence[FileSlice]],
        packable: Mapping[str, Sequence[FileSlice]],
        sizing: Any,
        config: TableConfig,
        schema: pa.Schema,
        replaced: dict[str, list[str]] | None,
        pending: PendingServices | None = None,
    ) -> WritePlan:
        """Gives inserts their file groups; returns the plan whose execution writes every group.

        One aggregation (records per target file group, inserts per partition) is all the driver
        collects: it is as small as the number of file groups touched.
        """
        is_mor = config.is_mor
        summary = routed.groupBy(TARGET_PARTITION, TARGET_FILE).agg(
            sf.count(sf.lit(1)).alias("records"), sf.max(sf.col(TAGGED).cast("int")).alias("tagged")
        )
        counts: dict[str, int] = {}
        workload: dict[str, int] = {}
        updated: set[tuple[str, str]] = set()
        summary_rows = summary.collect()
        for partition, file_id, records, tagged in summary_rows:
            workload[partition] = workload.get(partition, 0) + int(records)
            if file_id is None:
                counts[partition] = int(records)
                continue
            if tagged:
                updated.add((partition, file_id))
        if pending is not None:
            reject_clustered_updates(pending, updated)
        inserts = routed.where(sf.col(TARGET_FILE).isNull())
        busy: dict[str, set[str]] = {}
        for partition, file_id in updated:
            busy.setdefault(partition, set()).add(file_id)
        bins = {
            partition: insert_bins(
                count, packable.get(partition, ()), sizing, is_mor, busy.get(partition, set()) if is_mor else set()
            )
            for partition, count in counts.items()
        }
        if counts:
            numbered = inserts.withColumn(
                ROW, sf.row_number().over(Window.partitionBy(TARGET_PARTITION).orderBy(KEY)) - sf.lit(1)
            )

            def assign(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                for batch in batches:
                    table = pa.Table.from_batches([batch])
                    partitions = table.column(TARGET_PARTITION).to_pylist()
                    rows = table.column(ROW).to_numpy()
                    targets = []
                    for partition, row in zip(partitions, rows, strict=True):
                        group_bins = bins[partition]
                        ends = np.cumsum([c for _, c in group_bins])
                        targets.append(group_bins[int(np.searchsorted(ends, row, side="right"))][0])
                    table = table.set_column(
                        table.schema.get_field_index(TARGET_FILE), TARGET_FILE, pa.array(targets, pa.string())
                    )
                    yield from table.drop_columns([ROW]).to_batches()

            assigned = numbered.mapInArrow(assign, routed.schema)
            routed = routed.where(sf.col(TARGET_FILE).isNotNull()).unionByName(assigned)
        group_records = {file_id: int(records) for _, file_id, records, _ in summary_rows if file_id is not None}
        group_records.update({file_id: records for group_bins in bins.values() for file_id, records in group_bins})
        stored = {s.file_id: s.base_file_size for group in slices.values() for s in group} if not is_mor else {}
        work = _estimated_work(group_records, stored, sizing.record_size)
        execute = self._writes(routed, slices, is_mor, len(group_records), work)
        return WritePlan(schema=schema, replaced=replaced, workload=workload, execute=execute)


def _estimated_work(records: Mapping[str, int], stored_bytes: Mapping[str, int], record_size: int) -> dict[str, int]:
    """Bytes a task reads and writes for each partition or file group, roughly: its incoming
    records at the table's record size, and the base files an update rewrites (`stored_bytes`,
    given under Copy-on-Write, where a 1% update touches most of them). It only balances tasks;
    nothing else depends on it."""
    return {name: count * max(record_size, 1) + stored_bytes.get(name, 0) for name, count in records.items()}


def _last_per_group(rows: pa.Table, group: Sequence[str], order: str | None) -> pa.Table:
    """The last record of each value of the `group` columns (by `order`, else by arrival)."""
    keyed = rows.append_column(GROUP, pc.binary_join_element_wise(*[rows.column(c) for c in group], "\x00"))
    return last_per_key(keyed, GROUP, order).drop_columns([GROUP])


def _plain_targets(routed: pa.Table) -> pa.Table:
    """Routed rows with their target partition and file group as plain strings (Spark takes no
    dictionaries)."""
    for name in (TARGET_PARTITION, TARGET_FILE):
        position = routed.schema.get_field_index(name)
        routed = routed.set_column(position, name, routed.column(name).cast(pa.string()))
    return routed


def _written_stats(
    context: WriteContext, routed: pa.Table, slices: Mapping[str, Sequence[FileSlice]], is_mor: bool
) -> pa.RecordBatch:
    """Writes the routed rows' file groups in this task; their write stats as JSON, one per row."""
    number, token = task_identity()
    writes = file_group_writes(routed, slices, is_mor, task_index=number, token=token)
    stats = [json.dumps(stat.to_record()) for stat in write_file_groups(context, writes)]
    return pa.RecordBatch.from_arrays([pa.array(stats, pa.string())], names=["stat"])


def _collected_stats(frame: DataFrame, context: WriteContext) -> list[WriteStat]:
    """Runs the writing job of `frame` (one JSON write stat per row) and parses what it wrote."""
    rows = collect_ending_tasks_on_failure(frame, f"hudi write {context.instant_time}")
    return [WriteStat.from_dict(json.loads(row.stat), "") for row in rows]
