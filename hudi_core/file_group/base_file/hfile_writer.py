"""Writing HFiles (version 3) the way Apache Hudi 1.x writes the metadata table's HFiles.

The output is the layout of Hudi's native writer (`hudi-io` `HFileWriterImpl`, Hudi 1.1+): data
blocks, one meta block per name, the load-on-open section (root data index, meta index, file info)
and the 4096-byte trailer; every block is gzip-compressed with NULL checksums. Data and meta blocks
holding what a Hudi 1.1 file holds are byte-identical to its blocks (but for the gzip OS byte, which
depends on the JDK), and so is the file info's entry order (`hfile.AVG_KEY_LEN` averages row lengths
as Hudi 1.1 does). Where the native writer and the HBase writer Hudi 1.0.x used differ, we pick what
every reader (HBase-based Hudi 1.0.x, Hudi's native reader, hudi-rs, :mod:`.hfile`) accepts:

* index and `hfile.LASTKEY` keys are full KeyValue keys (HBase); the native writer stores only
  `int16 rowLen + row`, which HBase's comparator would read past. The other readers compare the row
  part only, so either form works for them. An empty file has no `hfile.LASTKEY` (HBase cannot parse
  an empty key).
* `prevBlockOffset` chains blocks of the same type, and the trailer's `uncompressed_data_index_size`
  and `total_uncompressed_bytes` have their HBase meanings. No reader uses them to find data.
* a data block is closed once its uncompressed size reaches `block_size` (HBase's rule).
"""

from __future__ import annotations

import struct
import time
import zlib
from collections.abc import Iterable, Mapping

from hudi_core.file_group.base_file.hfile import (
    BLOCK_HEADER_SIZE,
    CODEC_GZ,
    CODEC_NONE,
    DATA_BLOCK_MAGIC,
    FILE_INFO_MAGIC,
    TRAILER_MAGIC,
    TRAILER_SIZE,
)

META_BLOCK_MAGIC = b"METABLKc"
ROOT_INDEX_MAGIC = b"IDXROOT2"

DEFAULT_BLOCK_SIZE = 1024 * 1024
"""`hoodie.hfile.block.size` (MDT base files) and `HoodieHFileDataBlock`'s block size: 1 MiB."""

COMPARATOR_CLASS_NAME = b"org.apache.hudi.io.storage.HoodieHBaseKVComparator"
BYTES_PER_CHECKSUM = 16384
CHECKSUM_NULL = 0
LATEST_TIMESTAMP = 0x7FFFFFFFFFFFFFFF
KEY_TYPE_PUT = 4

# Minor version 3 in the first byte, major version 3 in the other three: what HBase's writer (Hudi
# 1.0.x) writes. HBase readers interpret the minor version, and 3 is the one they write themselves;
# Hudi's native reader and hudi-rs check only the major version (Hudi 1.1's writer puts 0 there).
VERSION_BYTES = b"\x03\x00\x00\x03"

# gzip member header as java.util.zip.GZIPOutputStream writes it (no name, mtime 0, OS byte 0 as
# before JDK 16); with zlib level 6 the whole stream matches Java's byte for byte.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
_GZIP_LEVEL = 6

FILE_INFO_LAST_KEY = b"hfile.LASTKEY"
FILE_INFO_AVG_KEY_LEN = b"hfile.AVG_KEY_LEN"
FILE_INFO_AVG_VALUE_LEN = b"hfile.AVG_VALUE_LEN"
FILE_INFO_CREATE_TIME = b"hfile.CREATE_TIME_TS"
FILE_INFO_KEY_VALUE_VERSION = b"KEY_VALUE_VERSION"
FILE_INFO_MAX_MEMSTORE_TS = b"MAX_MEMSTORE_TS_KEY"
WRITER_FILE_INFO_KEYS = frozenset(
    {
        FILE_INFO_LAST_KEY,
        FILE_INFO_AVG_KEY_LEN,
        FILE_INFO_AVG_VALUE_LEN,
        FILE_INFO_CREATE_TIME,
        FILE_INFO_KEY_VALUE_VERSION,
        FILE_INFO_MAX_MEMSTORE_TS,
    }
)
"""File-info keys the writer sets itself; callers may not pass them."""

_MAX_ROW_LENGTH = 0x7FFF


def hfile_key(row: bytes) -> bytes:
    """The KeyValue key Hudi stores a record key under: row, no family/qualifier, latest timestamp, Put."""
    if len(row) > _MAX_ROW_LENGTH:
        raise ValueError(f"HFile row key of {len(row)} bytes is longer than {_MAX_ROW_LENGTH}")
    return struct.pack(">h", len(row)) + row + struct.pack(">bqb", 0, LATEST_TIMESTAMP, KEY_TYPE_PUT)


