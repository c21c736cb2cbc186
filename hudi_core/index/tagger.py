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

import numpy as np
import numpy.typing as npt
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


def stored_keys(storage: Storage, file_slice: FileSlice, keys: RecordKeySpec) -> pa.Array:
    """The record keys stored in a slice's base file (only the key columns are read)."""
    assert file_slice.base_file_path is not None
    columns = keys.source_columns
    schema = pa.schema([pa.field(c, pa.string() if c == RECORD_KEY else pa.null()) for c in columns])
    if not keys.from_meta_field:
        schema = open_parquet(storage, file_slice.base_file_path).schema_arrow
        schema = pa.schema([schema.field(c) for c in columns])
    table = read_parquet(storage, file_slice.base_file_path, schema).table
    stored = pc.cast(keys.keys(table), pa.string())
    return stored.combine_chunks() if isinstance(stored, pa.ChunkedArray) else stored


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
    # Each file is matched against the incoming keys that could be in it (its partition's, or all
    # of them under a global index), hashing the file's keys: no table-wide key set is built.
    count = len(incoming_keys)
    if index.is_global:
        rows_of = {s.partition_path: np.arange(count) for s in files}
    else:
        rows_of = _rows_by_value(incoming_partitions)

    def match(file_slice: FileSlice) -> npt.NDArray[np.int64]:
        rows = rows_of.get(file_slice.partition_path)
        if rows is None or len(rows) == 0:
            return np.empty(0, dtype=np.int64)
        wanted = incoming_keys.take(pa.array(rows))
        found = pc.is_in(wanted, value_set=stored_keys(storage, file_slice, keys))
        matched: npt.NDArray[np.int64] = rows[found.to_numpy(zero_copy_only=False)]
        return matched

    owner = np.full(count, -1, dtype=np.int64)
    for number, matched in enumerate(ordered_map(match, files)):
        fresh = matched[owner[matched] < 0]  # a key stored twice belongs to the first file listed
        owner[fresh] = number
    mask = pa.array(owner < 0)
    codes = pa.array(np.where(owner < 0, 0, owner), pa.int32())
    file_ids = pa.array([s.file_id for s in files] or [""], pa.string())
    partitions = pa.array([s.partition_path for s in files] or [""], pa.string())
    return Tags(
        pc.if_else(mask, pa.scalar(None, pa.string()), pc.take(file_ids, codes)),
        pc.if_else(mask, pa.scalar(None, pa.string()), pc.take(partitions, codes)),
    )


def _rows_by_value(values: pa.Array | pa.ChunkedArray) -> dict[str, npt.NDArray[np.int64]]:
    """Row indices per distinct value."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    groups: dict[str, npt.NDArray[np.int64]] = {}
    for rows in np.split(order, bounds):
        if len(rows) and codes[rows[0]] >= 0:
            groups[encoded.dictionary[int(codes[rows[0]])].as_py()] = rows.astype(np.int64)
    return groups


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
