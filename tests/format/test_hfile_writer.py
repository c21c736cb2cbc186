"""The HFile writer against our reader, against HFiles Hudi wrote (corpus) and against hudi-rs."""

from __future__ import annotations

import gzip
import random
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hudi_core.file_group.base_file.hfile import (
    CODEC_GZ,
    CODEC_NONE,
    protobuf_fields,
    read_hfile_cells,
    read_hfile_info,
    read_trailer,
    read_varint,
)
from hudi_core.file_group.base_file.hfile_writer import (
    COMPARATOR_CLASS_NAME,
    DEFAULT_BLOCK_SIZE,
    VERSION_BYTES,
    WRITER_FILE_INFO_KEYS,
    hfile_key,
    write_hfile,
)
from hudi_core.file_group.log_file.format import BlockType
from hudi_core.file_group.log_file.reader import read_log_blocks

CORPUS_TABLES = [
    "sample_table/cow/v9_txns_nonpart_meta",
    "sample_table/mor/avro/v9_txns_complex_meta",
    "quickstart_trips_table/mor/avro/table_evo_add_col",
]
TRAILER_NAMES = {
    1: "file_info_offset",
    2: "load_on_open_data_offset",
    3: "uncompressed_data_index_size",
    4: "total_uncompressed_bytes",
    5: "data_index_count",
    6: "meta_index_count",
    7: "entry_count",
    8: "num_data_index_levels",
    9: "first_data_block_offset",
    10: "last_data_block_offset",
    11: "comparator_class_name",
    12: "compression_codec",
}


# ---- a small independent HFile walker --------------------------------------------------------


@dataclass(frozen=True)
class Block:
    offset: int
    magic: bytes
    on_disk_size: int  # without header
    uncompressed_size: int
    prev_offset: int
    checksum_type: int
    bytes_per_checksum: int
    data_size_with_header: int
    raw: bytes  # the whole block as stored
    data: bytes  # uncompressed payload


def _protobuf(data: bytes) -> list[tuple[int, int | bytes]]:
    """(field, value) pairs of a protobuf message."""
    return [(number, value) for number, values in protobuf_fields(data).items() for value in values]


def _blocks(data: bytes) -> list[Block]:
    codec = read_trailer(data, "test").compression_codec
    blocks, offset = [], 0
    while offset < len(data) - 4096:
        magic = data[offset : offset + 8]
        on_disk, uncompressed, prev, checksum_type, per_checksum, with_header = struct.unpack_from(
            ">iiqbii", data, offset + 8
        )
        payload = data[offset + 33 : offset + with_header]
        blocks.append(
            Block(
                offset,
                magic,
                on_disk,
                uncompressed,
                prev,
                checksum_type,
                per_checksum,
                with_header,
                data[offset : offset + 33 + on_disk],
                gzip.decompress(payload) if codec == CODEC_GZ else payload,
            )
        )
        offset += 33 + on_disk
    assert offset == len(data) - 4096
    return blocks


def _hadoop_vint(data: bytes, pos: int) -> tuple[int, int]:
    first = struct.unpack_from(">b", data, pos)[0]
    if first >= -112:
        return first, pos + 1
    length = -112 - first
    return int.from_bytes(data[pos + 1 : pos + 1 + length], "big"), pos + 1 + length


def _index_entries(data: bytes) -> list[tuple[int, int, bytes]]:
    entries, pos = [], 0
    while pos < len(data):
        offset, size = struct.unpack_from(">qi", data, pos)
        length, pos = _hadoop_vint(data, pos + 12)
        entries.append((offset, size, data[pos : pos + length]))
        pos += length
    return entries


