"""Hudi bloom filters: byte-identical to Spark-written footers, and to a scalar model of the Java code.

The model below is a line-by-line port of `MurmurHash.hash`, `HashFunction.hash`,
`InternalBloomFilter` and `InternalDynamicBloomFilter.add/getActiveStandardBF` (spec notes §8.3),
deliberately scalar and independent of the vectorized implementation.
"""

from __future__ import annotations

import base64
import random
import struct
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core.errors import FileFormatError
from hudi_core.file_group.base_file.bloom_filter import DYNAMIC_V0, SIMPLE, BloomFilter

CORPUS_TABLES = [
    "sample_table/cow/v8_complexkeygen_hivestyle",
    "sample_table/cow/v8_nonpartitioned",
    "sample_table/cow/v8_simplekeygen_nonhivestyle",
    "sample_table/cow/v9_txns_simple_nometa",
]


# ---- scalar Java model ------------------------------------------------------------------------


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def _java_byte(b: int) -> int:
    return b - 256 if b > 127 else b


def _murmur(data: bytes, seed: int) -> int:
    m, length = 0x5BD1E995, len(data)
    h = _int32(seed ^ length)
    for i in range(length >> 2):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = _int32(k * m)
        k = _int32(k ^ ((k & 0xFFFFFFFF) >> 24))
        k = _int32(k * m)
        h = _int32(_int32(h * m) ^ k)
    left = length & 3
    if left:
        if left >= 3:
            h = _int32(h ^ (_java_byte(data[length - 3]) << 16))
        if left >= 2:
            h = _int32(h ^ (_java_byte(data[length - 2]) << 8))
        h = _int32(h ^ _java_byte(data[length - 1]))
        h = _int32(h * m)
    h = _int32(h ^ ((h & 0xFFFFFFFF) >> 13))
    h = _int32(h * m)
    return _int32(h ^ ((h & 0xFFFFFFFF) >> 15))


def _positions(key: str, num_hashes: int, vector_size: int) -> list[int]:
    out, seed = [], 0
    for _ in range(num_hashes):
        seed = _murmur(key.encode("utf-8"), seed)
        remainder = abs(seed) % vector_size  # Java: Math.abs(seed % vectorSize)
        out.append(remainder)
    return out


class _JavaDynamicFilter:
    def __init__(self, vector_size: int, num_hashes: int, nr: int, max_nr: int) -> None:
        self.vector_size, self.num_hashes, self.nr, self.max_nr = vector_size, num_hashes, nr, max_nr
        self.matrix: list[set[int]] = [set()]
        self.current, self.reached_max, self.cur_index = 0, False, 0

    def _active(self) -> set[int] | None:
        if self.reached_max:
            row = self.matrix[self.cur_index % len(self.matrix)]
            self.cur_index += 1
            return row
        if self.current >= self.nr and len(self.matrix) * self.nr < self.max_nr:
            return None
        if self.current >= self.nr:
            self.reached_max = True
            return self.matrix[0]
        return self.matrix[-1]

    def add(self, key: str) -> None:
        row = self._active()
        if row is None:
            self.matrix.append(set())
            row = self.matrix[-1]
            self.current = 0
        row.update(_positions(key, self.num_hashes, self.vector_size))
        self.current += 1

    def _row_bytes(self, row: set[int]) -> bytes:
        out = bytearray((self.vector_size + 7) // 8)
        for bit in row:
            out[bit // 8] |= 1 << (bit % 8)
        return struct.pack(">iibi", -1, self.num_hashes, 1, self.vector_size) + bytes(out)

    def serialize(self, simple: bool = False) -> str:
        if simple:
            return base64.b64encode(self._row_bytes(self.matrix[0])).decode()
        raw = struct.pack(">iibi", -1, self.num_hashes, 1, self.vector_size)
        raw += struct.pack(">iii", self.nr, self.current, len(self.matrix))
        raw += b"".join(self._row_bytes(row) for row in self.matrix)
        return base64.b64encode(raw).decode()


def _random_keys(rng: random.Random, count: int) -> list[str]:
    alphabet = "abcXYZ019:,_-é€ÿ\u07ff\uffff😀𐀀"  # 1- to 4-byte UTF-8, bytes >= 0x80 exercise the sign extension
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 19))) for _ in range(count)]


