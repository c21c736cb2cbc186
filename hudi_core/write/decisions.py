"""The engine-neutral decisions of one write, taken once for the Arrow and the Spark engine alike.

Given the operation, the index and the table as the write sees it (under the table lock, or on its
snapshot under optimistic concurrency), `decide` settles everything that does not depend on the
rows themselves: which file slices the write looks at, which file groups a replacing write
replaces, whether incoming keys are looked up, what an insert does with keys already stored,
whether partition moves need the stored ordering value, how files are sized, and which file groups
inserts may pad. Each engine then carries the decisions out on its own data (Arrow tables in
process, DataFrames on executors), with the routing functions of `hudi_core.write.planner`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config import HudiConfigs
from hudi_core.config.properties import PROPERTIES_NAME
from hudi_core.config.table import HudiTableConfig, TableConfig
from hudi_core.config.write import HudiWriteConfig, InsertDupPolicy, WriteOperation
from hudi_core.errors import DuplicateKeyError, HudiConfigError, WriteConflictError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet_writer import encoded_size
from hudi_core.index.consistent_hashing import refuse_replacing_rings
from hudi_core.index.partition_moves import needs_stored_ordering, with_stored_ordering
from hudi_core.index.tagger import IndexSpec, Tags, footer_key_range, tag, tag_buckets
from hudi_core.keygen import RecordKeySpec
from hudi_core.lifecycle.pending import PendingServices, pending_services
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage
from hudi_core.table.create import PARTITION_METAFILE
from hudi_core.table.listing import FileListing, latest_slices
from hudi_core.timeline import Timeline
from hudi_core.write.planner import (
    Sizing,
    assign_inserts,
    groups_to_replace,
    replaced_groups,
    route,
    updated_groups,
)
from hudi_core.write.prepare import DELETED, KEY, PARTITION


@dataclass(frozen=True)
class WriteDecisions:
    """What one write does, before any row is looked at.

    Attributes:
        operation: the write operation.
        index: the index the write tags with.
        slices: the latest file slices of the partitions the write looks at.
        pending: file groups under pending compaction or clustering.
        replaced: file groups a replacing write replaces (None for other writes).
        fresh_buckets: a replacing write under a bucket index: every bucket gets a new file group.
        lookup: incoming keys are tagged with the file groups that store them.
        known_inserts: what an insert does with keys already stored (None: nothing, they are not
            looked for): FAIL raises, DROP leaves them out.
        inserts_as_new: an insert routes every record as new (no index decides its file group).
        stored_ordering: an upsert reads the stored ordering value of keys that change partition.
        sizing: file sizes; bulk_insert and replacing writes never pad existing files.
    """

    operation: WriteOperation
    index: IndexSpec
    slices: Mapping[str, Sequence[FileSlice]]
    pending: PendingServices
    replaced: dict[str, list[str]] | None
    fresh_buckets: bool
    lookup: bool
    known_inserts: InsertDupPolicy | None
    inserts_as_new: bool
    stored_ordering: bool
    sizing: Sizing

    @property
    def packable(self) -> dict[str, list[FileSlice]]:
        """Slices inserts may pad: never those a pending service is rewriting."""
        busy = self.pending.file_groups
        return {p: [s for s in group if (p, s.file_id) not in busy] for p, group in self.slices.items()}


def decide(
    storage: Storage,
    operation: WriteOperation,
    index: IndexSpec,
    config: TableConfig,
    configs: HudiConfigs,
    timeline: Timeline,
    written_partitions: Iterable[str],
    partitioned: bool,
) -> WriteDecisions:
    """The decisions of a write of rows into `written_partitions` (see `WriteDecisions`).

    Raises:
        HudiConfigError: a non-partitioned write into a table that has partitions.
        WriteConflictError: a replacing write would replace a file group under pending clustering.
        UnsupportedFeatureError: a replacing write would replace file groups a consistent-hashing
            ring names.
    """
    if not partitioned:
        check_non_partitioned(storage, timeline)
    written = set(written_partitions)
    lookup_everywhere = index.is_global or operation is WriteOperation.INSERT_OVERWRITE_TABLE
    slices = latest_slices(storage, timeline, None if lookup_everywhere else written)
    if not config.record_key_fields:
        check_generated_keys(storage, slices)
    pending = pending_services(storage, timeline)
    replacing = operation.replaces_file_groups
    replaced = None
    if replacing:
        replaced = groups_to_replace(operation is WriteOperation.INSERT_OVERWRITE_TABLE, slices, written)
        refuse_replacing_rings(storage, replaced)
        reject_clustered_updates(pending, replaced_groups(replaced))
    bucket = index.index_type == "BUCKET"
    dup_policy = configs.value(HudiWriteConfig.INSERT_DUP_POLICY)
    checks_inserts = operation is WriteOperation.INSERT and not bucket and dup_policy is not InsertDupPolicy.NONE
    updates = operation in (WriteOperation.UPSERT, WriteOperation.DELETE)
    return WriteDecisions(
        operation=operation,
        index=index,
        slices=slices,
        pending=pending,
        replaced=replaced,
        fresh_buckets=replacing and bucket,
        lookup=not replacing and (updates or bucket or checks_inserts),
        known_inserts=dup_policy if checks_inserts else None,
        inserts_as_new=operation is WriteOperation.INSERT and not bucket,
        stored_ordering=operation is WriteOperation.UPSERT and needs_stored_ordering(index, config),
        sizing=sizing(configs, timeline, pad=not replacing and operation is not WriteOperation.BULK_INSERT),
    )


def route_batch(
    storage: Storage,
    decided: WriteDecisions,
    rows: pa.Table,
    key_spec: RecordKeySpec,
    config: TableConfig,
    timeline: Timeline,
) -> tuple[pa.Table, Mapping[str, Sequence[FileSlice]]]:
    """Carries the decisions out on prepared rows: the rows with their target partition and file
    group (inserts given theirs), and the file slices their writes continue.

    `rows` are the whole batch, or, under an index that never looks outside a partition, every row
    of some partitions (a Spark task's): either way each row is routed as it would be in the batch.

    Raises:
        DuplicateKeyError: an insert with `hoodie.datasource.insert.dup.policy=fail` meets a stored key.
        WriteConflictError: a row updates a file group under pending clustering.
    """
    index, sizing, is_mor = decided.index, decided.sizing, config.is_mor
    no_tags = Tags(pa.nulls(rows.num_rows, pa.string()), pa.nulls(rows.num_rows, pa.string()))
    if decided.replaced is not None:
        if decided.fresh_buckets:
            # Every bucket written gets a new file group; the replaced ones keep their ids.
            keys, partition_values = rows.column(KEY), rows.column(PARTITION)
            tags = tag_buckets(storage, index, key_spec, keys, partition_values, decided.slices, timeline, fresh=True)
            return route(rows, tags, index), {}
        return assign_inserts(route(rows, no_tags, IndexSpec("SIMPLE")), {}, sizing, is_mor), {}
    tags = no_tags
    if decided.lookup and rows.num_rows:
        keys, partition_values = rows.column(KEY).combine_chunks(), rows.column(PARTITION).combine_chunks()
        tags = tag(storage, index, key_spec, keys, partition_values, decided.slices, timeline)
    if decided.known_inserts is not None:
        known = pc.is_valid(tags.file_ids)
        if pc.any(known).as_py():
            if decided.known_inserts is InsertDupPolicy.FAIL:
                raise DuplicateKeyError(
                    f"{pc.sum(known).as_py()} record(s) already exist in the table, e.g. key "
                    f"{rows.column(KEY).filter(known)[0].as_py()!r} ({HudiWriteConfig.INSERT_DUP_POLICY.key}=fail)"
                )
            rows = rows.filter(pc.invert(known))
    if decided.inserts_as_new:
        tags = Tags(pa.nulls(rows.num_rows, pa.string()), pa.nulls(rows.num_rows, pa.string()))
    if decided.stored_ordering:
        keys, partition_values, deleted = rows.column(KEY), rows.column(PARTITION), rows.column(DELETED)
        tags = with_stored_ordering(storage, config, timeline, index, keys, partition_values, deleted, tags)
    ordering = config.ordering_fields[0] if config.ordering_fields else None
    routed = route(rows, tags, index, ordering)
    reject_clustered_updates(decided.pending, updated_groups(routed))
    return assign_inserts(routed, decided.packable, sizing, is_mor), decided.slices


def partitions_to_delete(
    storage: Storage, timeline: Timeline, configs: HudiConfigs, partitions: Sequence[str] | None
) -> dict[str, list[str]]:
    """The file groups a delete_partition replaces: every one of the partitions its patterns
    (`*` wildcards) name.

    Raises:
        HudiConfigError: no partitions were named.
        WriteConflictError: a file group is under pending clustering.
        UnsupportedFeatureError: a partition's file groups are named by a consistent-hashing ring.
    """
    patterns = list(partitions or configs.get(HudiWriteConfig.PARTITIONS_TO_DELETE) or [])
    if not patterns:
        raise HudiConfigError(f"delete_partition needs partitions ({HudiWriteConfig.PARTITIONS_TO_DELETE.key})")
    slices = latest_slices(storage, timeline)
    chosen = [p for p in slices if any(fnmatch.fnmatchcase(p, pattern) for pattern in patterns)]
    refuse_replacing_rings(storage, chosen)
    replaced = {p: [s.file_id for s in slices[p]] for p in chosen if slices[p]}
    reject_clustered_updates(pending_services(storage, timeline), replaced_groups(replaced))
    return replaced


def sizing(configs: HudiConfigs, timeline: Timeline, pad: bool) -> Sizing:
    """File sizing from the options and the average record size of earlier commits."""
    return Sizing(
        max_file_size=configs.value(HudiWriteConfig.PARQUET_MAX_FILE_SIZE),
        small_file_limit=configs.value(HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT),
        record_size=average_record_size(timeline, configs.value(HudiWriteConfig.RECORD_SIZE_ESTIMATE)),
        pad_small_files=pad,
    )


# Rows a bulk insert encodes to measure its bytes per record (spread over the batch).
SIZING_SAMPLE_ROWS = 16384


def bulk_insert_sizing(sizing: Sizing, rows: pa.Table, data_columns: Sequence[str], compression: str) -> Sizing:
    """`sizing` with the bytes per record the rows of a bulk insert encode to.

    Apache Hudi's bulk insert rolls a base file over once it holds `hoodie.parquet.max.file.size`
    bytes; it does not size files by `hoodie.copyonwrite.record.size.estimate` (1 KiB, ten times
    a typical compressed row) as inserts do. The rows' own size is measured on a sample spread over
    `rows` (the batch, or a Spark task's first rows: data columns and the record key `KEY`),
    encoded as base files encode it, with the record key column the file stores beside them.
    """
    count = rows.num_rows
    if count == 0:
        return sizing
    picked = np.linspace(0, count - 1, min(count, SIZING_SAMPLE_ROWS)).astype(np.int64)
    sample = rows.take(pa.array(picked))
    table = sample.select(list(data_columns)).append_column(RECORD_KEY, sample.column(KEY).cast(pa.string()))
    return replace(sizing, record_size=max(1, -(-encoded_size(table, compression) // sample.num_rows)))


def average_record_size(timeline: Timeline, estimate: int) -> int:
    """Bytes per record of the latest write that wrote base files (Hudi's size estimation)."""
    for instant in reversed(timeline.completed_data_instants()):
        stats = [s for s in timeline.commit_metadata(instant).write_stats() if s.log_version is None]
        written = sum(s.num_writes for s in stats)
        size = sum(s.total_write_bytes for s in stats)
        if written > 0 and size > 0:
            return max(1, size // written)
    return estimate


def reject_clustered_updates(pending: PendingServices, groups: Iterable[tuple[str, str]]) -> None:
    """Hudi's default SparkRejectUpdateStrategy: no update may touch a file group under clustering."""
    for partition, file_id in sorted(groups):
        instant = pending.clustering.get((partition, file_id))
        if instant is not None:
            raise WriteConflictError(
                f"Not allowed to update the clustering file group HoodieFileGroupId{{partitionPath='{partition}', "
                f"fileId='{file_id}'}}: clustering {instant} is pending. Run or roll back the clustering first."
            )


GENERATED_KEY = re.compile(r"\d{17}_\d+_\d+")


def check_generated_keys(storage: Storage, slices: Mapping[str, Sequence[FileSlice]]) -> None:
    """hoodie.properties without record key fields means generated keys; on a table whose records
    carry keys of their own (a lost property) a write would store every key a second time. One base
    file's footer tells which."""
    base = next((s for group in slices.values() for s in group if s.base_file is not None), None)
    if base is None:
        return
    low, _ = footer_key_range(storage, base)
    if low is not None and not GENERATED_KEY.fullmatch(low):
        raise HudiConfigError(
            f"{PROPERTIES_NAME} declares no record key field ({HudiTableConfig.RECORD_KEY_FIELDS.key}) but the "
            f"table's records carry keys such as {low!r}, not generated ones; restore the key before writing"
        )


def check_non_partitioned(storage: Storage, timeline: Timeline) -> None:
    """hoodie.properties without partition fields on a partitioned table (a lost key) would route every
    record to the base path and store existing keys a second time."""
    if storage.exists(PARTITION_METAFILE):
        return  # the base path is the one partition: no listing on every write of such a table
    partitions = [p for p in FileListing(storage, timeline).partitions() if p]
    if partitions:
        raise HudiConfigError(
            f"{PROPERTIES_NAME} declares no partition fields ({HudiTableConfig.PARTITION_FIELDS.key}) but the "
            f"table has {len(partitions)} partition(s), e.g. {partitions[0]!r}; restore the key before writing"
        )
