"""The bucket index's CONSISTENT_HASHING engine: each partition's buckets are ranges of a hash ring.

Hudi's `ConsistentBucketIdentifier`: a record's hash is the xxHash32 (seed 0) of its hash-field
values joined without separator, masked to a non-negative int; its bucket is the first ring node
whose value is at least the hash (wrapping to the first node). A node's file group is
`<fileIdPrefix>-0`.

The ring of a partition is its latest *committed* hashing metadata file,
`.hoodie/.bucket_index/consistent_hashing_metadata/<partition>/<instant>.hashing_meta` (Jackson
JSON): the initial one (instant `00000000000000`, deterministic content), one with a
`<instant>.commit` marker, or one whose instant completed on the timeline (a resize is a clustering
replacecommit that writes metadata at its instant). A partition without metadata gets the initial
ring of `hoodie.bucket.index.num.buckets` equal ranges, whose file id prefixes are name-based UUIDs
of the partition and the range, so every writer creating it writes the same file.

Resizing (splitting and merging buckets by clustering) is Apache Hudi's; a partition with a resize
in flight is refused.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import uuid
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import xxhash

from hudi_core.config.write import HudiIndexConfig
from hudi_core.errors import HudiConfigError, UnsupportedFeatureError
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline

HASHING_METADATA_DIR = ".hoodie/.bucket_index/consistent_hashing_metadata"
METADATA_SUFFIX = ".hashing_meta"
COMMIT_SUFFIX = ".commit"
INITIAL_INSTANT = "00000000000000"
HASH_VALUE_MASK = 0x7FFFFFFF
NORMAL = "NORMAL"


@dataclass(frozen=True)
class HashingNode:
    """A ring node: the upper end (inclusive) of its hash range and its file group's id prefix."""

    value: int
    file_id_prefix: str
    tag: str = NORMAL

    @property
    def file_id(self) -> str:
        return f"{self.file_id_prefix}-0"


def _name_uuid(partition: str, start: int, end: int) -> str:
    """Java's `UUID.nameUUIDFromBytes(start (8 bytes) + end (8 bytes) + partition UTF-8)`."""
    digest = hashlib.md5(start.to_bytes(8, "big") + end.to_bytes(8, "big") + partition.encode()).digest()
    return str(uuid.UUID(bytes=digest, version=3))


@dataclass(frozen=True)
class HashingMetadata:
    """One partition's hash ring, as `HoodieConsistentHashingMetadata` stores it."""

    partition: str
    instant: str
    num_buckets: int
    seq_no: int
    nodes: tuple[HashingNode, ...]
    version: int = 0

    @classmethod
    def initial(cls, partition: str, num_buckets: int) -> HashingMetadata:
        """`num_buckets` equal ranges over [0, HASH_VALUE_MASK], the last ending at the mask."""
        step = (HASH_VALUE_MASK + num_buckets - 1) // num_buckets
        nodes, start = [], 0
        for index in range(1, num_buckets + 1):
            end = min(step * index, HASH_VALUE_MASK)
            nodes.append(HashingNode(end, _name_uuid(partition, start, end)))
            start = end
        return cls(partition, INITIAL_INSTANT, num_buckets, 0, tuple(nodes))

    @classmethod
    def from_json(cls, data: bytes, where: str) -> HashingMetadata:
        try:
            raw = json.loads(data)
            nodes = tuple(HashingNode(int(n["value"]), str(n["fileIdPrefix"]), str(n["tag"])) for n in raw["nodes"])
            metadata = cls(
                str(raw["partitionPath"]),
                str(raw["instant"]),
                int(raw["numBuckets"]),
                int(raw["seqNo"]),
                nodes,
                int(raw.get("version", 0)),
            )
        except (ValueError, KeyError, TypeError) as e:
            raise HudiConfigError(f"malformed consistent-hashing metadata {where}: {e}") from e
        if not nodes or any(n.tag != NORMAL for n in nodes):
            raise HudiConfigError(f"consistent-hashing metadata {where} holds no ring of NORMAL nodes")
        return metadata

    def to_json(self) -> bytes:
        """Jackson's default pretty printer, as Hudi writes the file."""
        nodes = ", ".join(
            "{\n"
            f'    "value" : {n.value},\n'
            f'    "fileIdPrefix" : {json.dumps(n.file_id_prefix)},\n'
            f'    "tag" : {json.dumps(n.tag)}\n'
            "  }"
            for n in self.nodes
        )
        return (
            "{\n"
            f'  "version" : {self.version},\n'
            f'  "partitionPath" : {json.dumps(self.partition, ensure_ascii=False)},\n'
            f'  "instant" : {json.dumps(self.instant)},\n'
            f'  "numBuckets" : {self.num_buckets},\n'
            f'  "seqNo" : {self.seq_no},\n'
            f'  "nodes" : [ {nodes} ]\n'
            "}"
        ).encode()

    def file_ids(self, hash_values: npt.NDArray[np.int64]) -> list[str]:
        """The file group of each (masked) hash value: the first node at or above it, wrapping."""
        ring = sorted(self.nodes, key=lambda n: n.value)
        positions = np.searchsorted(np.array([n.value for n in ring], dtype=np.int64), hash_values, side="left")
        positions[positions == len(ring)] = 0
        file_ids = [n.file_id for n in ring]
        return [file_ids[p] for p in positions.tolist()]