def write_hfile(
    cells: Iterable[tuple[bytes, bytes]],
    *,
    file_info: Mapping[bytes, bytes] | None = None,
    meta_blocks: Mapping[bytes, bytes] | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    compression: int = CODEC_GZ,
    create_time_ms: int | None = None,
) -> bytes:
    """A complete HFile holding `cells` (row key, value), which must be strictly increasing by row key.

    `file_info` entries (e.g. `schema`, `minRecordKey`) are added to the ones the writer sets itself
    (`WRITER_FILE_INFO_KEYS`); `meta_blocks` maps a block name (e.g. `bloomFilter`) to its content.
    `create_time_ms` fills `hfile.CREATE_TIME_TS` (default: now) so output can be reproduced.
    """
    if block_size <= 0:
        raise ValueError(f"HFile block size must be positive, got {block_size}")
    if compression not in (CODEC_GZ, CODEC_NONE):
        raise ValueError(f"HFile compression codec {compression} is not supported (GZ=1 and NONE=2 are)")
    user_info = dict(file_info or {})
    reserved = sorted(WRITER_FILE_INFO_KEYS.intersection(user_info))
    if reserved:
        raise ValueError(f"file info keys {reserved} are set by the HFile writer")
    writer = _Writer(block_size, compression)
    for row, value in cells:
        writer.append(row, value)
    return writer.finish(user_info, dict(meta_blocks or {}), create_time_ms)


