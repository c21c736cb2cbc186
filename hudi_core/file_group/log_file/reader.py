"""Walking the blocks of one log file, skipping corrupt ones exactly where Hudi does.

Hudi's `HoodieLogFileReader` (spec notes §4.1): after the magic it reads the block length and
checks the frame before trusting it — the block must end inside the file, the reverse pointer at its
end must equal length + 6, and the next bytes must be another magic or the end of the file.
Otherwise the bytes from there to the next magic (or EOF) form a corrupt block, which the scanner
ignores, and reading resumes at that magic. So a torn tail is dropped and a damaged block in the
middle costs only itself. Fewer than six trailing bytes end the file; any other bytes where a magic
is due make the file unreadable.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from hudi_core import metrics
from hudi_core.errors import FileFormatError
from hudi_core.file_group.log_file.format import MAGIC, BlockType, HeaderKey, read_header_map


@dataclass(frozen=True)
class RawBlock:
    """One framed block: its type, header and undecoded content.

    Attributes:
        block_type: the block type (CORRUPT for bytes that failed the frame checks).
        header: the header map (empty for corrupt blocks).
        content: the content bytes.
        log_file: the log file path (relative to the base path), for messages.
        offset: the byte offset of the block in its file.
    """

    block_type: BlockType
    header: dict[HeaderKey, str]
    content: bytes | memoryview = field(repr=False)
    log_file: str
    offset: int

    @property
    def instant_time(self) -> str | None:
        return self.header.get(HeaderKey.INSTANT_TIME)

    def describe(self) -> str:
        return f"{self.block_type.name} block at offset {self.offset} of {self.log_file}"


def _frame_is_sound(data: bytes, length_end: int, block_length: int) -> bool:
    if block_length < 8:  # too short to hold its own reverse pointer
        return False
    end = length_end + block_length
    if end > len(data):
        return False
    (reverse_pointer,) = struct.unpack_from(">q", data, end - 8)
    if reverse_pointer - len(MAGIC) != block_length:
        return False
    following = data[end : end + len(MAGIC)]
    return len(following) < len(MAGIC) or following == MAGIC


def read_log_blocks(data: bytes, log_file: str, counted: bool = True) -> list[RawBlock]:
    """Every block of a log file's bytes, in file order (corrupt stretches as CORRUPT blocks).

    Block contents are views into `data`, not copies. `counted=False` keeps metadata-table logs
    out of the data log counters.
    """
    view = memoryview(data)
    blocks: list[RawBlock] = []
    pos = 0
    size = len(data)
    while size - pos >= len(MAGIC):
        if data[pos : pos + len(MAGIC)] != MAGIC:
            raise FileFormatError(f"{log_file}: no log block magic at offset {pos}")
        start = pos
        pos += len(MAGIC)
        block_length = struct.unpack_from(">q", data, pos)[0] if size - pos >= 8 else -1
        if block_length < 0 or not _frame_is_sound(data, pos + 8, block_length):
            corrupt_from = min(pos + 8, size) if block_length >= 0 else pos
            following = data.find(MAGIC, corrupt_from)
            next_block = following if following >= 0 else size
            blocks.append(RawBlock(BlockType.CORRUPT, {}, view[corrupt_from:next_block], log_file, start))
            pos = next_block
            continue
        pos += 8
        blocks.append(_parse_block(view, pos, pos + block_length, log_file, start))
        pos += block_length
    if counted:
        metrics.add(log_files_read=1, log_blocks_read=len(blocks))
    return blocks


def _parse_block(data: memoryview, pos: int, end: int, log_file: str, start: int) -> RawBlock:
    where = f"{log_file} (block at offset {start})"
    try:
        version, type_ordinal = struct.unpack_from(">ii", data, pos)
        pos += 8
        if version != 1:
            raise FileFormatError(f"{where}: log format version {version} is not supported (expected 1)")
        try:
            block_type = BlockType(type_ordinal)
        except ValueError as e:
            raise FileFormatError(f"{where}: unknown log block type {type_ordinal}") from e
        header, pos = read_header_map(data, pos, where)
        (content_length,) = struct.unpack_from(">q", data, pos)
        pos += 8
        if content_length < 0 or pos + content_length > end:
            raise FileFormatError(f"{where}: content of {content_length} bytes runs past the block")
        content = data[pos : pos + content_length]
    except struct.error as e:
        raise FileFormatError(f"{where}: truncated block: {e}") from e
    return RawBlock(block_type, header, content, log_file, start)
