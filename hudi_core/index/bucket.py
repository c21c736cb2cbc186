"""The bucket index. SIMPLE engine: a record's file group is `hash(key fields) % buckets`
(CONSISTENT_HASHING: `hudi_core.index.consistent_hashing`).

Hudi's `BucketIdentifier`: the hash is Java's `List<String>.hashCode()` of the hash-field values
(parsed out of a complex key `f1:v1,f2:v2`, or the whole key when it has no `:`), masked to a
non-negative int, modulo `hoodie.bucket.index.num.buckets`. A bucket's file id starts with its
8-digit number, so `int(file_id[:8])` recovers the bucket of an existing file group; Hudi fails on
a file group whose id does not, and on two live file groups of one bucket.

New file groups: Hudi's Spark writer puts the bucket number in place of the first 8 characters of a
random UUID (`BucketIdentifier.newBucketFileIdPrefix`), also when insert_overwrite replaces a
bucket. Here the rest of the id numbers the bucket's generations, `%08d-0000-0000-0000-%012d-0`
(generation 0 is Hudi's constant non-blocking-concurrency id): a new file group takes the first
generation no live or replaced file group of its partition holds. A replaced id stays replaced for
every reader, so records written under it would be lost; and writers planning on one snapshot name
a bucket's new file group alike, so concurrent writers creating it conflict instead of creating two.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.write import CONSISTENT_HASHING, HudiIndexConfig
from hudi_core.errors import HudiConfigError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.fs_view import visible_instants
from hudi_core.index.consistent_hashing import HashingMetadata, hash_values, load_or_create_ring, replacing_refused
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline

_MASK32 = 0xFFFFFFFF


def _to_int32(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    wrapped = values & _MASK32
    return np.where(wrapped >= 2**31, wrapped - 2**32, wrapped)


def java_string_hashes(strings: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.int64]:
    """`String.hashCode()` of each value (null -> 0), computed over UTF-16 code units."""
    array = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    array = pc.cast(array, pa.string())
    count = len(array)
    result = np.zeros(count, dtype=np.int64)
    if count == 0:
        return result
    ascii_mask = pc.fill_null(pc.string_is_ascii(array), False).to_numpy(zero_copy_only=False)
    lengths = pc.fill_null(pc.binary_length(array), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32, count=count + 1, offset=array.offset * 4).astype(
        np.int64
    )
    data = (
        np.frombuffer(array.buffers()[2], dtype=np.uint8) if array.buffers()[2] is not None else np.zeros(0, np.uint8)
    )
    rows = np.nonzero(ascii_mask)[0]
    hashes = np.zeros(len(rows), dtype=np.int64)
    for position in range(int(lengths[rows].max()) if len(rows) else 0):
        active = lengths[rows] > position
        chars = data[offsets[rows[active]] + position].astype(np.int64)
        hashes[active] = (hashes[active] * 31 + chars) & _MASK32
    result[rows] = _to_int32(hashes)
    for row in np.nonzero(~ascii_mask & pc.is_valid(array).to_numpy(zero_copy_only=False))[0]:
        value = 0
        units = array[int(row)].as_py().encode("utf-16-be")
        for i in range(0, len(units), 2):
            value = (value * 31 + int.from_bytes(units[i : i + 2], "big")) & _MASK32
        result[row] = value - 2**32 if value >= 2**31 else value
    return result


def _hash_key_values(keys: pa.Array | pa.ChunkedArray, hash_fields: Sequence[str]) -> list[pa.Array]:
    """Per hash field, the value Hudi hashes: parsed from `f:v` parts, or the key itself."""
    keys = pc.cast(keys, pa.string())
    complex_key = pc.match_substring(keys, ":")
    if not pc.any(complex_key).as_py():
        return [keys]
    values = []
    for field in hash_fields:
        extracted = pc.struct_field(pc.extract_regex(keys, pattern=rf"(?:^|,){field}:(?P<v>[^,]*)"), "v")
        values.append(
            pc.if_else(complex_key, extracted, keys if len(hash_fields) == 1 else pa.scalar(None, pa.string()))
        )
    return values


def _bucket_numbers(hash_keys: Sequence[pa.Array | pa.ChunkedArray], num_buckets: int) -> npt.NDArray[np.int64]:
    list_hash = np.ones(len(hash_keys[0]), dtype=np.int64)
    for values in hash_keys:
        list_hash = (list_hash * 31 + java_string_hashes(values)) & _MASK32
    return (_to_int32(list_hash) & 0x7FFFFFFF) % num_buckets


def bucket_ids(keys: pa.Array | pa.ChunkedArray, hash_fields: Sequence[str], num_buckets: int) -> npt.NDArray[np.int64]:
    """The bucket of every record key (SIMPLE engine)."""
    return _bucket_numbers(_hash_key_values(keys, hash_fields), num_buckets)


def bucket_file_id(bucket: int, generation: int = 0) -> str:
    """The file id of a bucket's file group of the given generation (see module docstring)."""
    return f"{bucket:08d}-0000-0000-0000-{generation:012d}-0"


def bucket_of(file_id: str) -> int | None:
    """The bucket a file group's id names (None when it names none)."""
    prefix = file_id[:8]
    return int(prefix) if len(prefix) == 8 and prefix.isdigit() else None