class _Writer:
    """Accumulates the file; blocks are serialized as soon as they are complete."""

    def __init__(self, block_size: int, compression: int) -> None:
        self.block_size = block_size
        self.compression = compression
        self.out = bytearray()
        self.prev_offset: dict[bytes, int] = {}
        self.total_uncompressed = 0  # HBase's trailer total: blocks but the root index, with headers
        self.block: list[bytes] = []
        self.block_bytes = 0
        self.block_first_key = b""
        self.index: list[tuple[int, int, bytes]] = []
        self.last_row: bytes | None = None
        self.entry_count = 0
        self.key_bytes = 0
        self.value_bytes = 0

    def append(self, row: bytes, value: bytes) -> None:
        if self.last_row is not None and row <= self.last_row:
            problem = "duplicate" if row == self.last_row else "out-of-order"
            raise ValueError(f"HFile cells must be strictly increasing by row key: {problem} key {row!r}")
        key = hfile_key(row)
        cell = struct.pack(">ii", len(key), len(value)) + key + value + b"\x00"  # memstore TS vlong 0
        if not self.block:
            self.block_first_key = key
        self.block.append(cell)
        self.block_bytes += len(cell)
        self.last_row = row
        self.entry_count += 1
        self.key_bytes += len(row)
        self.value_bytes += len(value)
        if self.block_bytes >= self.block_size:
            self._flush_data_block()

    def _flush_data_block(self) -> None:
        if not self.block:
            return
        offset, size = self._write_block(DATA_BLOCK_MAGIC, b"".join(self.block))
        self.index.append((offset, size, self.block_first_key))
        self.block, self.block_bytes = [], 0

    def _write_block(self, magic: bytes, data: bytes, *, in_total: bool = True) -> tuple[int, int]:
        """Appends one block; returns its offset and on-disk size including header and checksums."""
        payload = _gzip(data) if self.compression == CODEC_GZ else data
        data_size_with_header = BLOCK_HEADER_SIZE + len(payload)
        checksum_bytes = 4 * -(-data_size_with_header // BYTES_PER_CHECKSUM)  # one slot per started chunk
        offset = len(self.out)
        self.out += magic + struct.pack(
            ">iiqbii",
            len(payload) + checksum_bytes,
            len(data),
            self.prev_offset.get(magic, -1),
            CHECKSUM_NULL,
            BYTES_PER_CHECKSUM,
            data_size_with_header,
        )
        self.out += payload + bytes(checksum_bytes)
        self.prev_offset[magic] = offset
        if in_total:
            self.total_uncompressed += BLOCK_HEADER_SIZE + len(data)
        return offset, len(self.out) - offset

    def finish(
        self, user_info: dict[bytes, bytes], meta_blocks: dict[bytes, bytes], create_time_ms: int | None
    ) -> bytes:
        self._flush_data_block()
        meta_index = []
        for name in sorted(meta_blocks):  # HBase binary-searches the meta index by name
            offset, size = self._write_block(META_BLOCK_MAGIC, meta_blocks[name])
            meta_index.append((offset, size, name))
        load_on_open_offset = len(self.out)
        data_index = _index_block(self.index)
        self._write_block(ROOT_INDEX_MAGIC, data_index, in_total=False)  # HBase counts it in field 3 only
        self._write_block(ROOT_INDEX_MAGIC, _index_block(meta_index))
        file_info_offset = len(self.out)
        self._write_block(FILE_INFO_MAGIC, self._file_info(user_info, create_time_ms))
        first_data = self.index[0][0] if self.index else -1
        last_data = self.index[-1][0] if self.index else -1
        trailer = b"".join(
            [
                _pb_uint(1, file_info_offset),
                _pb_uint(2, load_on_open_offset),
                _pb_uint(3, len(data_index)),
                _pb_uint(4, self.total_uncompressed + TRAILER_SIZE),
                _pb_uint(5, len(self.index)),
                _pb_uint(6, len(meta_index)),
                _pb_uint(7, self.entry_count),
                _pb_uint(8, 1),  # single-level data index
                _pb_uint(9, first_data),
                _pb_uint(10, last_data),
                _pb_bytes(11, COMPARATOR_CLASS_NAME),
                _pb_uint(12, self.compression),
            ]
        )
        head = TRAILER_MAGIC + _varint(len(trailer)) + trailer
        self.out += head + bytes(TRAILER_SIZE - len(head) - len(VERSION_BYTES)) + VERSION_BYTES
        return bytes(self.out)

    def _file_info(self, user_info: dict[bytes, bytes], create_time_ms: int | None) -> bytes:
        """`PBUF` + delimited InfoProto, entries in the order Hudi's Java HashMap iterates them."""
        count = self.entry_count
        created = int(time.time() * 1000) if create_time_ms is None else create_time_ms
        # Insertion order of Hudi's native writer: MVCC key at construction, caller's entries, then close().
        entries: list[tuple[bytes, bytes]] = [(FILE_INFO_MAX_MEMSTORE_TS, struct.pack(">q", 0)), *user_info.items()]
        if self.last_row is not None:
            entries.append((FILE_INFO_LAST_KEY, hfile_key(self.last_row)))
        entries += [
            (FILE_INFO_AVG_KEY_LEN, struct.pack(">i", self.key_bytes // count if count else 0)),
            (FILE_INFO_CREATE_TIME, struct.pack(">q", created)),
            (FILE_INFO_AVG_VALUE_LEN, struct.pack(">i", self.value_bytes // count if count else 0)),
            (FILE_INFO_KEY_VALUE_VERSION, struct.pack(">i", 1)),  # cells carry a memstore TS
        ]
        info = b"".join(
            _pb_bytes(1, _pb_bytes(1, key) + _pb_bytes(2, value)) for key, value in _java_hash_map_order(entries)
        )
        return b"PBUF" + _varint(len(info)) + info


def _index_block(entries: list[tuple[int, int, bytes]]) -> bytes:
    """Root index entries: int64 offset, int32 on-disk size, Hadoop vint key length, key."""
    return b"".join(struct.pack(">qi", offset, size) + _hadoop_vint(len(key)) + key for offset, size, key in entries)


def _gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(_GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(data) + compressor.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _java_hash_map_order(entries: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Iteration order of a `java.util.HashMap<String, byte[]>` filled with `entries` in this order.

    Buckets in index order, insertion order within a bucket (resizes keep it); capacity 16 doubling
    while size > 0.75 * capacity. Tree bins (9+ keys in one bucket) are not modelled.
    """
    capacity = 16
    while len(entries) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: bytes) -> int:
        h = 0
        utf16 = key.decode("utf-8", errors="replace").encode("utf-16-be")
        for i in range(0, len(utf16), 2):
            h = (31 * h + int.from_bytes(utf16[i : i + 2], "big")) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(entries, key=lambda entry: bucket(entry[0]))  # stable: keeps insertion order per bucket


def _varint(value: int) -> bytes:
    """Protobuf base-128 varint; negative int64 values as their 64-bit two's complement."""
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _pb_uint(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _pb_bytes(field: int, value: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(value)) + value


def _hadoop_vint(value: int) -> bytes:
    """Hadoop `WritableUtils.writeVLong` for a non-negative value."""
    if value <= 127:
        return bytes([value])
    body = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return struct.pack(">b", -112 - len(body)) + body