# ---- corpus footers ---------------------------------------------------------------------------


def _corpus_base_files(corpus_table: Callable[[str], Path]) -> list[Path]:
    files = []
    for name in CORPUS_TABLES:
        files += [p for p in sorted(corpus_table(name).rglob("*.parquet")) if ".hoodie" not in p.parts]
    return files


def _footer(path: Path) -> tuple[str, str, pa.ChunkedArray]:
    parquet_file = pq.ParquetFile(path)
    metadata = parquet_file.metadata.metadata
    keys = parquet_file.read(columns=["_hoodie_record_key"]).column(0)
    return metadata[b"org.apache.hudi.bloomfilter"].decode(), metadata[b"hoodie_bloom_filter_type_code"].decode(), keys


def test_serialize_corpus_base_files_byte_identical_to_footer(corpus_table: Callable[[str], Path]) -> None:
    files = _corpus_base_files(corpus_table)
    assert len(files) >= 8
    for path in files:
        footer, type_code, keys = _footer(path)
        assert type_code == DYNAMIC_V0
        built = BloomFilter.create()
        built.add_keys(keys)  # file order, as HoodieAvroWriteSupport adds them
        assert built.serialize() == footer, path.name


def test_deserialize_corpus_footer_keys_present_random_absent(corpus_table: Callable[[str], Path]) -> None:
    rng = random.Random(5)
    random_keys = pa.array([str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(20000)])
    for path in _corpus_base_files(corpus_table):
        footer, type_code, keys = _footer(path)
        parsed = BloomFilter.deserialize(footer, type_code)
        assert parsed.filter_type == DYNAMIC_V0
        assert (parsed.vector_size, parsed.num_hashes, parsed.num_rows) == (2587966, 30, 1)
        assert parsed.current_row_records == len(keys)
        assert parsed.might_contain(keys).all()
        absent = parsed.might_contain(random_keys)
        assert absent.sum() == 0  # fpp 1e-9 with at most a few keys
        assert parsed.serialize() == footer


def test_create_defaults_hudi_sizes() -> None:
    bloom = BloomFilter.create()
    assert (bloom.filter_type, bloom.vector_size, bloom.num_hashes, bloom.num_rows) == (DYNAMIC_V0, 2587966, 30, 1)
    assert len(bloom.to_bytes()) == 323534
    assert len(bloom.serialize()) == 431380


# ---- against the scalar Java model ------------------------------------------------------------


@pytest.mark.parametrize("chunks", [1, 3])
def test_add_keys_random_utf8_matches_java_model(chunks: int) -> None:
    rng = random.Random(7)
    keys = _random_keys(rng, 700)
    bloom = BloomFilter.create(num_entries=100, fpp=1e-3, max_entries=350)
    model = _JavaDynamicFilter(bloom.vector_size, bloom.num_hashes, 100, 350)
    for part in np.array_split(np.arange(len(keys)), chunks):
        batch = [keys[i] for i in part]
        bloom.add_keys(batch)
        for key in batch:
            model.add(key)
    # Four rows of 100 keys fill up (4 * 100 >= 350 stops growth); the other 300 go round-robin.
    assert bloom.num_rows == 4 == len(model.matrix)
    assert bloom.serialize() == model.serialize()
    assert bloom.might_contain(keys).all()


def test_add_keys_dynamic_row_boundary_round_trip() -> None:
    keys = [f"key-{i:06d}" for i in range(4500)]
    bloom = BloomFilter.create(num_entries=1000, max_entries=5000)
    bloom.add_keys(keys)
    assert (bloom.num_rows, bloom.current_row_records) == (5, 500)
    text = bloom.serialize()
    parsed = BloomFilter.deserialize(text, DYNAMIC_V0)
    assert (parsed.num_rows, parsed.current_row_records) == (5, 500)
    assert parsed.serialize() == text
    assert parsed.might_contain(keys).all()
    assert parsed.might_contain([f"other-{i}" for i in range(5000)]).sum() == 0