def _file_info_pairs(data: bytes) -> list[tuple[bytes, bytes]]:
    """File-info entries in stored order."""
    assert data.startswith(b"PBUF")
    length, pos = read_varint(data, 4)
    pairs = []
    for _, entry in _protobuf(data[pos : pos + length]):
        assert isinstance(entry, bytes)
        parts = dict(_protobuf(entry))
        key, value = parts[1], parts.get(2, b"")
        assert isinstance(key, bytes) and isinstance(value, bytes)
        pairs.append((key, value))
    return pairs


def _trailer_fields(data: bytes) -> dict[int, int | bytes]:
    trailer = data[-4096:]
    length, pos = read_varint(trailer, 8)
    return dict(_protobuf(trailer[pos : pos + length]))


def _meta_blocks(blocks: list[Block]) -> dict[bytes, bytes]:
    """Meta block name -> content, through the meta index (second to last block)."""
    by_offset = {b.offset: b.data for b in blocks}
    return {name: by_offset[offset] for offset, _, name in _index_entries(blocks[-2].data)}


def _row(key: bytes) -> bytes:
    """The row of a KeyValue key (or of Hudi 1.1's `int16 length + row` index keys)."""
    (length,) = struct.unpack_from(">h", key)
    return key[2 : 2 + length]


