"""Log block framing: round trips, and corrupt blocks skipped exactly where Hudi skips them."""

from __future__ import annotations

import struct

import pytest

from hudi_core.errors import FileFormatError
from hudi_core.file_group.log_file.format import MAGIC, BlockType, HeaderKey, encode_block
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.log_file.scanner import BlockVisibility, effective_blocks


def _block(instant: str, payload: bytes = b"x" * 20, block_type: BlockType = BlockType.AVRO_DATA) -> bytes:
    return encode_block(block_type, {HeaderKey.INSTANT_TIME: instant, HeaderKey.SCHEMA: "{}"}, payload)


def _kinds(data: bytes) -> list[tuple[str, str | None]]:
    return [(b.block_type.name, b.instant_time) for b in read_log_blocks(data, "test.log")]


def test_encode_block_frames_like_hudi() -> None:
    data = encode_block(BlockType.COMMAND, {HeaderKey.INSTANT_TIME: "1", HeaderKey.COMMAND_BLOCK_TYPE: "0"}, b"")
    (block_length,) = struct.unpack_from(">q", data, 6)
    assert data.startswith(MAGIC) and len(data) == block_length + 14
    assert struct.unpack_from(">q", data, len(data) - 8)[0] == block_length + 6


def test_read_log_blocks_round_trips_several_blocks() -> None:
    data = _block("1") + _block("2", block_type=BlockType.DELETE) + _block("3")
    assert _kinds(data) == [("AVRO_DATA", "1"), ("DELETE", "2"), ("AVRO_DATA", "3")]


def test_read_log_blocks_corrupt_middle_block_skipped_rest_read() -> None:
    first, middle, last = _block("1"), bytearray(_block("2")), _block("3")
    middle[-3] ^= 0xFF  # damage the middle block's reverse pointer
    assert _kinds(first + bytes(middle) + last) == [("AVRO_DATA", "1"), ("CORRUPT", None), ("AVRO_DATA", "3")]


def test_read_log_blocks_middle_block_with_wrong_length_skipped() -> None:
    middle = bytearray(_block("2"))
    middle[6:14] = struct.pack(">q", 5)
    assert _kinds(_block("1") + bytes(middle) + _block("3")) == [
        ("AVRO_DATA", "1"),
        ("CORRUPT", None),
        ("AVRO_DATA", "3"),
    ]


@pytest.mark.parametrize(
    "tail", [MAGIC + struct.pack(">q", 1_000_000) + b"\x00" * 4, MAGIC + b"\x00\x00", _block("9")[:-10]]
)
def test_read_log_blocks_torn_tail_is_a_corrupt_block(tail: bytes) -> None:
    assert _kinds(_block("1") + tail) == [("AVRO_DATA", "1"), ("CORRUPT", None)]


def test_read_log_blocks_short_garbage_tail_ignored() -> None:
    assert _kinds(_block("1") + b"\x01\x02") == [("AVRO_DATA", "1")]


def test_read_log_blocks_garbage_where_magic_due_raises() -> None:
    with pytest.raises(FileFormatError, match="no log block magic at offset 0"):
        read_log_blocks(b"NOTHUDI" + _block("1"), "test.log")


def test_effective_blocks_rollback_uncommitted_and_compacted() -> None:
    rollback = encode_block(
        BlockType.COMMAND,
        {HeaderKey.INSTANT_TIME: "5", HeaderKey.TARGET_INSTANT_TIME: "2", HeaderKey.COMMAND_BLOCK_TYPE: "0"},
        b"",
    )
    compacted = encode_block(
        BlockType.AVRO_DATA, {HeaderKey.INSTANT_TIME: "6", HeaderKey.COMPACTED_BLOCK_TIMES: "1,3"}, b"x"
    )
    data = _block("1") + _block("2") + _block("3") + _block("4") + rollback + compacted + _block("7")
    blocks = read_log_blocks(data, "test.log")
    visible = BlockVisibility(visible=frozenset({"1", "2", "3", "6", "7"}))
    assert [b.instant_time for b in effective_blocks(blocks, visible)] == ["6", "7"]  # 4 was never committed
    bounded = BlockVisibility(visible=frozenset({"3"}), timeline_start="3", upper_bound="4")
    assert [b.instant_time for b in effective_blocks(blocks[:3], bounded)] == ["1", "2", "3"]