def test_add_keys_simple_matches_java_model_and_round_trips() -> None:
    keys = _random_keys(random.Random(3), 300)
    bloom = BloomFilter.create(num_entries=200, fpp=1e-4, filter_type=SIMPLE)
    bloom.add_keys(keys)
    model = _JavaDynamicFilter(bloom.vector_size, bloom.num_hashes, 10**9, 10**9)
    for key in keys:
        model.add(key)
    assert bloom.serialize() == model.serialize(simple=True)
    parsed = BloomFilter.deserialize(bloom.serialize(), SIMPLE)
    assert parsed.filter_type == SIMPLE
    assert parsed.to_bytes() == bloom.to_bytes()
    assert parsed.might_contain(keys).all()


def test_add_keys_every_input_form_same_filter() -> None:
    keys = [str(uuid.UUID(int=i)) for i in range(1000)] + ["ä", "ab", "abc", "abcde"]
    expected = BloomFilter.create()
    expected.add_keys(keys)
    forms: list[object] = [
        pa.array(keys),
        pa.array(keys, pa.large_string()),
        pa.array(keys, pa.string_view()),
        pa.chunked_array([keys[:10], keys[10:500], keys[500:]]),
        pa.array(["x", *keys])[1:],  # non-zero offset
        tuple(keys),
    ]
    for form in forms:
        bloom = BloomFilter.create()
        bloom.add_keys(form)
        assert bloom.to_bytes() == expected.to_bytes(), type(form)


def test_add_keys_lone_surrogate_encoded_like_java() -> None:
    bloom = BloomFilter.create(num_entries=10, fpp=1e-3)
    bloom.add_keys(["a\ud800b"])  # Java's getBytes(UTF_8) writes '?' for an unpaired surrogate
    assert bloom.might_contain(["a?b"]).all()


def test_add_keys_null_or_empty_raises() -> None:
    bloom = BloomFilter.create(num_entries=10)
    with pytest.raises(ValueError, match="null"):
        bloom.add_keys(pa.array(["a", None]))
    with pytest.raises(ValueError, match="empty"):
        bloom.add_keys(["a", ""])
    with pytest.raises(TypeError, match="strings"):
        bloom.add_keys(pa.array([1, 2]))


def test_might_contain_null_true_and_empty_input() -> None:
    bloom = BloomFilter.create(num_entries=10)
    bloom.add_keys(["a"])
    assert bloom.might_contain(pa.array(["a", None, "zzz-not-there"])).tolist() == [True, True, False]
    assert bloom.might_contain([]).tolist() == []


def test_add_keys_after_deserialize_stays_in_rows_like_java() -> None:
    bloom = BloomFilter.create(num_entries=2, fpp=1e-3, max_entries=100)
    bloom.add_keys(["a", "b"])
    parsed = BloomFilter.deserialize(bloom.serialize())
    parsed.add_keys(["c", "d"])  # maxNr is not serialized (0 in Java): no new row
    assert parsed.num_rows == 1
    assert parsed.might_contain(["a", "b", "c", "d"]).all()


# ---- malformed input --------------------------------------------------------------------------


def test_deserialize_malformed_raises_file_format_error() -> None:
    bloom = BloomFilter.create(num_entries=10, fpp=1e-2)
    raw = bloom.to_bytes()
    with pytest.raises(FileFormatError, match="Base64"):
        BloomFilter.deserialize("not base64!")
    with pytest.raises(FileFormatError, match="truncated"):
        BloomFilter.from_bytes(raw[:-1])
    with pytest.raises(FileFormatError, match="trailing"):
        BloomFilter.from_bytes(raw, SIMPLE)  # a dynamic filter under the SIMPLE type code
    with pytest.raises(FileFormatError, match="version"):
        BloomFilter.from_bytes(struct.pack(">i", 5) + raw[4:])
    with pytest.raises(FileFormatError, match="hash type"):
        BloomFilter.from_bytes(raw[:8] + b"\x00" + raw[9:])
    with pytest.raises(ValueError, match="type code"):
        BloomFilter.deserialize(bloom.serialize(), "DYNAMIC_V1")


def test_create_invalid_arguments_raise() -> None:
    with pytest.raises(ValueError, match="num_entries"):
        BloomFilter.create(num_entries=0)
    with pytest.raises(ValueError, match="fpp"):
        BloomFilter.create(fpp=1.0)
    with pytest.raises(ValueError, match="2\\^31"):
        BloomFilter.create(num_entries=2**30, fpp=1e-9)