def _check_structure(data: bytes, cells: list[tuple[bytes, bytes]], block_size: int) -> list[Block]:
    """Header invariants, block order, index and trailer consistency of a file we wrote."""
    blocks = _blocks(data)
    trailer = read_trailer(data, "test")
    fields = _trailer_fields(data)
    data_blocks = [b for b in blocks if b.magic == b"DATABLK*"]
    meta_blocks = [b for b in blocks if b.magic == b"METABLKc"]
    root, meta_index, file_info = blocks[len(data_blocks) + len(meta_blocks) :]
    assert [b.magic for b in blocks] == [b"DATABLK*"] * len(data_blocks) + [b"METABLKc"] * len(meta_blocks) + [
        b"IDXROOT2",
        b"IDXROOT2",
        b"FILEINF2",
    ]
    for block in blocks:
        assert block.checksum_type == 0 and block.bytes_per_checksum == 16384
        assert block.uncompressed_size == len(block.data)
        checksum_bytes = 4 * -(-block.data_size_with_header // 16384)
        assert block.on_disk_size == block.data_size_with_header - 33 + checksum_bytes
        assert block.raw.endswith(bytes(checksum_bytes))
    for same_type in (data_blocks, meta_blocks):
        assert [b.prev_offset for b in same_type] == [-1, *(b.offset for b in same_type)][: len(same_type)]
    assert root.prev_offset == -1 and meta_index.prev_offset == root.offset and file_info.prev_offset == -1
    # A data block closes once it reaches block_size, so only the last one may be smaller.
    assert all(b.uncompressed_size >= block_size for b in data_blocks[:-1])
    index = _index_entries(root.data)
    first_keys = []
    pos = 0
    for block in data_blocks:
        first_keys.append(hfile_key(cells[pos][0]))
        pos += _cell_count(block.data)
    assert index == [(b.offset, len(b.raw), key) for b, key in zip(data_blocks, first_keys, strict=True)]
    assert [(o, s) for o, s, _ in _index_entries(meta_index.data)] == [(b.offset, len(b.raw)) for b in meta_blocks]
    assert trailer.entry_count == len(cells) == pos
    assert trailer.load_on_open_offset == root.offset and trailer.file_info_offset == file_info.offset
    first, last = (data_blocks[0].offset, data_blocks[-1].offset) if data_blocks else (2**64 - 1, 2**64 - 1)
    assert (trailer.first_data_block_offset, trailer.last_data_block_offset) == (first, last)
    assert fields[3] == len(root.data)
    assert fields[4] == sum(33 + b.uncompressed_size for b in blocks if b is not root) + 4096
    assert (fields[5], fields[6], fields[8], fields[11]) == (
        len(data_blocks),
        len(meta_blocks),
        1,
        COMPARATOR_CLASS_NAME,
    )
    assert data[-4:] == VERSION_BYTES == b"\x03\x00\x00\x03"
    return blocks


def _cell_count(payload: bytes) -> int:
    count = pos = 0
    while pos < len(payload):
        key_length, value_length = struct.unpack_from(">ii", payload, pos)
        pos += 8 + key_length + value_length + 1
        count += 1
    return count


# ---- 1. round trip -----------------------------------------------------------------------------


def _random_cells(count: int, seed: int) -> list[tuple[bytes, bytes]]:
    rng = random.Random(seed)
    rows = {rng.randbytes(rng.randint(0, 40)) for _ in range(count)}
    return [(row, rng.randbytes(rng.randint(0, 300))) for row in sorted(rows)]


@pytest.mark.parametrize("compression", [CODEC_GZ, CODEC_NONE])
@pytest.mark.parametrize(("count", "block_size"), [(0, 4096), (1, 4096), (1, 1), (500, 4096), (300, 1), (2000, 65536)])
def test_round_trip(count: int, block_size: int, compression: int) -> None:
    cells = _random_cells(count, seed=count + block_size)
    user_info = {b"schema": b'{"type":"record"}', b"minRecordKey": b"a", b"maxRecordKey": b"z"}
    meta = {b"bloomFilter": b"Zm9v" * 100, b"another": b""}
    data = write_hfile(
        cells,
        file_info=user_info,
        meta_blocks=meta,
        block_size=block_size,
        compression=compression,
        create_time_ms=1_700_000_000_123,
    )
    assert read_hfile_cells(data, "test") == cells
    blocks = _check_structure(data, cells, block_size)
    data_blocks = [b for b in blocks if b.magic == b"DATABLK*"]
    if count and block_size == 1:
        assert len(data_blocks) == len(cells)
    elif count >= 500:
        assert len(data_blocks) > 3
    assert list(_meta_blocks(blocks).items()) == sorted(meta.items())
    info = read_hfile_info(data, "test")
    n = len(cells)
    expected = dict(user_info)
    expected |= {
        b"MAX_MEMSTORE_TS_KEY": bytes(8),
        b"KEY_VALUE_VERSION": struct.pack(">i", 1),
        b"hfile.CREATE_TIME_TS": struct.pack(">q", 1_700_000_000_123),
        b"hfile.AVG_KEY_LEN": struct.pack(">i", sum(len(k) for k, _ in cells) // n if n else 0),
        b"hfile.AVG_VALUE_LEN": struct.pack(">i", sum(len(v) for _, v in cells) // n if n else 0),
    }
    if cells:
        expected[b"hfile.LASTKEY"] = hfile_key(cells[-1][0])
    assert info == expected
    trailer = read_trailer(data, "test")
    assert (trailer.major_version, trailer.compression_codec) == (3, compression)


def test_hfile_key_layout() -> None:
    assert hfile_key(b"__all_partitions__") == b"\x00\x12__all_partitions__\x00\x7f\xff\xff\xff\xff\xff\xff\xff\x04"
    assert hfile_key(b"") == b"\x00\x00\x00\x7f\xff\xff\xff\xff\xff\xff\xff\x04"


def test_file_info_without_create_time_uses_now() -> None:
    created = struct.unpack(">q", read_hfile_info(write_hfile([]), "test")[b"hfile.CREATE_TIME_TS"])[0]
    assert created > 1_700_000_000_000


def test_default_block_size_is_hudi_mdt_default() -> None:
    assert DEFAULT_BLOCK_SIZE == 1024 * 1024  # hoodie.hfile.block.size, HoodieHFileDataBlock


# ---- 2. structural comparison with HFiles written by Apache Hudi -------------------------------


def _corpus_hfiles(corpus_table: Callable[[str], Path]) -> list[tuple[str, bytes]]:
    """Every MDT base HFile and every HFile inside an HFILE_DATA log block of the corpus tables."""
    files = []
    for name in CORPUS_TABLES:
        metadata = corpus_table(name) / ".hoodie" / "metadata"
        for path in sorted(metadata.glob("*/*.hfile")):
            files.append((str(path), path.read_bytes()))
        for path in sorted(p for p in metadata.glob("*/.*.log.*") if p.suffix != ".crc"):
            for block in read_log_blocks(path.read_bytes(), str(path)):
                if block.block_type == BlockType.HFILE_DATA:
                    files.append((f"{path}@{block.offset}", bytes(block.content)))
    return files


def _without_gzip_os(block: Block) -> bytes:
    """The stored block with the gzip header's OS byte cleared (JDK 16+ writes 255, older JDKs 0)."""
    raw = bytearray(block.raw)
    if raw[33:35] == b"\x1f\x8b":
        raw[33 + 9] = 0
    return bytes(raw)


def test_rewrite_of_hudi_written_hfiles_matches_them(corpus_table: Callable[[str], Path]) -> None:
    """Rewrites every corpus HFile (Hudi 1.1 native writer) from its cells, file info and meta blocks.

    Same: block sequence, and every data block, meta block and meta index byte for byte as stored
    (header, gzip stream, checksum slots) once the gzip header's OS byte is ignored (it is the JVM's:
    0 before JDK 16, 255 after; we write 0); the file-info entries, order included (Java HashMap
    order), and values; the trailer's entry/index counts, levels, comparator and codec.
    Different on purpose: root index keys and `hfile.LASTKEY` are full KeyValue keys where Hudi 1.1
    stores `int16 length + row` (HBase readers parse the full key; the rows are the same), so the root
    index and file info are longer and `file_info_offset` moves; empty files get no `hfile.LASTKEY`
    (Hudi 1.1 writes an empty value) and `last_data_block_offset` -1 instead of 0;
    `uncompressed_data_index_size`/`total_uncompressed_bytes` have their HBase meaning (Hudi 1.1 puts
    the data bytes in the first and omits the second); the version is `03000003`, not `00000003`.
    Both sides use checksum type 0 (NULL), so the checksum bytes are zero in both.
    """
    files = _corpus_hfiles(corpus_table)
    assert sum(1 for where, _ in files if "@" in where) > 100 and sum(1 for where, _ in files if "@" not in where) > 50
    seen_blocks = {b"DATABLK*": 0, b"METABLKc": 0}
    for where, theirs in files:
        cells = read_hfile_cells(theirs, where)
        their_blocks = _blocks(theirs)
        their_info = _file_info_pairs(their_blocks[-1].data)
        meta = _meta_blocks(their_blocks)
        created = struct.unpack(">q", dict(their_info)[b"hfile.CREATE_TIME_TS"])[0]
        ours = write_hfile(
            cells,
            file_info={k: v for k, v in their_info if k not in WRITER_FILE_INFO_KEYS},
            meta_blocks=meta,
            block_size=DEFAULT_BLOCK_SIZE,
            create_time_ms=created,
        )
        our_blocks = _check_structure(ours, cells, DEFAULT_BLOCK_SIZE)
        assert [b.magic for b in our_blocks] == [b.magic for b in their_blocks], where
        for mine, real in zip(our_blocks[:-3], their_blocks[:-3], strict=True):
            assert _without_gzip_os(mine) == _without_gzip_os(real), f"{where}: {real.magic!r} at {real.offset}"
            seen_blocks[real.magic] += 1
        our_root, our_meta_index, our_info = our_blocks[-3:]
        their_root, their_meta_index, _ = their_blocks[-3:]
        assert _without_gzip_os(our_meta_index)[24:] == _without_gzip_os(their_meta_index)[24:]  # prev differs
        assert [(o, s, _row(k)) for o, s, k in _index_entries(our_root.data)] == [
            (o, s, _row(k)) for o, s, k in _index_entries(their_root.data)
        ], where
        expected_info = [
            (key, hfile_key(_row(value)) if key == b"hfile.LASTKEY" else value)
            for key, value in their_info
            if not (key == b"hfile.LASTKEY" and not cells)
        ]
        assert _file_info_pairs(our_info.data) == expected_info, where
        ours_fields, theirs_fields = _trailer_fields(ours), _trailer_fields(theirs)
        differing = {
            TRAILER_NAMES[f]
            for f in ours_fields.keys() | theirs_fields.keys()
            if ours_fields.get(f) != theirs_fields.get(f)
        }
        if cells:
            assert differing <= {"file_info_offset", "uncompressed_data_index_size", "total_uncompressed_bytes"}, where
        else:
            assert differing == {"total_uncompressed_bytes", "last_data_block_offset"}, where
        assert theirs[-4:] == b"\x00\x00\x00\x03"
    assert seen_blocks[b"DATABLK*"] > 150 and seen_blocks[b"METABLKc"] > 50


# ---- 3. errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "bad"),
    [
        ([b"b", b"a"], b"a"),
        ([b"a", b"c", b"b"], b"b"),
        ([b"a", b"a"], b"a"),
        ([b"ab", b"a"], b"a"),
    ],
)
def test_unsorted_or_duplicate_keys_are_rejected(rows: list[bytes], bad: bytes) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(bad))) as error:
        write_hfile([(row, b"v") for row in rows])
    assert ("duplicate" in str(error.value)) == (rows.count(bad) > 1)


