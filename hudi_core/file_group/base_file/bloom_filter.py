"""Hudi's record-key bloom filters, bit-compatible with Apache Hudi (spec notes §8.3).

Two filter types, named by the type code Hudi stores next to the filter
(`hoodie_bloom_filter_type_code` in Parquet footers, `type` in metadata-table records):

* ``DYNAMIC_V0`` mirrors `org.apache.hudi.common.bloom.HoodieDynamicBoundedBloomFilter`, i.e. an
  `InternalDynamicBloomFilter`: a list of rows ("matrix"), each an `InternalBloomFilter` sized for
  `num_entries` keys. A row is appended when the active row holds `num_entries` keys and
  `rows * num_entries < max_entries`; once that bound is reached, keys are spread round-robin over
  the existing rows (first row 0, then rows 0, 1, ... in turn), exactly as Hudi does.
* ``SIMPLE`` mirrors `org.apache.hudi.common.bloom.SimpleBloomFilter` (one `InternalBloomFilter`).

Sizing follows `BloomFilterUtils`: `vectorSize = ceil(n * (-ln p / ln(2)^2))`,
`nbHash = ceil(ln 2 * vectorSize / n)`. Hashing follows `HashFunction` with Hadoop's MurmurHash2
(`org.apache.hudi.common.util.hash.MurmurHash`): `h_0 = murmur(utf8(key), seed=0)`,
`h_i = murmur(key, seed=h_{i-1})`, bit `abs(h_i % vectorSize)` with Java's truncating int `%`.
Hadoop's variant reads the 1-3 tail bytes from the end of the key (`data[len-3] << 16` ...) as
sign-extended Java bytes; the 4-byte blocks are plain little-endian words.

Serialized form (Java `DataOutput`, big endian), then standard Base64 for the footer text::

    int32 -1 (VERSION) | int32 nbHash | byte hashType (1 = MURMUR) | int32 vectorSize
    DYNAMIC_V0 only: int32 nr | int32 currentNbRecord | int32 rows, then per row the same
    4-field header followed by ceil(vectorSize / 8) bytes, bit i in byte i // 8 at mask 1 << (i % 8)

Hashing is vectorized with numpy: keys are grouped by their number of whole 4-byte words, the
seed-independent word mixing is done once per key, and the `nbHash` chained rounds then run over
all keys of a block in lockstep.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Iterator, Sequence
from typing import Any, Final, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_core.config.write import BLOOM_FILTER_TYPES
from hudi_core.errors import FileFormatError

DYNAMIC_V0: Final = "DYNAMIC_V0"
SIMPLE: Final = "SIMPLE"
FILTER_TYPES: Final = BLOOM_FILTER_TYPES

DEFAULT_NUM_ENTRIES: Final = 60000  # hoodie.index.bloom.num_entries
DEFAULT_FPP: Final = 1e-9  # hoodie.index.bloom.fpp
DEFAULT_MAX_ENTRIES: Final = 100000  # hoodie.bloom.index.filter.dynamic.max.entries

_VERSION: Final = -1
_MURMUR_HASH: Final = 1  # org.apache.hudi.common.util.hash.Hash.MURMUR_HASH
_HEADER = struct.Struct(">iibi")
_DYNAMIC_EXTRAS = struct.Struct(">iii")
_INT32_MAX: Final = 2**31 - 1
_M: Final = np.uint32(0x5BD1E995)
_BLOCK: Final = 1 << 14  # keys hashed together; keeps the per-round arrays in cache (16k: 18% faster than 32k)

KeyInput: TypeAlias = pa.Array | pa.ChunkedArray | Sequence[str]
BoolArray: TypeAlias = npt.NDArray[np.bool_]


def _bit_size(num_entries: int, fpp: float) -> int:
    # Same operation order as BloomFilterUtils.getBitSize so the doubles round identically.
    return math.ceil(num_entries * (-math.log(fpp) / (math.log(2) * math.log(2))))


def _num_hashes(bit_size: int, num_entries: int) -> int:
    return math.ceil(math.log(2) * bit_size / num_entries)


class BloomFilter:
    """A Hudi bloom filter over record keys (``DYNAMIC_V0`` or ``SIMPLE``).

    Build one with :meth:`create` or :meth:`deserialize`; never call the constructor directly.
    """

    def __init__(
        self,
        filter_type: str,
        vector_size: int,
        num_hashes: int,
        entries_per_row: int,
        max_entries: int,
        bits: BoolArray,
        current_row_records: int,
    ) -> None:
        self._type = filter_type
        self._vector_size = vector_size
        self._num_hashes = num_hashes
        self._nr = entries_per_row
        self._max_entries = max_entries
        self._bits = bits  # shape (rows, vector_size)
        self._current = current_row_records
        # Transient Java state (not serialized): InternalDynamicBloomFilter.reachedMax / curMatrixIndex.
        self._reached_max = False
        self._round_robin = 0
        self._masks: npt.NDArray[np.unsignedinteger[Any]] | None = None  # cache for lookups

    # ---- construction -----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        num_entries: int = DEFAULT_NUM_ENTRIES,
        fpp: float = DEFAULT_FPP,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        filter_type: str = DYNAMIC_V0,
    ) -> BloomFilter:
        """An empty filter sized like `BloomFilterFactory.createBloomFilter` (Hudi's write defaults)."""
        _check_type(filter_type)
        if num_entries <= 0:
            raise ValueError(f"bloom filter num_entries must be positive, got {num_entries}")
        if not 0.0 < fpp < 1.0:
            raise ValueError(f"bloom filter fpp must be in (0, 1), got {fpp}")
        vector_size = _bit_size(num_entries, fpp)
        if vector_size > _INT32_MAX:
            raise ValueError(f"bloom filter of {num_entries} entries at fpp {fpp} needs {vector_size} bits (> 2^31-1)")
        num_hashes = _num_hashes(vector_size, num_entries)
        bits = np.zeros((1, vector_size), dtype=np.bool_)
        return cls(filter_type, vector_size, num_hashes, num_entries, max_entries, bits, 0)

    @classmethod
    def deserialize(cls, text: str | bytes, filter_type: str = DYNAMIC_V0, max_entries: int = 0) -> BloomFilter:
        """Parses the Base64 text of a footer `org.apache.hudi.bloomfilter` or an MDT bloom record.

        `max_entries` is not serialized; 0 (Java's value after deserialization) means keys added
        later never open a new row.
        """
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as e:
            raise FileFormatError(f"bloom filter ({filter_type}) is not valid Base64: {e}") from e
        return cls.from_bytes(raw, filter_type, max_entries)

    @classmethod
    def from_bytes(cls, data: bytes, filter_type: str = DYNAMIC_V0, max_entries: int = 0) -> BloomFilter:
        """Parses the raw (Java `DataOutput`) form; see the module docstring."""
        _check_type(filter_type)
        view = memoryview(data)
        nb_hash, vector_size, pos = _read_header(view, 0, filter_type)
        if filter_type == SIMPLE:
            rows = [_read_bits(view, pos, vector_size, filter_type)]
            pos += (vector_size + 7) // 8
            nr, current = 0, 0
        else:
            if len(view) < pos + _DYNAMIC_EXTRAS.size:
                raise FileFormatError(f"bloom filter (DYNAMIC_V0) truncated after {len(view)} bytes")
            nr, current, row_count = _DYNAMIC_EXTRAS.unpack_from(view, pos)
            pos += _DYNAMIC_EXTRAS.size
            if nr <= 0 or current < 0 or row_count <= 0:
                raise FileFormatError(
                    f"bloom filter (DYNAMIC_V0) has nr={nr}, currentNbRecord={current}, rows={row_count}"
                )
            rows = []
            for r in range(row_count):
                row_hashes, row_size, pos = _read_header(view, pos, filter_type)
                if (row_hashes, row_size) != (nb_hash, vector_size):
                    raise FileFormatError(
                        f"bloom filter (DYNAMIC_V0) row {r} has nbHash={row_hashes}, vectorSize={row_size}; "
                        f"expected {nb_hash}, {vector_size}"
                    )
                rows.append(_read_bits(view, pos, vector_size, filter_type))
                pos += (vector_size + 7) // 8
        if pos != len(view):
            raise FileFormatError(
                f"bloom filter ({filter_type}) has {len(view) - pos} trailing bytes after {pos}; wrong type code?"
            )
        return cls(filter_type, vector_size, nb_hash, nr, max_entries, np.stack(rows), current)

    # ---- properties -------------------------------------------------------------------------

    @property
    def filter_type(self) -> str:
        """The Hudi type code: ``DYNAMIC_V0`` or ``SIMPLE``."""
        return self._type

    @property
    def vector_size(self) -> int:
        return self._vector_size

    @property
    def num_hashes(self) -> int:
        return self._num_hashes

    @property
    def num_rows(self) -> int:
        return int(self._bits.shape[0])

    @property
    def entries_per_row(self) -> int:
        """Keys each row is sized for (`nr`; 0 for ``SIMPLE`` filters)."""
        return self._nr

    def sized_like(self, other: BloomFilter) -> bool:
        """Whether both filters have the same type and geometry, so keys added to one land where the
        other would put them."""
        same_rows = self._type == SIMPLE or self._nr == other._nr
        return same_rows and (self._type, self._vector_size, self._num_hashes) == (
            other._type,
            other._vector_size,
            other._num_hashes,
        )

    @property
    def current_row_records(self) -> int:
        """Keys added to the active row (`currentNbRecord`; 0 for ``SIMPLE`` filters)."""
        return self._current

    # ---- adding and testing keys ------------------------------------------------------------

    def add_keys(self, keys: KeyInput) -> None:
        """Adds record keys in order (order decides the row of each key in a dynamic filter)."""
        data, offsets, valid = _key_buffers(keys)
        if valid is not None:
            raise ValueError(f"bloom filter keys must not be null (first null at index {int(np.argmin(valid))})")
        count = len(offsets) - 1
        if count == 0:
            return
        self._masks = None
        if self._type == SIMPLE:
            flat = self._bits.reshape(-1)
            for _, positions in _hash_blocks(data, offsets, self._num_hashes, self._vector_size):
                for round_positions in positions:
                    flat[round_positions] = True
            return
        rows = self._assign_rows(count)
        flat = self._bits.reshape(-1)
        vector_size = np.int64(self._vector_size)
        for index, positions in _hash_blocks(data, offsets, self._num_hashes, self._vector_size):
            block_rows = rows[index]
            if block_rows[0] == block_rows[-1] and bool((block_rows == block_rows[0]).all()):
                row = self._bits[int(block_rows[0])]  # the usual case: the whole block fills one row
                for round_positions in positions:
                    row[round_positions] = True
                continue
            base = block_rows * vector_size
            for round_positions in positions:
                flat[base + round_positions] = True

    def might_contain(self, keys: KeyInput) -> BoolArray:
        """For each key, whether it may be in the filter (False: certainly absent). Nulls give True."""
        data, offsets, valid = _key_buffers(keys)
        result = np.zeros(len(offsets) - 1, dtype=np.bool_)
        if valid is not None:
            # InternalDynamicBloomFilter.membershipTest(null) is true; hash only the real keys.
            result[~valid] = True
            index = np.flatnonzero(valid)
            offsets_valid = np.concatenate(([0], np.cumsum(offsets[index + 1] - offsets[index])))
            data = _gather_bytes(data, offsets[index], offsets[index + 1] - offsets[index])
            result[index] = self._contains(data, offsets_valid)
            return result
        return self._contains(data, offsets)

    def _contains(self, data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> BoolArray:
        result = np.zeros(len(offsets) - 1, dtype=np.bool_)
        masks = self._row_masks()
        for index, positions in _hash_blocks(data, offsets, self._num_hashes, self._vector_size):
            # One gather per round for all rows: bit r of masks[..., pos] is row r's bit at pos.
            present = masks[:, positions[0]]
            for round_positions in positions[1:]:
                present &= masks[:, round_positions]
            result[index] = (present != 0).any(axis=0)
        return result

    def _row_masks(self) -> npt.NDArray[np.unsignedinteger[Any]]:
        """The rows packed across: shape (ceil(rows / width), vector_size), bit r % width = row r."""
        if self._masks is None:
            row_count = self.num_rows
            width = next(w for w in (8, 16, 32, 64) if row_count <= w or w == 64)
            dtype = np.dtype(f"uint{width}")
            groups = []
            for first in range(0, row_count, width):
                mask = np.zeros(self._vector_size, dtype=dtype)
                for r, row in enumerate(self._bits[first : first + width]):
                    mask |= row.astype(dtype) << dtype.type(r)
                groups.append(mask)
            self._masks = np.stack(groups)
        return self._masks

    def _assign_rows(self, count: int) -> npt.NDArray[np.int64]:
        """The row each of `count` new keys goes to, replaying InternalDynamicBloomFilter.add."""
        rows = np.empty(count, dtype=np.int64)
        i = 0
        while i < count:
            row_count = self.num_rows
            if self._reached_max:
                # getActiveStandardBF: matrix[curMatrixIndex++ % matrix.length]
                rest = count - i
                rows[i:] = (self._round_robin + np.arange(rest, dtype=np.int64)) % row_count
                self._round_robin += rest
                self._current += rest
                break
            if self._current >= self._nr:
                if row_count * self._nr < self._max_entries:
                    self._bits = np.concatenate([self._bits, np.zeros((1, self._vector_size), np.bool_)])
                    self._current = 0
                    continue
                self._reached_max = True  # this key goes to matrix[0], later ones round-robin
                rows[i] = 0
                self._current += 1
                i += 1
                continue
            take = min(self._nr - self._current, count - i)
            rows[i : i + take] = row_count - 1
            self._current += take
            i += take
        return rows

    # ---- serialization ----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The raw serialized form (what Hudi Base64-encodes)."""
        header = _HEADER.pack(_VERSION, self._num_hashes, _MURMUR_HASH, self._vector_size)
        packed = [np.packbits(row, bitorder="little").tobytes() for row in self._bits]
        if self._type == SIMPLE:
            return header + packed[0]
        parts = [header, _DYNAMIC_EXTRAS.pack(self._nr, self._current, self.num_rows)]
        for row in packed:
            parts.extend((header, row))
        return b"".join(parts)

    def serialize(self) -> str:
        """The Base64 text Hudi stores (footer `org.apache.hudi.bloomfilter`, MDT bloom records)."""
        return base64.b64encode(self.to_bytes()).decode("ascii")

    def __repr__(self) -> str:
        return (
            f"BloomFilter({self._type}, vector_size={self._vector_size}, num_hashes={self._num_hashes}, "
            f"rows={self.num_rows}, current_row_records={self._current})"
        )


# ---- helpers ------------------------------------------------------------------------------------


def _check_type(filter_type: str) -> None:
    if filter_type not in FILTER_TYPES:
        raise ValueError(f"unknown bloom filter type code {filter_type!r}; expected one of {FILTER_TYPES}")


def _read_header(view: memoryview, pos: int, filter_type: str) -> tuple[int, int, int]:
    if len(view) < pos + _HEADER.size:
        raise FileFormatError(f"bloom filter ({filter_type}) truncated at byte {pos} of {len(view)}")
    version, nb_hash, hash_type, vector_size = _HEADER.unpack_from(view, pos)
    if version != _VERSION:
        # A positive first int is Hadoop's pre-versioned layout with Jenkins hashing; Hudi never wrote it.
        raise FileFormatError(f"bloom filter ({filter_type}) has unsupported version {version} at byte {pos}")
    if hash_type != _MURMUR_HASH:
        raise FileFormatError(f"bloom filter ({filter_type}) uses hash type {hash_type}; only MURMUR (1) is supported")
    if nb_hash <= 0 or vector_size <= 0:
        raise FileFormatError(f"bloom filter ({filter_type}) has nbHash={nb_hash}, vectorSize={vector_size}")
    return nb_hash, vector_size, pos + _HEADER.size


def _read_bits(view: memoryview, pos: int, vector_size: int, filter_type: str) -> BoolArray:
    size = (vector_size + 7) // 8
    if len(view) < pos + size:
        raise FileFormatError(f"bloom filter ({filter_type}) bit vector truncated: needs {size} bytes at {pos}")
    packed = np.frombuffer(view, dtype=np.uint8, count=size, offset=pos)
    return np.unpackbits(packed, count=vector_size, bitorder="little").view(np.bool_)


def _key_buffers(
    keys: KeyInput,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], BoolArray | None]:
    """UTF-8 bytes, int64 offsets and validity (None when no nulls) of the keys."""
    if isinstance(keys, pa.ChunkedArray):
        array = keys.combine_chunks() if keys.num_chunks != 1 else keys.chunk(0)
    elif isinstance(keys, pa.Array):
        array = keys
    else:
        values: list[Any] = list(keys)
        try:
            array = pa.array(values, type=pa.large_string())
        except (pa.ArrowException, UnicodeError):
            # Lone surrogates: Java's String.getBytes(UTF_8) writes '?' for each, like errors="replace".
            array = pa.array(
                [v.encode("utf-8", "replace") if isinstance(v, str) else v for v in values], type=pa.large_binary()
            )
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        array = array.cast(pa.large_string()).view(pa.large_binary())
    elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind):
        array = array.cast(pa.large_binary())
    else:
        raise TypeError(f"bloom filter keys must be strings, got Arrow type {kind}")
    length = len(array)
    buffers = array.buffers()
    if length == 0:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64), None
    offsets = np.frombuffer(buffers[1], dtype=np.int64, count=length + 1, offset=array.offset * 8)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    valid = None
    if array.null_count:
        valid = array.is_valid().to_numpy(zero_copy_only=False)
    lengths = offsets[1:] - offsets[:-1]
    empty = (lengths == 0) if valid is None else ((lengths == 0) & valid)
    if empty.any():
        # HashFunction.hash rejects empty keys ("key length must be > 0"); Hudi keys are never empty.
        raise ValueError(f"bloom filter keys must not be empty (index {int(np.argmax(empty))})")
    return data, offsets, valid