@dataclass(frozen=True)
class PartitionBuckets:
    """One partition's bucket file groups (SIMPLE engine).

    Attributes:
        num_buckets: the partition's buckets.
        live: bucket -> file id of its live file group.
        taken: file ids of the partition's live and replaced file groups.
    """

    num_buckets: int
    live: Mapping[int, str]
    taken: frozenset[str]

    def file_id(self, bucket: int, fresh: bool) -> str:
        """The file group records of `bucket` go to: the live one, or (`fresh`, for a write that
        replaces the live ones, or with none) the first generation not taken."""
        if not fresh and bucket in self.live:
            return self.live[bucket]
        generation = 0
        while bucket_file_id(bucket, generation) in self.taken:
            generation += 1
        return bucket_file_id(bucket, generation)

    def file_ids(self, hash_keys: Sequence[pa.Array], fresh: bool) -> list[str]:
        """The file group of each record, from its hash-field values (see `_hash_key_values`)."""
        named: dict[int, str] = {}
        return [
            named[b] if b in named else named.setdefault(b, self.file_id(b, fresh))
            for b in _bucket_numbers(hash_keys, self.num_buckets).tolist()
        ]


@dataclass(frozen=True)
class PartitionRing:
    """One partition's buckets under the CONSISTENT_HASHING engine: its committed hash ring."""

    ring: HashingMetadata

    def file_ids(self, hash_keys: Sequence[pa.Array], fresh: bool) -> list[str]:
        if fresh:
            raise replacing_refused()
        return self.ring.file_ids(hash_values(hash_keys))


PartitionBucketing = PartitionBuckets | PartitionRing


def _no_bucket(partition: str, file_id: str, what: str) -> HudiConfigError:
    return HudiConfigError(
        f"{HudiIndexConfig.INDEX_TYPE.key}=BUCKET, but file group {file_id!r} of partition {partition!r} "
        "names no bucket of "
        f"{what}: the partition was not written with this bucket index"
    )


def partition_buckets(
    partition: str, slices: Sequence[FileSlice], num_buckets: int, replaced: Iterable[str] = ()
) -> PartitionBuckets:
    """The bucket file groups of a partition from its latest slices and replaced file ids.

    Raises:
        HudiConfigError: a live file group's id names no bucket (of `num_buckets`), or two name the
            same bucket: the partition was not written with this bucket index, whose records would
            miss their stored copies.
    """
    live: dict[int, str] = {}
    for file_slice in slices:
        bucket = bucket_of(file_slice.file_id)
        if bucket is None or bucket >= num_buckets:
            raise _no_bucket(partition, file_slice.file_id, f"{HudiIndexConfig.BUCKET_NUM.key}={num_buckets}")
        if bucket in live:
            raise HudiConfigError(
                f"{HudiIndexConfig.INDEX_TYPE.key}=BUCKET, but partition {partition!r} holds two file groups of "
                f"bucket {bucket} "
                f"({live[bucket]!r} and {file_slice.file_id!r})"
            )
        live[bucket] = file_slice.file_id
    return PartitionBuckets(num_buckets, live, frozenset(live.values()) | frozenset(replaced))


def partition_ring(
    storage: Storage, partition: str, slices: Sequence[FileSlice], timeline: Timeline, num_buckets: int
) -> PartitionRing:
    """The partition's committed hash ring (created with `num_buckets` buckets when it has none).

    Raises:
        HudiConfigError: a live file group is no node of the ring.
    """
    ring = load_or_create_ring(storage, partition, timeline, num_buckets, {s.file_id for s in slices})
    nodes = {n.file_id for n in ring.nodes}
    for file_slice in slices:
        if file_slice.file_id not in nodes:
            raise _no_bucket(partition, file_slice.file_id, f"its consistent-hashing ring (instant {ring.instant})")
    return PartitionRing(ring)


def bucket_layout(
    storage: Storage,
    partitions: Iterable[str],
    slices: Mapping[str, Sequence[FileSlice]],
    timeline: Timeline,
    num_buckets: int,
    engine: str = "SIMPLE",
    fresh: bool = False,
) -> dict[str, PartitionBucketing]:
    """The bucket file groups of `partitions`: `slices` holds their latest slices, the replacecommits
    of `timeline` name their replaced file groups; `engine` is `hoodie.index.bucket.engine`; `fresh`:
    for a write that replaces the partitions' file groups (refused by rings, before any is created)."""
    if engine == CONSISTENT_HASHING:
        if fresh:
            raise replacing_refused()
        return {p: partition_ring(storage, p, slices.get(p, ()), timeline, num_buckets) for p in partitions}
    replaced_in: dict[str, set[str]] = {}
    for partition, file_id in visible_instants(timeline, timeline.completed_data_instants(), None).replaced:
        replaced_in.setdefault(partition, set()).add(file_id)
    return {p: partition_buckets(p, slices.get(p, ()), num_buckets, replaced_in.get(p, ())) for p in partitions}


def bucket_targets(
    keys: pa.Array | pa.ChunkedArray,
    partitions: pa.Array | pa.ChunkedArray,
    hash_fields: Sequence[str],
    layout: Mapping[str, PartitionBucketing],
    fresh: bool = False,
) -> pa.Array:
    """The file group of every record (`layout` holds each record's partition; `fresh`: see
    `PartitionBuckets.file_id`)."""
    hash_keys = [
        v.combine_chunks() if isinstance(v, pa.ChunkedArray) else v for v in _hash_key_values(keys, hash_fields)
    ]
    partitions = pc.cast(partitions, pa.string())
    targets: list[str | None] = [None] * len(partitions)
    for partition in pc.unique(partitions).to_pylist():
        rows = pc.indices_nonzero(pc.equal(partitions, partition))
        file_ids = layout[partition].file_ids([v.take(rows) for v in hash_keys], fresh)
        for row, file_id in zip(rows.to_pylist(), file_ids, strict=True):
            targets[row] = file_id
    return pa.array(targets, pa.string())