def test_writer_owned_file_info_keys_are_rejected() -> None:
    with pytest.raises(ValueError, match=re.escape("hfile.LASTKEY")):
        write_hfile([], file_info={b"hfile.LASTKEY": b"x"})


@pytest.mark.parametrize("kwargs", [{"block_size": 0}, {"compression": 3}])
def test_bad_options_are_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        write_hfile([(b"a", b"v")], **kwargs)  # type: ignore[arg-type]


def test_too_long_row_is_rejected() -> None:
    with pytest.raises(ValueError, match="longer than"):
        write_hfile([(b"x" * 40000, b"v")])


# ---- 4. hudi-rs reads what we write ---------------------------------------------------------------


@pytest.mark.conformance
@pytest.mark.parametrize("block_size", [DEFAULT_BLOCK_SIZE, 200])
def test_hudi_rs_reads_rewritten_mdt_base_files(block_size: int, corpus_copy: Callable[[str], Path]) -> None:
    """hudi-rs reads our rewrite of each MDT base HFile (one or many data blocks) as it reads Hudi's."""
    from hudi import HudiFileGroupReader  # noqa: PLC0415 - hudi-rs loads only for this test

    metadata = corpus_copy("sample_table/mor/avro/v9_txns_complex_meta") / ".hoodie" / "metadata"
    reader = HudiFileGroupReader(str(metadata))
    paths = [
        p for p in sorted(metadata.glob("*/*.hfile")) if p.parent.name in ("files", "column_stats", "partition_stats")
    ]
    assert len(paths) >= 4
    rows = most_blocks = 0
    for path in paths:
        relative = str(path.relative_to(metadata))
        theirs = path.read_bytes()
        expected = reader.read_file_slice_from_paths(relative, []).to_pylist()
        info = read_hfile_info(theirs, relative)
        ours = write_hfile(
            read_hfile_cells(theirs, relative),
            file_info={k: v for k, v in info.items() if k not in WRITER_FILE_INFO_KEYS},
            meta_blocks=_meta_blocks(_blocks(theirs)),
            block_size=block_size,
        )
        path.write_bytes(ours)
        assert reader.read_file_slice_from_paths(relative, []).to_pylist() == expected, relative
        rows += len(expected)
        most_blocks = max(most_blocks, sum(1 for b in _blocks(ours) if b.magic == b"DATABLK*"))
    assert rows > 50
    assert most_blocks > 10 if block_size == 200 else most_blocks == 1
