"""Record positions of a log block: the `RECORD_POSITIONS` header.

Hudi 1.x writers record, for a block of updates or deletes, the row positions in the base file
the records replace, so readers can merge by position instead of by key. The header is the
base64 of a 64-bit Roaring bitmap in its portable serialization: a little-endian uint64 count of
32-bit buckets, then per bucket the uint32 high bits and a 32-bit Roaring bitmap in the standard
portable format (cookie, container keys and cardinalities, offsets, then array, bitmap or run
containers). The positions apply to the base file written by the instant in
`BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS`, to the block's records in ascending order.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import struct

import numpy as np
import numpy.typing as npt

from hudi_core.errors import FileFormatError

_COOKIE_NO_RUNS = 12346  # 32-bit cookie: no run containers, offsets always present
_COOKIE_RUNS = 12347  # 16-bit cookie plus (container count - 1); run containers flagged in a bitset
_NO_OFFSET_THRESHOLD = 4  # with run containers, offsets are present from this many containers on
_ARRAY_MAX = 4096  # containers with at most this many values are arrays (else 8 KiB bitmaps)

Positions = npt.NDArray[np.int64]


def decode_record_positions(header: str) -> Positions:
    """The sorted positions a `RECORD_POSITIONS` header holds.

    Raises:
        FileFormatError: the header is not a portable 64-bit Roaring bitmap.
    """
    try:
        data = base64.b64decode(header, validate=True)
        return _decode_roaring64(memoryview(data))
    except (binascii.Error, struct.error, ValueError, IndexError) as exc:
        raise FileFormatError(f"unreadable RECORD_POSITIONS header: {exc}") from exc


def encode_record_positions(positions: Positions) -> str:
    """The `RECORD_POSITIONS` header of ascending, unique, non-negative `positions` (array and
    bitmap containers, no run containers: every Roaring reader accepts them)."""
    values = np.asarray(positions, dtype=np.int64)
    if len(values) and (values[0] < 0 or bool(np.any(np.diff(values) <= 0))):
        raise ValueError("record positions must be ascending, unique and non-negative")
    highs = (values >> np.int64(32)).astype(np.uint32)
    parts = []
    bucket_highs, bucket_starts = np.unique(highs, return_index=True)
    bounds = [*bucket_starts.tolist(), len(values)]
    for high, start, end in zip(bucket_highs.tolist(), bounds[:-1], bounds[1:], strict=True):
        parts.append(struct.pack("<I", high) + _encode_roaring32((values[start:end] & 0xFFFFFFFF).astype(np.uint32)))
    return base64.b64encode(struct.pack("<Q", len(parts)) + b"".join(parts)).decode("ascii")


def _encode_roaring32(values: npt.NDArray[np.uint32]) -> bytes:
    keys, starts = np.unique(values >> np.uint32(16), return_index=True)
    bounds = [*starts.tolist(), len(values)]
    containers = []
    for start, end in itertools.pairwise(bounds):
        low = (values[start:end] & 0xFFFF).astype(np.uint16)
        if len(low) <= _ARRAY_MAX:
            containers.append(low.astype("<u2").tobytes())
        else:
            bits = np.zeros(1 << 16, dtype=np.uint8)
            bits[low] = 1
            containers.append(np.packbits(bits, bitorder="little").tobytes())
    count = len(containers)
    headers = np.empty((count, 2), dtype="<u2")
    headers[:, 0] = keys
    headers[:, 1] = np.diff(np.asarray(bounds)) - 1
    first = 8 + 8 * count  # cookie, count, key/cardinality pairs, offsets
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in containers])[:-1]]).astype("<u4") + first
    return (
        struct.pack("<II", _COOKIE_NO_RUNS, count)
        + headers.tobytes()
        + offsets.astype("<u4").tobytes()
        + b"".join(containers)
    )


def _decode_roaring64(data: memoryview) -> Positions:
    (buckets,) = struct.unpack_from("<Q", data, 0)
    offset = 8
    parts = []
    for _ in range(buckets):
        (high,) = struct.unpack_from("<I", data, offset)
        low, offset = _decode_roaring32(data, offset + 4)
        parts.append((np.int64(high) << np.int64(32)) | low.astype(np.int64))
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def _decode_roaring32(data: memoryview, start: int) -> tuple[npt.NDArray[np.uint32], int]:
    """The values of one 32-bit portable Roaring bitmap at `start`, and the offset after it."""
    (cookie,) = struct.unpack_from("<I", data, start)
    offset = start + 4
    runs: bytes | None = None
    if cookie == _COOKIE_NO_RUNS:
        (count,) = struct.unpack_from("<I", data, offset)
        offset += 4
        has_offsets = True
    elif cookie & 0xFFFF == _COOKIE_RUNS:
        count = (cookie >> 16) + 1
        runs = bytes(data[offset : offset + (count + 7) // 8])
        offset += (count + 7) // 8
        has_offsets = count >= _NO_OFFSET_THRESHOLD
    else:
        raise ValueError(f"not a Roaring bitmap (cookie {cookie})")
    headers = np.frombuffer(data, dtype="<u2", count=2 * count, offset=offset).reshape(count, 2)
    offset += 4 * count
    if has_offsets:
        offset += 4 * count  # container offsets: containers follow each other anyway
    values = []
    for index, (key, cardinality_less_one) in enumerate(headers.tolist()):
        cardinality = cardinality_less_one + 1
        high = np.uint32(key) << np.uint32(16)
        if runs is not None and runs[index // 8] >> (index % 8) & 1:
            (run_count,) = struct.unpack_from("<H", data, offset)
            pairs = np.frombuffer(data, dtype="<u2", count=2 * run_count, offset=offset + 2).reshape(run_count, 2)
            offset += 2 + 4 * run_count
            low = np.concatenate(
                [np.arange(first, first + length + 1, dtype=np.uint32) for first, length in pairs.tolist()]
            )
        elif cardinality <= _ARRAY_MAX:
            low = np.frombuffer(data, dtype="<u2", count=cardinality, offset=offset).astype(np.uint32)
            offset += 2 * cardinality
        else:
            words = np.frombuffer(data, dtype="<u8", count=1024, offset=offset)
            offset += 8 * 1024
            bits = np.unpackbits(words.view(np.uint8), bitorder="little")
            low = np.flatnonzero(bits).astype(np.uint32)
        values.append(high | low)
    return (np.concatenate(values) if values else np.empty(0, dtype=np.uint32)), offset
