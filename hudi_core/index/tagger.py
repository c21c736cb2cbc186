"""Tagging: where each incoming record already lives (its file group), per `hoodie.index.type`.

* SIMPLE: joins incoming keys with the keys of the latest base files of the partitions written to
  (reading only the key column).
* BLOOM: skips base files whose footer key range or bloom filter excludes a key, then confirms
  against the keys of the remaining files.
* GLOBAL_SIMPLE / GLOBAL_BLOOM: the same over every partition; a key is unique in the table.
* BUCKET (SIMPLE engine): the file group follows from the key's hash; no lookup I/O.

Tagging never reads whole base files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.engine.arrow import ordered_map
from hudi_core.errors import HudiConfigError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet import open_parquet, read_parquet
from hudi_core.index.bloom_filter import BloomFilter
from hudi_core.index.bucket import bucket_file_id, bucket_ids, existing_buckets
from hudi_core.keygen import RecordKeySpec
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage

INDEX_TYPES = ("SIMPLE", "BLOOM", "BUCKET", "GLOBAL_SIMPLE", "GLOBAL_BLOOM")


@dataclass(frozen=True)
class IndexSpec:
    """The configured index.

    Attributes:
        index_type: one of INDEX_TYPES.
        update_partition_path: global indexes: move a record whose partition changed.
        bucket_count: BUCKET: buckets per partition.
        bucket_hash_fields: BUCKET: the fields hashed (default: the record key fields).
        prune_by_ranges: BLOOM: skip files whose key range excludes the key.
    """

    index_type: str
    update_partition_path: bool = True
    bucket_count: int = 256
    bucket_hash_fields: tuple[str, ...] = ()
    prune_by_ranges: bool = True

    def __post_init__(self) -> None:
        if self.index_type not in INDEX_TYPES:
            raise HudiConfigError(f"hoodie.index.type={self.index_type} is not supported ({', '.join(INDEX_TYPES)})")

    @property
    def is_global(self) -> bool:
        return self.index_type.startswith("GLOBAL_")


@dataclass(frozen=True)
class Tags:
    """Per incoming record: its file group (null when new) and the partition holding it."""

    file_ids: pa.Array
    partitions: pa.Array


def _file_keys(storage: Storage, file_slice: FileSlice, keys: RecordKeySpec) -> pa.Table:
    assert file_slice.base_file_path is not None
    columns = keys.source_columns
    schema = pa.schema([pa.field(c, pa.string() if c == RECORD_KEY else pa.null()) for c in columns])
    if not keys.from_meta_field:
        schema = open_parquet(storage, file_slice.base_file_path).schema_arrow
        schema = pa.schema([schema.field(c) for c in columns])
    table = read_parquet(storage, file_slice.base_file_path, schema).table
    stored = keys.keys(table)
    return pa.table(
        {
            "key": pc.cast(stored, pa.string()),
            "partition": pa.repeat(pa.scalar(file_slice.partition_path), len(stored)),
            "file_id": pa.repeat(pa.scalar(file_slice.file_id), len(stored)),
        }
    )


def _bloom_candidates(storage: Storage, file_slice: FileSlice, incoming: pa.Array, prune_by_ranges: bool) -> bool:
    """Whether any incoming key may be in this base file, by its footer range and bloom filter."""
    assert file_slice.base_file_path is not None
    footer = open_parquet(storage, file_slice.base_file_path).metadata.metadata or {}
    candidates = incoming
    low, high = footer.get(b"hoodie_min_record_key"), footer.get(b"hoodie_max_record_key")
    if prune_by_ranges and low is not None and high is not None:
        in_range = pc.and_(pc.greater_equal(candidates, low.decode()), pc.less_equal(candidates, high.decode()))
        candidates = candidates.filter(in_range)
    serialized = footer.get(b"org.apache.hudi.bloomfilter")
    if serialized is None or len(candidates) == 0:
        return len(candidates) > 0
    filter_type = footer.get(b"hoodie_bloom_filter_type_code", b"SIMPLE").decode()
    bloom = BloomFilter.deserialize(serialized.decode(), filter_type)
    return bool(bloom.might_contain(candidates).any())


def tag(
    storage: Storage,
    index: IndexSpec,
    keys: RecordKeySpec,
    incoming_keys: pa.Array,
    incoming_partitions: pa.Array,
    slices: Mapping[str, Sequence[FileSlice]],
) -> Tags:
    """Locates the incoming records among the latest file slices (`slices`: partition -> slices)."""
    if index.index_type == "BUCKET":
        return _tag_buckets(index, keys, incoming_keys, incoming_partitions, slices)
    files = [s for group in slices.values() for s in group if s.base_file_path is not None]
    if index.index_type in ("BLOOM", "GLOBAL_BLOOM"):
        by_partition = {}
        for partition in {s.partition_path for s in files}:
            mask = pc.equal(incoming_partitions, partition) if not index.is_global else None
            by_partition[partition] = incoming_keys if mask is None else incoming_keys.filter(mask)
        files = [
            s for s in files if _bloom_candidates(storage, s, by_partition[s.partition_path], index.prune_by_ranges)
        ]
    stored = [t for t in ordered_map(lambda s: _file_keys(storage, s, keys), files) if t.num_rows]
    if not stored:
        none = pa.nulls(len(incoming_keys), pa.string())
        return Tags(none, none)
    known = pa.concat_tables(stored)
    if index.is_global:
        position = pc.index_in(incoming_keys, value_set=known.column("key"))
    else:
        composite = pc.binary_join_element_wise(known.column("partition"), known.column("key"), "\x00")
        wanted = pc.binary_join_element_wise(incoming_partitions, incoming_keys, "\x00")
        position = pc.index_in(wanted, value_set=composite)
    return Tags(
        pc.take(known.column("file_id"), position).combine_chunks(),
        pc.take(known.column("partition"), position).combine_chunks(),
    )


def _tag_buckets(
    index: IndexSpec,
    keys: RecordKeySpec,
    incoming_keys: pa.Array,
    incoming_partitions: pa.Array,
    slices: Mapping[str, Sequence[FileSlice]],
) -> Tags:
    """Every record is routed to its bucket's file group; those not yet created are named now."""
    hash_fields = index.bucket_hash_fields or keys.fields
    buckets = bucket_ids(incoming_keys, hash_fields, index.bucket_count)
    existing = {partition: existing_buckets(group) for partition, group in slices.items()}
    partitions = incoming_partitions.to_pylist()
    file_ids = [
        existing.get(p, {}).get(int(b), bucket_file_id(int(b))) for p, b in zip(partitions, buckets, strict=True)
    ]
    return Tags(pa.array(file_ids, pa.string()), pa.array(partitions, pa.string()))
