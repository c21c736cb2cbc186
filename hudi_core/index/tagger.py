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
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.write import HudiIndexConfig
from hudi_core.errors import HudiConfigError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.bloom_filter import BloomFilter
from hudi_core.file_group.base_file.parquet import open_parquet, read_parquet
from hudi_core.index.bucket import bucket_layout, bucket_targets
from hudi_core.index.record_index import RecordIndexLookup
from hudi_core.keygen import RecordKeySpec
from hudi_core.metadata.keys import bloom_filter_key
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import KeyFilter
from hudi_core.parallel import ordered_map
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage
from hudi_core.table.listing import metadata_index_reader
from hudi_core.timeline import Timeline

_ABSENT = -2  # match(): the key is not in the file
_SEVERAL_COPIES = -1  # match(): the file holds the key more than once (no single position)

INDEX_TYPES = ("SIMPLE", "BLOOM", "BUCKET", "GLOBAL_SIMPLE", "GLOBAL_BLOOM", "RECORD_INDEX")


@dataclass(frozen=True)
class IndexSpec:
    """The configured index.

    Attributes:
        index_type: one of INDEX_TYPES.
        update_partition_path: global indexes: move a record whose partition changed.
        bucket_count: BUCKET: buckets per partition (CONSISTENT_HASHING: of a partition's initial ring).
        bucket_engine: BUCKET: `hoodie.index.bucket.engine`, SIMPLE or CONSISTENT_HASHING.
        bucket_hash_fields: BUCKET: the fields hashed (default: the record key fields).
        prune_by_ranges: BLOOM: skip files whose key range excludes the key.
    """

    index_type: str
    update_partition_path: bool = True
    bucket_count: int = 256
    bucket_engine: str = "SIMPLE"
    bucket_hash_fields: tuple[str, ...] = ()
    prune_by_ranges: bool = True

    def __post_init__(self) -> None:
        if self.index_type not in INDEX_TYPES:
            raise HudiConfigError(
                f"{HudiIndexConfig.INDEX_TYPE.key}={self.index_type} is not supported ({', '.join(INDEX_TYPES)})"
            )

    @property
    def is_global(self) -> bool:
        """Keys are unique across partitions (the record index is global, as in Hudi)."""
        return self.index_type.startswith("GLOBAL_") or self.index_type == "RECORD_INDEX"


@dataclass(frozen=True)
class Tags:
    """Per incoming record: its file group (null when new) and the partition holding it; for
    records whose key changes partition, the stored record's ordering value when it was looked up
    (`hudi_core.index.partition_moves`; null: not looked up, or not stored); and when the lookup
    read the base files' keys, the record's row in the base file of the latest slice it was found
    in (Hudi's record positions; null when new, or when that file holds the key more than once)."""

    file_ids: pa.Array
    partitions: pa.Array
    stored_ordering: pa.Array | None = None
    base_positions: pa.Array | None = None


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


def footer_key_range(storage: Storage, file_slice: FileSlice) -> tuple[str | None, str | None]:
    """The (min, max) record keys a base file's footer records (None where it records none)."""
    assert file_slice.base_file_path is not None
    footer = open_parquet(storage, file_slice.base_file_path).metadata.metadata or {}
    low, high = footer.get(b"hoodie_min_record_key"), footer.get(b"hoodie_max_record_key")
    return (low.decode() if low is not None else None, high.decode() if high is not None else None)


def bloom_candidates(
    storage: Storage, file_slice: FileSlice, incoming: pa.Array, prune_by_ranges: bool, stored: BloomFilter | None
) -> pa.Array:
    """The incoming keys that may be in this base file, by its footer key range and bloom filter.

    `stored` is the file's filter from the metadata table's `bloom_filters`: no footer is read then.
    """
    assert file_slice.base_file_path is not None
    if stored is not None:
        return incoming.filter(pa.array(stored.might_contain(incoming))) if len(incoming) else incoming
    footer = open_parquet(storage, file_slice.base_file_path).metadata.metadata or {}
    candidates = incoming
    low, high = footer.get(b"hoodie_min_record_key"), footer.get(b"hoodie_max_record_key")
    if prune_by_ranges and low is not None and high is not None:
        in_range = pc.and_(pc.greater_equal(candidates, low.decode()), pc.less_equal(candidates, high.decode()))
        candidates = candidates.filter(in_range)
    serialized = footer.get(b"org.apache.hudi.bloomfilter")
    if serialized is None or len(candidates) == 0:
        return candidates
    filter_type = footer.get(b"hoodie_bloom_filter_type_code", b"SIMPLE").decode()
    bloom = BloomFilter.deserialize(serialized.decode(), filter_type)
    return candidates.filter(pa.array(bloom.might_contain(candidates)))