def _gather_bytes(
    data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]
) -> npt.NDArray[np.uint8]:
    """The concatenation of data[starts[i] : starts[i] + lengths[i]]."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.uint8)
    ends = np.cumsum(lengths)
    index = np.arange(total, dtype=np.int64) + np.repeat(starts - (ends - lengths), lengths)
    gathered: npt.NDArray[np.uint8] = data[index]
    return gathered


def _hash_blocks(
    data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], num_hashes: int, vector_size: int
) -> Iterator[tuple[npt.NDArray[np.int64], list[npt.NDArray[np.int64]]]]:
    """Yields (key indices, bit positions of each hash round) for blocks of keys.

    Keys are grouped by their count of whole 4-byte words so that a block shares one word loop;
    the word mixing (`k *= m; k ^= k >>> 24; k *= m`) does not depend on the seed and is done once.
    """
    starts = offsets[:-1]
    if len(starts) == 0:
        return
    lengths = offsets[1:] - starts
    words = lengths >> 2
    order = np.argsort(words, kind="stable")
    sorted_words = words[order]
    bounds = np.flatnonzero(np.diff(sorted_words)) + 1
    signed = data.view(np.int8)
    modulus = np.uint32(vector_size)
    for group in np.split(order, bounds):
        word_count = int(words[group[0]])
        window = np.lib.stride_tricks.sliding_window_view(data, 4 * word_count) if word_count else None
        for first in range(0, len(group), _BLOCK):
            index = group[first : first + _BLOCK]
            key_starts = starts[index]
            key_lengths = lengths[index]
            if window is not None:
                block_words = np.ascontiguousarray(window[key_starts]).view("<u4").T.copy()
                block_words *= _M
                block_words ^= block_words >> np.uint32(24)
                block_words *= _M
            tail, multiplier = _tail(signed, key_starts + key_lengths, key_lengths - 4 * word_count)
            seed_mix = key_lengths.astype(np.uint32)
            positions: list[npt.NDArray[np.int64]] = []
            h = np.zeros(len(index), dtype=np.uint32)
            for _ in range(num_hashes):
                h ^= seed_mix  # h = seed ^ length, the seed being the previous round's hash
                for j in range(word_count):
                    h *= _M
                    h ^= block_words[j]
                if tail is not None and multiplier is not None:
                    h ^= tail
                    h *= multiplier
                h ^= h >> np.uint32(13)
                h *= _M
                h ^= h >> np.uint32(15)
                # Java: Math.abs(h % vectorSize) with truncating %, i.e. |h| mod vectorSize. abs(INT_MIN)
                # wraps to INT_MIN, whose uint32 view is the right magnitude 2^31.
                magnitude = np.abs(h.view(np.int32)).view(np.uint32)
                # x - (x // d) * d: numpy divides by a scalar with SIMD, but `%` divides per element
                # (five times slower here)
                remainder = magnitude // modulus
                remainder *= modulus
                np.subtract(magnitude, remainder, out=remainder)
                positions.append(remainder.astype(np.int64))
            yield index, positions


def _tail(
    signed: npt.NDArray[np.int8], ends: npt.NDArray[np.int64], left: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint32] | None, npt.NDArray[np.uint32] | None]:
    """Tail xor value and final multiplier (m, or 1 without a tail) per key; None when no key has a tail."""
    if not left.any():
        return None, None
    tail = np.zeros(len(ends), dtype=np.int32)
    for back, shift in ((3, 16), (2, 8), (1, 0)):
        has = left >= back
        if has.any():
            byte = signed[np.where(has, ends - back, 0)].astype(np.int32)  # sign-extended like Java
            tail ^= np.where(has, byte << shift, 0).astype(np.int32)
    multiplier = np.where(left > 0, _M, np.uint32(1)).astype(np.uint32)
    return tail.view(np.uint32), multiplier
