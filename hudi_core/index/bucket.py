"""The bucket index (SIMPLE engine): a record's file group is `hash(key fields) % buckets`.

Hudi's `BucketIdentifier`: the hash is Java's `List<String>.hashCode()` of the hash-field values
(parsed out of a complex key `f1:v1,f2:v2`, or the whole key when it has no `:`), masked to a
non-negative int, modulo `hoodie.bucket.index.num.buckets`. A bucket's file id starts with its
8-digit number, so `int(file_id[:8])` recovers the bucket of an existing file group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.file_group import FileSlice

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


def bucket_ids(keys: pa.Array | pa.ChunkedArray, hash_fields: Sequence[str], num_buckets: int) -> npt.NDArray[np.int64]:
    """The bucket of every record key."""
    list_hash = np.ones(len(keys), dtype=np.int64)
    for values in _hash_key_values(keys, hash_fields):
        list_hash = (list_hash * 31 + java_string_hashes(values)) & _MASK32
    return (_to_int32(list_hash) & 0x7FFFFFFF) % num_buckets


def bucket_file_id(bucket: int) -> str:
    """The file id of a bucket's file group when a writer creates it (constant, so writers agree)."""
    return f"{bucket:08d}-0000-0000-0000-000000000000-0"


def existing_buckets(slices: Sequence[FileSlice]) -> dict[int, str]:
    """Bucket number -> file id of the file groups already in a partition."""
    found: dict[int, str] = {}
    for file_slice in slices:
        prefix = file_slice.file_id[:8]
        if prefix.isdigit():
            found.setdefault(int(prefix), file_slice.file_id)
    return found
