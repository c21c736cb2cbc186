"""Writing Merge-on-Read log files: data blocks and delete blocks, framed as Hudi frames them.

On table version 8 each deltacommit starts its own log file, `.<fileId>_<instant>.log.<v>_<token>`,
version 1 unless a retry already left one (notes §3.2). Data blocks are Avro (content version 3)
by default or Parquet; deletes carry each key's ordering value in the wrapper record of the ordering
field's type, or IntWrapper(0) when there is none (notes §4.5).
"""

from __future__ import annotations

import io
import json
import posixpath
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import fastavro
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_core.file_group.log_file.avro_codec import encode_datums
from hudi_core.file_group.log_file.format import BlockType, HeaderKey, encode_block
from hudi_core.file_group.naming import LogFileName
from hudi_core.schema.wrappers import DELETE_RECORD_LIST_SCHEMA, NAMESPACE, raw_values, wrap_value
from hudi_core.storage import Storage

AVRO_BLOCK_VERSION = 3
DELETE_BLOCK_VERSION = 3
_DELETE_SCHEMA = fastavro.parse_schema(DELETE_RECORD_LIST_SCHEMA)
# Built from buffers: `pa.scalar` imports pandas on first use.
_NO_SEPARATOR = pa.Array.from_buffers(
    pa.large_binary(), 1, [None, pa.py_buffer(np.zeros(2, dtype=np.int64).tobytes()), pa.py_buffer(b"")]
)[0]


def _header(
    instant_time: str,
    writer_schema: dict[str, Any],
    compacted_times: Sequence[str] = (),
    extra: Mapping[HeaderKey, str] | None = None,
) -> dict[HeaderKey, str]:
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: json.dumps(writer_schema, separators=(",", ":"))}
    if compacted_times:  # a log-compacted block names the instants whose blocks it replaces
        header[HeaderKey.COMPACTED_BLOCK_TIMES] = ",".join(compacted_times)
    header.update(extra or {})
    return header


def avro_data_block(
    instant_time: str,
    writer_schema: dict[str, Any],
    records: pa.Table,
    block_type: BlockType = BlockType.AVRO_DATA,
    compacted_times: Sequence[str] = (),
    extra: Mapping[HeaderKey, str] | None = None,
) -> bytes:
    """An AVRO_DATA block (or a CDC_DATA block, same content) of `records` in `writer_schema`;
    `extra`: more header entries (record positions)."""
    data, offsets = encode_datums(writer_schema, records)
    return framed_avro_block(instant_time, writer_schema, data, offsets, block_type, compacted_times, extra)


def framed_avro_block(
    instant_time: str,
    writer_schema: dict[str, Any],
    data: bytes | memoryview,
    offsets: npt.NDArray[np.int64],
    block_type: BlockType = BlockType.AVRO_DATA,
    compacted_times: Sequence[str] = (),
    extra: Mapping[HeaderKey, str] | None = None,
) -> bytes:
    """An AVRO_DATA (or CDC_DATA) block of datums already encoded (`encode_datums`): record `i`
    is `data[offsets[i] : offsets[i + 1]]` (`offsets` may be a slice of the encoding's)."""
    count = len(offsets) - 1
    content = struct.pack(">ii", AVRO_BLOCK_VERSION, count) + _length_prefixed(data, offsets)
    return encode_block(block_type, _header(instant_time, writer_schema, compacted_times, extra), content)


def _length_prefixed(data: bytes | memoryview, offsets: npt.NDArray[np.int64]) -> bytes:
    """The datums, each after its length as a big-endian int32 (the block's record framing)."""
    count = len(offsets) - 1
    if count <= 0:
        return b""
    relative = (offsets - offsets[0]).astype(np.int64)
    payload = pa.py_buffer(data).slice(int(offsets[0]), int(relative[-1]))
    datums = pa.Array.from_buffers(pa.large_binary(), count, [None, pa.py_buffer(relative), payload])
    lengths = np.diff(relative).astype(">i4").tobytes()
    prefixes = pa.Array.from_buffers(pa.binary(4), count, [None, pa.py_buffer(lengths)])
    # One pass in Arrow: per record, its 4 length bytes then its datum, back to back.
    framed = pc.binary_join_element_wise(prefixes.cast(pa.large_binary()), datums, _NO_SEPARATOR)
    end = int(np.frombuffer(framed.buffers()[1], dtype=np.int64, count=count + 1)[-1])
    content: bytes = framed.buffers()[2].slice(0, end).to_pybytes()
    return content


def parquet_data_block(
    instant_time: str,
    writer_schema: dict[str, Any],
    records: pa.Table,
    compression: str,
    extra: Mapping[HeaderKey, str] | None = None,
) -> bytes:
    """A PARQUET_DATA block: a whole Parquet file of `records`."""
    sink = pa.BufferOutputStream()
    pq.write_table(records, sink, compression=compression, store_schema=False)
    header = _header(instant_time, writer_schema, extra=extra)
    return encode_block(BlockType.PARQUET_DATA, header, sink.getvalue().to_pybytes())


def delete_block(
    instant_time: str,
    writer_schema: dict[str, Any],
    keys: Sequence[str],
    partitions: Sequence[str],
    ordering: pa.Array | None,
    compacted_times: Sequence[str] = (),
    extra: Mapping[HeaderKey, str] | None = None,
) -> bytes:
    """A DELETE block (`HoodieDeleteRecordList`) for `keys`."""
    natural = (f"{NAMESPACE}.IntWrapper", {"value": 0})
    if ordering is None:
        wrappers: list[Any] = [natural] * len(keys)
    else:
        wrappers = [wrap_value(v, ordering.type) or natural for v in raw_values(ordering)]
    records = [
        {"recordKey": key, "partitionPath": partition, "orderingVal": wrapped}
        for key, partition, wrapped in zip(keys, partitions, wrappers, strict=True)
    ]
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, _DELETE_SCHEMA, {"deleteRecordList": records})
    datum = buffer.getvalue()
    content = struct.pack(">ii", DELETE_BLOCK_VERSION, len(datum)) + datum
    return encode_block(BlockType.DELETE, _header(instant_time, writer_schema, compacted_times, extra), content)


def new_log_file_name(
    storage: Storage, partition_path: str, file_id: str, instant_time: str, write_token: str, cdc: bool = False
) -> str:
    """The next free (CDC) log file name of this file group and instant (version 1 unless retried)."""
    version = 1
    while True:
        name = LogFileName(file_id, instant_time, version, write_token, is_cdc=cdc).name
        if not storage.exists(posixpath.join(partition_path, name)):
            return name
        version += 1
