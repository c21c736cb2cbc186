"""Reading HFiles (version 3): the metadata table's base files and HFILE_DATA log blocks.

Layout (spec notes §6): data blocks (`DATABLK*`), meta blocks, the load-on-open section (root
index, meta index, file info) and a fixed 4096-byte trailer ending in the version. Every block has
a 33-byte header; its data is compressed with the trailer's codec (GZ in Hudi) and followed by
checksum bytes. A cell is `int32 keyLen, int32 valueLen, key, value, vint memstoreTS`, and a key is
`int16 rowLen, row, int8 familyLen, family, qualifier, int64 timestamp, int8 type`; Hudi keeps the
record key in the row.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from dataclasses import dataclass

from hudi_core.errors import FileFormatError, UnsupportedFeatureError

TRAILER_SIZE = 4096
TRAILER_MAGIC = b'TRABLK"$'
BLOCK_HEADER_SIZE = 33
DATA_BLOCK_MAGIC = b"DATABLK*"
FILE_INFO_MAGIC = b"FILEINF2"

CODEC_GZ = 1
CODEC_NONE = 2


@dataclass(frozen=True)
class HFileTrailer:
    file_info_offset: int
    load_on_open_offset: int
    entry_count: int
    first_data_block_offset: int
    last_data_block_offset: int
    compression_codec: int
    major_version: int


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """A protobuf base-128 varint at `pos`; returns (value, next position)."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise FileFormatError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def protobuf_fields(data: bytes) -> dict[int, list[int | bytes]]:
    fields: dict[int, list[int | bytes]] = {}
    pos = 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        value: int | bytes
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 2:
            length, pos = read_varint(data, pos)
            value, pos = data[pos : pos + length], pos + length
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise FileFormatError(f"unsupported protobuf wire type {wire}")
        fields.setdefault(number, []).append(value)
    return fields


def _hadoop_vlong(data: bytes, pos: int) -> tuple[int, int]:
    """Hadoop `WritableUtils` variable-length long; returns (value, next position)."""
    first = struct.unpack_from(">b", data, pos)[0]
    pos += 1
    if first >= -112:
        return first, pos
    negative = first < -120
    length = (-119 - first) if negative else (-111 - first)
    value = 0
    for _ in range(length - 1):
        value = (value << 8) | data[pos]
        pos += 1
    return (~value if negative else value), pos


def read_trailer(data: bytes, where: str) -> HFileTrailer:
    if len(data) < TRAILER_SIZE:
        raise FileFormatError(f"{where}: {len(data)} bytes is too short for an HFile")
    trailer = data[-TRAILER_SIZE:]
    if not trailer.startswith(TRAILER_MAGIC):
        raise FileFormatError(f"{where}: no HFile trailer magic")
    version = struct.unpack_from(">i", trailer, TRAILER_SIZE - 4)[0]
    major = version & 0x00FFFFFF
    if major != 3:
        raise UnsupportedFeatureError(f"{where}: HFile major version {major} is not supported (expected 3)")
    length, pos = read_varint(trailer, len(TRAILER_MAGIC))
    fields = protobuf_fields(trailer[pos : pos + length])

    def number(field: int, default: int = 0) -> int:
        values = fields.get(field)
        return int(values[0]) if values and isinstance(values[0], int) else default

    return HFileTrailer(
        file_info_offset=number(1),
        load_on_open_offset=number(2),
        entry_count=number(7),
        first_data_block_offset=number(9),
        last_data_block_offset=number(10),
        compression_codec=number(12, CODEC_NONE),
        major_version=major,
    )


def _block(data: bytes, offset: int, codec: int, where: str) -> tuple[bytes, bytes, int]:
    """(magic, uncompressed data, offset of the next block) of the block at `offset`."""
    if offset + BLOCK_HEADER_SIZE > len(data):
        raise FileFormatError(f"{where}: HFile block header at {offset} runs past the file")
    magic = data[offset : offset + 8]
    on_disk_size, uncompressed_size = struct.unpack_from(">ii", data, offset + 8)
    (data_size_with_header,) = struct.unpack_from(">i", data, offset + 29)
    payload = data[offset + BLOCK_HEADER_SIZE : offset + data_size_with_header]
    if codec == CODEC_GZ:
        try:
            payload = gzip.decompress(payload) if payload[:2] == b"\x1f\x8b" else zlib.decompress(payload)
        except (OSError, zlib.error) as e:
            raise FileFormatError(f"{where}: cannot decompress HFile block at {offset}: {e}") from e
    elif codec != CODEC_NONE:
        raise UnsupportedFeatureError(f"{where}: HFile compression codec {codec} is not supported (GZ and NONE are)")
    if len(payload) != uncompressed_size:
        raise FileFormatError(
            f"{where}: HFile block at {offset} holds {len(payload)} bytes, header says {uncompressed_size}"
        )
    return magic, payload, offset + BLOCK_HEADER_SIZE + on_disk_size


def read_hfile_cells(content: bytes | memoryview, where: str) -> list[tuple[bytes, bytes]]:
    """Every (row key, value) cell of the HFile's data blocks, in file order."""
    data = bytes(content)
    trailer = read_trailer(data, where)
    cells: list[tuple[bytes, bytes]] = []
    offset = trailer.first_data_block_offset
    while offset < trailer.load_on_open_offset and offset <= trailer.last_data_block_offset:
        magic, payload, offset = _block(data, offset, trailer.compression_codec, where)
        if magic != DATA_BLOCK_MAGIC:
            continue  # leaf index or bloom chunks interleaved with data in multi-level files
        pos = 0
        try:
            while pos < len(payload):
                key_length, value_length = struct.unpack_from(">ii", payload, pos)
                pos += 8
                (row_length,) = struct.unpack_from(">h", payload, pos)
                row = payload[pos + 2 : pos + 2 + row_length]
                pos += key_length
                cells.append((row, payload[pos : pos + value_length]))
                pos += value_length
                _, pos = _hadoop_vlong(payload, pos)
        except struct.error as e:
            raise FileFormatError(f"{where}: truncated HFile cell in block: {e}") from e
    if len(cells) != trailer.entry_count:
        raise FileFormatError(f"{where}: read {len(cells)} HFile cells, trailer says {trailer.entry_count}")
    return cells


def read_hfile_info(data: bytes, where: str) -> dict[bytes, bytes]:
    """The HFile's file-info map (schema, min/max record key, ...)."""
    trailer = read_trailer(data, where)
    magic, payload, _ = _block(data, trailer.file_info_offset, trailer.compression_codec, where)
    if magic != FILE_INFO_MAGIC or not payload.startswith(b"PBUF"):
        raise FileFormatError(f"{where}: no HFile file-info block at {trailer.file_info_offset}")
    length, pos = read_varint(payload, 4)
    info: dict[bytes, bytes] = {}
    for entry in protobuf_fields(payload[pos : pos + length]).get(1, []):
        if isinstance(entry, bytes):
            pair = protobuf_fields(entry)
            key, value = pair.get(1, [b""])[0], pair.get(2, [b""])[0]
            if isinstance(key, bytes) and isinstance(value, bytes):
                info[key] = value
    return info
