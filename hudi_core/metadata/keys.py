"""Metadata-table record keys and their file groups (notes §5.2).

Statistics keys are Base64 hashes: `xxh64(column) + xxh64(partition) + md5(file name)` for
column stats, `xxh64(partition) + md5(file name)` for bloom filters, `xxh64(column) +
xxh64(partition)` for partition stats. XXHash64 uses Hudi's seed (the Java int 0xdabadaba
sign-extended) and is written big-endian. A key's file group is Java's `String.hashCode` modulo
the partition's file-group count (`HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex`).
"""

from __future__ import annotations

import base64
import hashlib

import numpy as np
import pyarrow as pa
import xxhash

from hudi_core.metadata.record import partition_name

XXHASH_SEED = 0xFFFFFFFFDABADABA


def _xxh64(text: str) -> str:
    digest = xxhash.xxh64_digest(text.encode("utf-8"), seed=XXHASH_SEED)
    return base64.b64encode(digest).decode("ascii")


def _md5(text: str) -> str:
    return base64.b64encode(hashlib.md5(text.encode("utf-8")).digest()).decode("ascii")


def column_stats_key(column: str, partition: str, file_name: str) -> str:
    return _xxh64(column) + _xxh64(partition_name(partition)) + _md5(file_name)


def column_prefix(column: str) -> str:
    """The key prefix shared by every statistics entry of one column."""
    return _xxh64(column)


def bloom_filter_key(partition: str, file_name: str) -> str:
    return _xxh64(partition_name(partition)) + _md5(file_name)


def partition_stats_key(column: str, partition: str) -> str:
    return _xxh64(column) + _xxh64(partition_name(partition))


def java_string_hash(key: str) -> int:
    """Java's `String.hashCode` (over UTF-16 code units, 32-bit signed)."""
    units = key.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return h - 2**32 if h >= 2**31 else h


def file_group_index(key: str, count: int) -> int:
    """The file group (0-based) of a metadata-table partition holding `key`."""
    # Java: Math.abs(Math.abs(h) % n); for Integer.MIN_VALUE both signs give the same remainder.
    return abs(java_string_hash(key)) % count


def file_group_indexes(keys: pa.Array, count: int) -> np.ndarray:
    """`file_group_index` of many keys at once (vectorized over ASCII keys)."""
    keys = keys.cast(pa.large_string()) if not pa.types.is_large_string(keys.type) else keys
    if keys.null_count:
        raise ValueError("null record keys cannot be indexed")
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int64)[keys.offset : keys.offset + len(keys) + 1]
    data = np.frombuffer(keys.buffers()[2], dtype=np.uint8) if keys.buffers()[2] is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    h = np.zeros(len(keys), dtype=np.uint32)
    for position in range(int(lengths.max()) if len(lengths) else 0):
        active = lengths > position
        chars = data[offsets[:-1][active] + position].astype(np.uint32)
        h[active] = h[active] * np.uint32(31) + chars
    signed = h.astype(np.int64)
    signed[signed >= 2**31] -= 2**32
    result = np.abs(signed) % count
    non_ascii = np.flatnonzero(
        np.maximum.reduceat(data, offsets[:-1].clip(max=max(len(data) - 1, 0))) >= 0x80
        if len(data)
        else np.zeros(0, dtype=bool)
    )
    for row in non_ascii:
        result[row] = file_group_index(keys[int(row)].as_py(), count)
    return result
