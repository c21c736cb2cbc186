"""Log format version 1: block framing and header maps (spec notes §4.1-4.3, verified on real files).

    "#HUDI#" | int64 blockLength | int32 formatVersion | int32 blockType | header map
    | int64 contentLength | content | footer map | int64 reversePointer (= blockLength + 6)

Integers are big-endian. A map is an int32 count, then per entry an int32 key ordinal, an int32
byte length and the UTF-8 value. Block type and header key ordinals are 0-based in real files.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Mapping

from hudi_core.errors import FileFormatError

MAGIC = b"#HUDI#"
LOG_FORMAT_VERSION = 1


class BlockType(enum.IntEnum):
    COMMAND = 0
    DELETE = 1
    CORRUPT = 2
    AVRO_DATA = 3
    HFILE_DATA = 4
    PARQUET_DATA = 5
    CDC_DATA = 6


class HeaderKey(enum.IntEnum):
    INSTANT_TIME = 0
    TARGET_INSTANT_TIME = 1
    SCHEMA = 2
    COMMAND_BLOCK_TYPE = 3
    COMPACTED_BLOCK_TIMES = 4
    RECORD_POSITIONS = 5
    BLOCK_IDENTIFIER = 6
    IS_PARTIAL = 7
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8


ROLLBACK_COMMAND = "0"


def read_header_map(data: bytes | memoryview, pos: int, where: str) -> tuple[dict[HeaderKey, str], int]:
    """Decodes one header/footer map at `pos`; returns it and the position after it."""
    try:
        (count,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if count < 0 or count > 64:
            raise FileFormatError(f"{where}: implausible header entry count {count}")
        header: dict[HeaderKey, str] = {}
        for _ in range(count):
            ordinal, length = struct.unpack_from(">ii", data, pos)
            pos += 8
            if length < 0 or pos + length > len(data):
                raise FileFormatError(f"{where}: header value of {length} bytes runs past the block")
            value = bytes(data[pos : pos + length]).decode("utf-8")
            pos += length
            try:
                header[HeaderKey(ordinal)] = value
            except ValueError:
                continue  # a newer Hudi's header key: irrelevant to reading
        return header, pos
    except struct.error as e:
        raise FileFormatError(f"{where}: truncated header map: {e}") from e


def encode_header_map(header: Mapping[HeaderKey, str]) -> bytes:
    parts = [struct.pack(">i", len(header))]
    for key, value in header.items():
        encoded = value.encode("utf-8")
        parts.append(struct.pack(">ii", int(key), len(encoded)))
        parts.append(encoded)
    return b"".join(parts)


def encode_block(block_type: BlockType, header: Mapping[HeaderKey, str], content: bytes) -> bytes:
    """Frames one block exactly as Hudi's `HoodieLogFormatWriter` does (empty footer)."""
    header_bytes = encode_header_map(header)
    footer_bytes = encode_header_map({})
    block_length = 4 + 4 + len(header_bytes) + 8 + len(content) + len(footer_bytes) + 8
    return b"".join(
        (
            MAGIC,
            struct.pack(">q", block_length),
            struct.pack(">ii", LOG_FORMAT_VERSION, int(block_type)),
            header_bytes,
            struct.pack(">q", len(content)),
            content,
            footer_bytes,
            struct.pack(">q", block_length + len(MAGIC)),
        )
    )