def hash_values(hash_keys: Sequence[pa.Array]) -> npt.NDArray[np.int64]:
    """Per record, the xxHash32 of its hash-field values joined without separator, masked."""
    joined = hash_keys[0] if len(hash_keys) == 1 else pc.binary_join_element_wise(*hash_keys, "")
    strings = joined.to_pylist()
    return np.fromiter(
        (xxhash.xxh32_intdigest((s or "").encode()) & HASH_VALUE_MASK for s in strings), np.int64, len(strings)
    )


def metadata_dir(partition: str) -> str:
    return posixpath.join(HASHING_METADATA_DIR, partition) if partition else HASHING_METADATA_DIR


def replacing_refused() -> UnsupportedFeatureError:
    """The error of a write that would replace file groups a ring names."""
    return UnsupportedFeatureError(
        "writes that replace file groups (insert_overwrite, delete_partition) are not supported with "
        f"{HudiIndexConfig.BUCKET_ENGINE.key}=CONSISTENT_HASHING: the ring names each bucket's one file group"
    )


def refuse_replacing_rings(storage: Storage, partitions: Iterable[str]) -> None:
    """Refuses replacing the file groups of partitions that have hashing metadata, whatever index the
    write names: the next consistent-hashing write would follow the ring into the replaced file
    groups, where its records are invisible.

    Raises:
        UnsupportedFeatureError: one of `partitions` has a ring.
    """
    if not storage.list_dir(HASHING_METADATA_DIR):
        return  # no ring anywhere: one listing, not one per partition
    for partition in partitions:
        if any(e.name.endswith(METADATA_SUFFIX) for e in storage.list_dir(metadata_dir(partition))):
            raise replacing_refused()


def load_ring(
    storage: Storage, partition: str, timeline: Timeline, live_file_ids: Collection[str] = ()
) -> HashingMetadata | None:
    """The partition's latest committed hashing metadata (None when it has none).

    Metadata newer than the latest committed file is Apache Hudi's `ConsistentBucketIndexUtils`
    case: a resize whose instant is still pending is refused; one whose instant the timeline no
    longer knows counts when one of its file groups is live (the resize completed, its marker was
    lost), and is ignored otherwise (a resize rolled back or abandoned).

    Raises:
        UnsupportedFeatureError: a resize of the partition is pending.
    """
    directory = metadata_dir(partition)
    names = {e.name for e in storage.list_dir(directory) if not e.is_dir}
    instants = sorted(n[: -len(METADATA_SUFFIX)] for n in names if n.endswith(METADATA_SUFFIX))
    completed = {i.requested_time for i in timeline.completed()}
    pending = {i.requested_time for i in timeline.pending()}
    committed = [i for i in instants if i == INITIAL_INSTANT or f"{i}{COMMIT_SUFFIX}" in names or i in completed]
    if not committed:
        return None
    latest = _read(storage, directory, committed[-1])
    for instant in (i for i in instants if i > latest.instant):
        if instant in pending:
            raise UnsupportedFeatureError(
                f"partition {partition!r} is being resized by the pending instant {instant} (its consistent-hashing "
                f"metadata {instant}{METADATA_SUFFIX}); complete or roll it back with Apache Hudi before writing"
            )
        candidate = _read(storage, directory, instant)
        if any(n.file_id in live_file_ids for n in candidate.nodes):
            latest = candidate
    return latest


def _read(storage: Storage, directory: str, instant: str) -> HashingMetadata:
    path = posixpath.join(directory, f"{instant}{METADATA_SUFFIX}")
    return HashingMetadata.from_json(storage.read_bytes(path), storage.full_path(path))


def load_or_create_ring(
    storage: Storage, partition: str, timeline: Timeline, num_buckets: int, live_file_ids: Collection[str] = ()
) -> HashingMetadata:
    """The partition's committed ring (see `load_ring`), or its initial ring, written now (its content
    is the same for every writer, so concurrent creators agree)."""
    ring = load_ring(storage, partition, timeline, live_file_ids)
    if ring is not None:
        return ring
    ring = HashingMetadata.initial(partition, num_buckets)
    storage.create_exclusive(
        posixpath.join(metadata_dir(partition), f"{INITIAL_INSTANT}{METADATA_SUFFIX}"), ring.to_json()
    )
    return ring
