"""Partition moves under a global index with `hoodie.*.update.partition.path=true`.

An incoming record whose key the table holds in another partition is first merged with the stored
record, as Hudi's `HoodieIndexUtils.mergeForPartitionUpdatesIfNeeded` does: when the stored record
wins (event-time ordering, a greater ordering value), the incoming record becomes an update of it
where it is, and loses there; otherwise the key moves (deleted where it was, inserted where it now
belongs). A delete goes where the key is, never moves.

Deciding needs the stored records' ordering values: only the file groups that hold a key changing
partition are read, and only their key and ordering columns (merged with their logs on
Merge-on-Read), so writes without partition changes read nothing more.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.table import RecordMergeMode, TableConfig
from hudi_core.file_group import FileSlice
from hudi_core.index.tagger import IndexSpec, Tags
from hudi_core.keygen import KeyGenerator, RecordKeySpec
from hudi_core.merge.file_group_reader import FileGroupReader
from hudi_core.parallel import ordered_map
from hudi_core.storage import Storage
from hudi_core.table.scan import ScanPlan, TableScanner
from hudi_core.timeline import Timeline

STORED_KEY = "__hudi_stored_key"
STORED_ORDERING = "__hudi_stored_ordering"


def partition_moves(
    tags: Tags, partitions: pa.Array | pa.ChunkedArray, deleted: pa.Array | pa.ChunkedArray
) -> pa.Array | pa.ChunkedArray:
    """Per incoming record: is its key stored in another partition (and the record no delete)?"""
    found = pc.is_valid(tags.file_ids)
    elsewhere = pc.and_(found, pc.not_equal(tags.partitions, partitions))
    return pc.fill_null(pc.and_(elsewhere, pc.invert(deleted)), False)


def needs_stored_ordering(index: IndexSpec, config: TableConfig) -> bool:
    """Whether a partition move depends on the stored record (only event-time ordering merges by
    value; under commit-time ordering the incoming record always wins)."""
    return (
        index.is_global
        and index.update_partition_path
        and config.record_merge_mode is RecordMergeMode.EVENT_TIME_ORDERING
        and bool(config.ordering_fields)
    )


@dataclass(frozen=True)
class StoredOrdering:
    """A planned read of the ordering values stored in some file groups (any engine runs it).

    Attributes:
        plan: the latest slices of the file groups and the request reading their key and
            ordering columns.
        keys: where the stored record keys come from.
        ordering_field: the table's ordering field.
    """

    plan: ScanPlan
    keys: RecordKeySpec
    ordering_field: str

    def read(self, storage: Storage, file_slice: FileSlice) -> pa.Table:
        """The key (STORED_KEY) and ordering value (STORED_ORDERING) of every record of a slice."""
        rows = FileGroupReader(storage).read(file_slice, self.plan.request)
        keys = pc.cast(self.keys.keys(rows), pa.string())
        return pa.table({STORED_KEY: keys, STORED_ORDERING: rows.column(self.ordering_field)})


def plan_stored_ordering(
    storage: Storage, config: TableConfig, timeline: Timeline, groups: Set[tuple[str, str]]
) -> StoredOrdering:
    """Plans reading the ordering values of the records in `groups` ((partition, file id)) as the
    completed `timeline` sees them."""
    assert config.ordering_fields, "only event-time ordering needs stored ordering values"
    ordering = config.ordering_fields[0]
    keys = KeyGenerator.from_table_config(config).key_spec_for(config.populate_meta_fields)
    scanner = TableScanner(storage, config, timeline)
    columns = list(dict.fromkeys([*keys.source_columns, ordering]))
    plan = scanner.file_groups(timeline.completed_data_instants(), None, set(groups), columns)
    return StoredOrdering(plan, keys, ordering)


def aligned(keys: pa.Array | pa.ChunkedArray, stored: pa.Table) -> pa.Array:
    """The stored ordering value of each key (null where `stored` does not hold it)."""
    position = pc.index_in(keys, value_set=stored.column(STORED_KEY).combine_chunks())
    return pc.take(stored.column(STORED_ORDERING).combine_chunks(), position)


def with_stored_ordering(
    storage: Storage,
    config: TableConfig,
    timeline: Timeline,
    index: IndexSpec,
    keys: pa.Array | pa.ChunkedArray,
    partitions: pa.Array | pa.ChunkedArray,
    deleted: pa.Array | pa.ChunkedArray,
    tags: Tags,
) -> Tags:
    """`tags` with the stored ordering value of every record whose key changes partition, read
    here (the Arrow engine's lookup); unchanged when no record moves or the move needs no lookup."""
    if not needs_stored_ordering(index, config) or not len(keys):
        return tags
    moves = partition_moves(tags, partitions, deleted)
    if not pc.any(moves).as_py():
        return tags
    moved = pa.table({"p": tags.partitions, "f": tags.file_ids}).filter(moves).group_by(["p", "f"]).aggregate([])
    groups = set(zip(moved.column("p").to_pylist(), moved.column("f").to_pylist(), strict=True))
    read = plan_stored_ordering(storage, config, timeline, groups)
    pieces = list(ordered_map(lambda file_slice: read.read(storage, file_slice), read.plan.slices))
    if not pieces:
        return tags
    stored = pa.concat_tables(pieces)
    return replace(tags, stored_ordering=aligned(keys, stored))