def keys_found(storage: Storage, file_slice: FileSlice, keys: RecordKeySpec, wanted: pa.Array) -> pa.Array:
    """The distinct `wanted` keys the slice's base file holds."""
    distinct = pc.unique(wanted)
    stored = stored_keys(storage, file_slice, keys)
    return pc.unique(stored.filter(pc.is_in(stored, value_set=distinct)))


def tag(
    storage: Storage,
    index: IndexSpec,
    keys: RecordKeySpec,
    incoming_keys: pa.Array,
    incoming_partitions: pa.Array,
    slices: Mapping[str, Sequence[FileSlice]],
    timeline: Timeline,
) -> Tags:
    """Locates the incoming records among the latest file slices (`slices`: partition -> slices) of
    the snapshot `timeline`."""
    if index.index_type == "BUCKET":
        return tag_buckets(storage, index, keys, incoming_keys, incoming_partitions, slices, timeline)
    if index.index_type == "RECORD_INDEX":
        tags = tag_by_record_index(storage, incoming_keys, slices, timeline)
        if tags is not None:
            return tags
        # the record index is built by this write's commit: until then keys are looked up in files
        index = replace(index, index_type="GLOBAL_SIMPLE")
    files = [s for group in slices.values() for s in group if s.base_file_path is not None]
    if index.index_type in ("BLOOM", "GLOBAL_BLOOM"):
        by_partition = {}
        for partition in {s.partition_path for s in files}:
            mask = pc.equal(incoming_partitions, partition) if not index.is_global else None
            by_partition[partition] = incoming_keys if mask is None else incoming_keys.filter(mask)
        stored = metadata_bloom_filters(storage, files, timeline)
        files = [
            s
            for s in files
            if len(
                bloom_candidates(
                    storage,
                    s,
                    by_partition[s.partition_path],
                    index.prune_by_ranges,
                    stored.get(s.base_file_path or ""),
                )
            )
        ]
    # Each file is matched against the incoming keys that could be in it (its partition's, or all
    # of them under a global index), probing the file's keys into a table of the (few) distinct
    # incoming ones: no table-wide key set is built, and no stored key is hashed twice.
    count = len(incoming_keys)
    if index.is_global:
        everything = _IncomingKeys.of(incoming_keys, None)
        incoming_of = {s.partition_path: everything for s in files}
    else:
        incoming_of = {
            p: _IncomingKeys.of(incoming_keys, rows) for p, rows in rows_by_value(incoming_partitions).items()
        }

    def match(file_slice: FileSlice) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(incoming rows found in the slice's base file, the key's row there, or -1 for a key the
        file holds more than once: a record position must name the only row of its key)."""
        incoming = incoming_of.get(file_slice.partition_path)
        if incoming is None:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        return incoming.found_in(stored_keys(storage, file_slice, keys))

    owner = np.full(count, -1, dtype=np.int64)
    base_rows = np.full(count, _SEVERAL_COPIES, dtype=np.int64)
    for number, (matched, at) in enumerate(ordered_map(match, files)):
        fresh = owner[matched] < 0  # a key stored twice belongs to the first file listed
        owner[matched[fresh]] = number
        base_rows[matched[fresh]] = at[fresh]
    new = owner < 0
    mask = pa.array(new)
    codes = pa.array(np.where(new, 0, owner), pa.int32())
    file_ids = pa.array([s.file_id for s in files] or [""], pa.string())
    partitions = pa.array([s.partition_path for s in files] or [""], pa.string())
    return Tags(
        pc.if_else(mask, pa.scalar(None, pa.string()), pc.take(file_ids, codes)),
        pc.if_else(mask, pa.scalar(None, pa.string()), pc.take(partitions, codes)),
        base_positions=pa.array(base_rows, mask=base_rows < 0),
    )


@dataclass(frozen=True)
class _IncomingKeys:
    """The incoming keys one or more files are matched against: their rows in the batch, their
    distinct values, and each row's code among those."""

    rows: npt.NDArray[np.int64]
    distinct: pa.Array
    codes: npt.NDArray[np.int64]

    @classmethod
    def of(cls, keys: pa.Array, rows: npt.NDArray[np.int64] | None) -> _IncomingKeys:
        """The keys at `rows` of `keys` (None: all of them)."""
        wanted = keys if rows is None else keys.take(pa.array(rows))
        distinct = pc.unique(wanted)
        codes = np.asarray(pc.index_in(wanted, value_set=distinct).to_numpy(), dtype=np.int64)
        return cls(np.arange(len(keys), dtype=np.int64) if rows is None else rows, distinct, codes)

    def found_in(self, stored: pa.Array) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(rows whose key `stored` holds, the key's position in `stored`, or -1 when it holds the
        key more than once)."""
        probe = pc.index_in(stored, value_set=self.distinct)
        if probe.null_count == len(probe):
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        positions = np.flatnonzero(probe.is_valid().to_numpy(zero_copy_only=False))
        found, first, copies = np.unique(probe.drop_null().to_numpy(), return_index=True, return_counts=True)
        position_of = np.full(len(self.distinct), _ABSENT, dtype=np.int64)
        position_of[found] = np.where(copies == 1, positions[first], _SEVERAL_COPIES)
        at = position_of[self.codes]
        hit = at != _ABSENT
        return self.rows[hit], at[hit]


def rows_by_value(values: pa.Array | pa.ChunkedArray) -> dict[str, npt.NDArray[np.int64]]:
    """Row indices per distinct (non-null) value."""
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


def tag_buckets(
    storage: Storage,
    index: IndexSpec,
    keys: RecordKeySpec,
    incoming_keys: pa.Array,
    incoming_partitions: pa.Array,
    slices: Mapping[str, Sequence[FileSlice]],
    timeline: Timeline,
    fresh: bool = False,
) -> Tags:
    """Every record is routed to its bucket's file group; those not yet created are named now
    (`fresh`: new ones for every bucket, for writes that replace the partitions' file groups)."""
    partitions = pc.cast(incoming_partitions, pa.string())
    written = pc.unique(partitions).to_pylist()
    layout = bucket_layout(storage, written, slices, timeline, index.bucket_count, index.bucket_engine, fresh)
    hash_fields = index.bucket_hash_fields or keys.fields
    targets = bucket_targets(incoming_keys, partitions, hash_fields, layout, fresh)
    return Tags(targets, partitions.combine_chunks() if isinstance(partitions, pa.ChunkedArray) else partitions)


def tag_by_record_index(
    storage: Storage, incoming_keys: pa.Array, slices: Mapping[str, Sequence[FileSlice]], timeline: Timeline
) -> Tags | None:
    """Locations from the metadata table's `record_index` (`RecordIndexLookup`): no data file is
    read, and of the index only the shards the keys fall in. None when the table has no published
    record index yet."""
    lookup = RecordIndexLookup.of(storage, slices, timeline)
    if lookup is None:
        return None
    keys = incoming_keys.combine_chunks() if isinstance(incoming_keys, pa.ChunkedArray) else incoming_keys
    file_ids, partitions = lookup.locate(keys)
    return Tags(file_ids, partitions)


def metadata_bloom_filters(storage: Storage, files: Sequence[FileSlice], timeline: Timeline) -> dict[str, BloomFilter]:
    """Base file path -> bloom filter, from the metadata table's `bloom_filters` when it keeps them."""
    reader = metadata_index_reader(storage, MetadataPartition.BLOOM_FILTERS, timeline)
    if reader is None:
        return {}
    wanted = {bloom_filter_key(s.partition_path, s.base_file): s for s in files if s.base_file}
    found = reader.records(MetadataPartition.BLOOM_FILTERS, KeyFilter(keys=frozenset(wanted)))
    filters: dict[str, BloomFilter] = {}
    for key, record in found.items():
        bloom = record.get("BloomFilterMetadata") or {}
        path = wanted[key].base_file_path
        if bloom.get("bloomFilter") and path is not None:
            filters[path] = BloomFilter.deserialize(
                bytes(bloom["bloomFilter"]).decode(), bloom.get("type") or "DYNAMIC_V0"
            )
    return filters
