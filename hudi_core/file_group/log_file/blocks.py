"""Decoding log block contents into Arrow (spec notes §4.4-4.8).

* AVRO_DATA (content version 3): `int32 version, int32 count`, then per record `int32 length` and a
  schemaless Avro datum in the writer schema of the block's SCHEMA header (meta fields included),
  decoded column-wise for the whole block by :mod:`avro_codec`.
* PARQUET_DATA: a whole Parquet file. HFILE_DATA: a whole HFile whose cell values are Avro datums;
  Hudi's HFile writer blanks a record field named `key` (the cell row carries it) and readers put
  it back.
* DELETE (version 3): one `HoodieDeleteRecordList` datum: record keys, partition paths, and ordering
  values wrapped per type (IntWrapper(0) meaning "no ordering value").
* COMMAND: no content; header COMMAND_BLOCK_TYPE "0" rolls back TARGET_INSTANT_TIME.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core.errors import FileFormatError
from hudi_core.file_group.base_file.hfile import read_hfile_cells
from hudi_core.file_group.log_file.avro_codec import decode_datums
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import RawBlock
from hudi_core.schema.avro import parse_avro_schema
from hudi_core.schema.wrappers import DELETE_RECORD_LIST_SCHEMA, wrapper_short_name

_DELETE_SCHEMA = fastavro.parse_schema(DELETE_RECORD_LIST_SCHEMA)
HFILE_KEY_FIELD = "key"


@dataclass(frozen=True)
class DeleteRecords:
    """The deletes of one delete block.

    Attributes:
        keys: record keys.
        partition_paths: partition paths (may be null).
        ordering_values: each delete's ordering value (None when absent).
        ordering_kinds: the wrapper record of each value (`IntWrapper`, ...), None when absent.
    """

    keys: pa.Array
    partition_paths: pa.Array
    ordering_values: list[Any]
    ordering_kinds: list[str | None]

    def __len__(self) -> int:
        return len(self.keys)


def block_writer_schema(block: RawBlock) -> Any:
    text = block.header.get(HeaderKey.SCHEMA)
    if not text:
        raise FileFormatError(f"{block.describe()}: data block without a SCHEMA header")
    return parse_avro_schema(text, block.describe())


def decode_data_block(block: RawBlock) -> pa.Table:
    """The records of an AVRO_DATA, PARQUET_DATA or HFILE_DATA block, in the block's schema."""
    if block.block_type is BlockType.PARQUET_DATA:
        try:
            return pq.read_table(pa.BufferReader(block.content))
        except (pa.ArrowInvalid, OSError) as e:
            raise FileFormatError(f"{block.describe()}: unreadable Parquet content: {e}") from e
    schema = block_writer_schema(block)
    if block.block_type is BlockType.HFILE_DATA:
        return _decode_hfile_block(block, schema)
    if block.block_type in (BlockType.AVRO_DATA, BlockType.CDC_DATA):
        starts, ends = _avro_record_spans(block)
        return pa.Table.from_batches([decode_datums(schema, block.content, starts, ends=ends)])
    raise FileFormatError(f"{block.describe()}: not a data block")


def avro_records(block: RawBlock) -> list[dict[str, Any]]:
    """The records of an AVRO_DATA block as dicts (for Hudi's own small records, e.g. archived instants)."""
    schema = fastavro.parse_schema(block_writer_schema(block))
    content = bytes(block.content)
    starts, ends = _avro_record_spans(block)
    records: list[dict[str, Any]] = []
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        try:
            record = fastavro.schemaless_reader(io.BytesIO(content[start:end]), schema)
        except Exception as e:  # fastavro raises many exception types on corrupt bytes
            raise FileFormatError(f"{block.describe()}: unreadable Avro record at {start}: {e}") from e
        if not isinstance(record, dict):
            raise FileFormatError(f"{block.describe()}: Avro datum at {start} is not a record")
        records.append(record)
    return records


def _avro_record_spans(block: RawBlock) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the block's datums within its content."""
    content = block.content
    try:
        version, count = struct.unpack_from(">ii", content, 0)
    except struct.error as e:
        raise FileFormatError(f"{block.describe()}: truncated Avro block header") from e
    if version < 2:
        raise FileFormatError(f"{block.describe()}: Avro data block version {version} is not supported")
    positions: list[int] = []
    append = positions.append
    unpack = struct.Struct(">i").unpack_from
    pos = 8
    try:
        for _ in range(count):  # each length prefix locates the next: inherently sequential
            (length,) = unpack(content, pos)
            pos += 4
            append(pos)
            pos += length
    except struct.error as e:
        raise FileFormatError(f"{block.describe()}: truncated Avro record length") from e
    if pos > len(content):
        raise FileFormatError(f"{block.describe()}: Avro records run past the block content")
    starts = np.array(positions, dtype=np.int64)
    # Each datum ends where the next one's 4-byte length prefix begins.
    ends = np.empty(count, dtype=np.int64)
    ends[:-1] = starts[1:] - 4
    if count:
        ends[-1] = pos
    if count and (ends < starts).any():
        raise FileFormatError(f"{block.describe()}: negative Avro record length")
    return starts, ends


def _decode_hfile_block(block: RawBlock, schema: Any) -> pa.Table:
    cells = read_hfile_cells(block.content, block.describe())
    values = [value for _, value in cells]
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in values], out=offsets[1:])
    table = pa.Table.from_batches([decode_datums(schema, b"".join(values), offsets)])
    index = table.schema.get_field_index(HFILE_KEY_FIELD)
    if index >= 0 and pa.types.is_string(table.schema.field(index).type):
        rows = pa.array([row.decode("utf-8") for row, _ in cells], pa.string())
        table = table.set_column(index, table.schema.field(index), rows)
    return table


def decode_delete_block(block: RawBlock) -> DeleteRecords:
    content = block.content
    try:
        version, length = struct.unpack_from(">ii", content, 0)
        if version != 3:
            raise FileFormatError(f"{block.describe()}: delete block version {version} is not supported")
        record = fastavro.schemaless_reader(
            io.BytesIO(content[8 : 8 + length]), _DELETE_SCHEMA, None, return_record_name=True
        )
    except FileFormatError:
        raise
    except Exception as e:  # fastavro raises many types on corrupt bytes
        raise FileFormatError(f"{block.describe()}: unreadable delete records: {e}") from e
    assert isinstance(record, dict)
    keys: list[str | None] = []
    partitions: list[str | None] = []
    values: list[Any] = []
    kinds: list[str | None] = []
    for entry in record["deleteRecordList"]:
        keys.append(entry["recordKey"])
        partitions.append(entry["partitionPath"])
        ordering = entry["orderingVal"]
        if ordering is None:
            values.append(None)
            kinds.append(None)
        else:
            name, wrapped = ordering
            values.append(wrapped.get("value", wrapped.get("wrappedValues")))
            kinds.append(wrapper_short_name(name))
    return DeleteRecords(pa.array(keys, pa.string()), pa.array(partitions, pa.string()), values, kinds)
