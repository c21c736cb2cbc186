"""Lockstep columnar decoding of Avro datums into Arrow (the design is described in `avro_codec`).

Every reader takes the node, the chunk's bytes, and the current position and end of each row of
its row set; it returns the decoded Arrow array (one value per row, no nulls unless the node is a
union) and the advanced positions.

Corrupt bytes must raise FileFormatError naming the field, never index errors or garbage. A chunk
is first decoded fast: length-prefixed payloads and block counts are checked against the datum
ends before anything is copied, while fixed-size reads are not (numpy bounds-checks gathers, and
the bytes after a chunk absorb small overruns); a datum whose fields do not end exactly at its end
fails the chunk. A failed chunk is decoded again in strict mode, checking every read, so that the
error names the first field that went wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_core.errors import FileFormatError
from hudi_core.file_group.log_file.avro_encode import decimal_magnitude

if TYPE_CHECKING:
    from hudi_core.file_group.log_file.avro_node import AvroNode

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]

_PAD = 64  # zero bytes after a chunk: fixed-width gathers (varints, floats) may overrun a datum's end
_CHUNK_BYTES = 1 << 22  # rows are decoded 4 MB at a time: the repeated gathers then hit the CPU cache
_MAX_ITEMS = (1 << 31) - 1  # Arrow list offsets are int32


class _Chunk:
    """The bytes a chunk of datums is read from, as numpy and as an Arrow buffer.

    That is the whole data when at least _PAD bytes follow the chunk (fixed-width gathers may read
    a little past a datum's end), else a zero-padded copy of the chunk. `base` is the offset of
    `data[0]` in the whole data; positions are relative to `data`.
    """

    def __init__(self, raw: U8, whole: pa.Buffer, start: int, stop: int, strict: bool) -> None:
        if stop + _PAD <= raw.size:
            self.data, self.arrow, self.base = raw, whole, 0
        else:
            self.data = np.zeros(stop - start + _PAD, dtype=np.uint8)
            self.data[: stop - start] = raw[start:stop]
            self.arrow, self.base = pa.py_buffer(self.data), start
        self.strict = strict
        self._windows: dict[int, npt.NDArray[np.uint8]] = {}
        self._evens: dict[int, pa.Array] = {}

    def evens(self, rows: int) -> pa.Array:
        """Indices 0, 2, ..., 2 * rows - 2 (cached: the string fields of a chunk share them)."""
        picks = self._evens.get(rows)
        if picks is None:
            picks = self._evens[rows] = pa.array(np.arange(0, 2 * rows, 2, dtype=np.int64))
        return picks

    def window(self, width: int) -> npt.NDArray[np.uint8]:
        """A read-only (len, width) view whose row p is the `width` bytes at p: one gather reads them all."""
        view = self._windows.get(width)
        if view is None:
            rows = self.data.size - width + 1
            view = np.lib.stride_tricks.as_strided(self.data, (rows, width), (1, 1), writeable=False)
            self._windows[width] = view
        return view


class _Growable:
    """An Arrow-pool buffer filled from numpy, grown geometrically."""

    def __init__(self, capacity: int) -> None:
        self.buffer = pa.allocate_buffer(max(capacity, 64), resizable=True)
        self.view: U8 = np.frombuffer(self.buffer, dtype=np.uint8)
        self.size = 0

    def append(self, data: U8) -> None:
        need = self.size + data.size
        if need > self.view.size:
            self.buffer.resize(max(need, self.view.size * 3 // 2))
            self.view = np.frombuffer(self.buffer, dtype=np.uint8)
        self.view[self.size : need] = data
        self.size = need

    def finish(self) -> pa.Buffer:
        self.buffer.resize(self.size, shrink_to_fit=True)
        return self.buffer


class _Column:
    """One top-level column, gathered chunk by chunk (Arrow's concatenation for nested types).

    Binary and fixed-width chunks are appended to buffers from Arrow's memory pool: chunk arrays
    stay small and short-lived, so the pool recycles them, and the column's bytes are written once.
    (Touching fresh memory is what costs most where page faults are expensive, as in VMs.)
    """

    def __init__(self, node: AvroNode, rows: int, data_size: int) -> None:
        self.node = node
        self.arrow_type: pa.DataType = node.arrow_type
        self.binary = pa.types.is_binary(self.arrow_type) or pa.types.is_string(self.arrow_type)
        self.width = self.arrow_type.byte_width if _fixed_width(self.arrow_type) else 0
        self.total_rows, self.data_size = rows, data_size
        self.parts: list[pa.Array] = []
        self.valid: npt.NDArray[np.bool_] | None = None
        self.rows = 0
        self.data: _Growable | None = None
        if self.binary:
            self.offsets = np.zeros(rows + 1, dtype=np.int64)

    def add(self, array: pa.Array, chunk_bytes: int) -> None:
        size = len(array)
        if not (self.binary or self.width):
            self.parts.append(array)
            return
        if array.offset:  # not produced by the readers, but the buffers below assume none
            array = pa.concat_arrays([array])
        first, last = self.rows, self.rows + size
        if array.null_count:
            if self.valid is None:
                self.valid = np.ones(self.total_rows, dtype=bool)
            self.valid[first:last] = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if self.binary:
            ends = np.frombuffer(array.buffers()[1], dtype=np.int32, count=size + 1)
            head, tail = int(ends[0]), int(ends[-1])
            if self.data is None:  # sized from the first chunk's share of the data
                self.data = _Growable((tail - head) * self.data_size // max(chunk_bytes, 1) * 21 // 20 + 4096)
            cursor = self.data.size
            if tail > head:
                self.data.append(np.frombuffer(array.buffers()[2], dtype=np.uint8, count=tail)[head:])
            self.offsets[first + 1 : last + 1] = ends[1:] - (head - cursor)
        else:
            if self.data is None:
                self.data = _Growable(self.total_rows * self.width)
            self.data.append(np.frombuffer(array.buffers()[1], dtype=np.uint8, count=size * self.width))
        self.rows = last

    def finish(self) -> pa.Array:
        if self.parts or self.data is None:
            return _concat(self.parts, self.node)
        validity = None if self.valid is None else pa.py_buffer(np.packbits(self.valid, bitorder="little"))
        if not self.binary:
            return pa.Array.from_buffers(self.arrow_type, self.rows, [validity, self.data.finish()])
        if self.data.size >= 1 << 31:
            raise FileFormatError(f"{_where(self.node)}: {self.data.size} bytes of values do not fit one Arrow array")
        offsets = pa.py_buffer(self.offsets.astype(np.int32))
        return pa.Array.from_buffers(self.arrow_type, self.rows, [validity, offsets, self.data.finish()])


def decode_records(root: AvroNode, schema: pa.Schema, raw: U8, starts: I64, ends: I64) -> pa.RecordBatch:
    """Decodes the datums raw[starts[i]:ends[i]] (ordered, not overlapping), a chunk at a time."""
    whole = pa.py_buffer(raw)
    count = starts.size
    columns = [_Column(child, count, raw.size) for child in root.children]
    first = 0
    while first < count:
        # A chunk is about _CHUNK_BYTES of datums (at least one row).
        last = int(np.searchsorted(ends, ends[first] + _CHUNK_BYTES - (ends[first] - starts[first]), side="right"))
        last = min(max(last, first + 1), count)
        rows = slice(first, last)
        try:
            arrays = _decode_chunk(root, raw, whole, starts[rows], ends[rows], strict=False)
        except (FileFormatError, IndexError):
            # Corrupt bytes: decode again checking every read, for an error that names the field.
            _decode_chunk(root, raw, whole, starts[rows], ends[rows], strict=True)
            raise FileFormatError(f"Avro datums {first}..{last - 1} are corrupt") from None
        for column, array in zip(columns, arrays, strict=True):
            column.add(array, int(ends[last - 1] - starts[first]))
        first = last
    return pa.RecordBatch.from_arrays([c.finish() for c in columns], schema=schema)


def _decode_chunk(root: AvroNode, raw: U8, whole: pa.Buffer, starts: I64, ends: I64, strict: bool) -> list[pa.Array]:
    """The top-level columns of one chunk of datums.

    Unless `strict`, fixed-size reads are not checked against each datum's end (numpy bounds-checks
    the gathers and the padding absorbs small overruns); a datum's final position must then be its
    end, which catches any overrun. Length-prefixed payloads are always checked before copying.
    """
    chunk = _Chunk(raw, whole, int(starts[0]), int(ends[-1]), strict)
    pos = starts - chunk.base
    end = ends - chunk.base
    arrays = []
    for child in root.children:
        array, pos = decode_node(child, chunk, pos, end)
        arrays.append(array)
    if bool((pos != end).any()):
        row = int(np.flatnonzero(pos != end)[0])
        if pos[row] > end[row]:
            raise FileFormatError("Avro datum truncated: its fields run past its end")
        raise FileFormatError(
            f"Avro datum has {int(end[row] - pos[row])} bytes left after its last field: "
            "the block's schema does not match its records"
        )
    return arrays


def _concat(parts: list[pa.Array], node: AvroNode) -> pa.Array:
    if not parts:
        return pa.array([], type=node.arrow_type)
    if len(parts) == 1:
        return parts[0]
    try:
        return pa.concat_arrays(parts)
    except pa.ArrowInvalid as e:
        raise FileFormatError(f"decoded Avro values do not fit one Arrow array: {e}") from e


def decode_node(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    return _READERS[node.kind](node, chunk, pos, end)


def _where(node: AvroNode) -> str:
    return f"Avro field {node.path or '<root>'}"


def _check(node: AvroNode, chunk: _Chunk | None, pos: I64, end: I64) -> None:
    """Positions must not pass the datum ends; `chunk=None` checks even in the fast mode."""
    if (chunk is None or chunk.strict) and bool((pos > end).any()):
        raise FileFormatError(f"{_where(node)}: datum truncated (value runs past its end)")


def _varint(node: AvroNode, chunk: _Chunk, pos: I64, end: I64, max_bytes: int) -> tuple[U64, I64]:
    """Raw (not zigzag-decoded) varints at `pos`, and the positions after them."""
    first = chunk.data[pos]
    if first.size == 0 or int(first.max()) < 0x80:
        # The common case (union branches, lengths < 64, small ints) needs a single gather.
        new_pos = pos + 1
        _check(node, chunk, new_pos, end)
        return first.astype(np.uint64), new_pos
    # Up to 8 bytes: read them as one little-endian word, find the first byte without a
    # continuation bit, drop the bytes after it and squeeze out the continuation bits.
    word = chunk.window(8)[pos].view("<u8").reshape(-1)
    stops = ~word & np.uint64(0x8080808080808080)
    first_stop = stops & (np.uint64(0) - stops)  # 2**(8 * length - 1), or 0 past 8 bytes
    word &= (first_stop << np.uint64(1)) - np.uint64(1)  # the bytes up to the first stop
    value = (word & np.uint64(0x007F007F007F007F)) | ((word >> np.uint64(1)) & np.uint64(0x3F803F803F803F80))
    value = (value & np.uint64(0x00003FFF00003FFF)) | ((value >> np.uint64(2)) & np.uint64(0x0FFFC0000FFFC000))
    value = (value & np.uint64(0x000000000FFFFFFF)) | ((value >> np.uint64(4)) & np.uint64(0x00FFFFFFF0000000))
    length = np.frexp(first_stop.astype(np.float64))[1].astype(np.int64) >> 3  # exact for powers of two
    long_rows = np.flatnonzero(stops == 0)
    if long_rows.size:  # 9 or 10 bytes (longs from 2**55 in magnitude)
        value[long_rows], length[long_rows] = _long_varint(node, chunk, pos[long_rows], max_bytes)
    if int(length.max()) > max_bytes:
        raise FileFormatError(f"{_where(node)}: malformed varint (over {max_bytes} bytes)")
    new_pos = pos + length
    _check(node, chunk, new_pos, end)
    return value, new_pos


def _long_varint(node: AvroNode, chunk: _Chunk, pos: I64, max_bytes: int) -> tuple[U64, I64]:
    """Varints of up to 10 bytes, group by group (the rare values of 9 or 10 bytes)."""
    window = chunk.window(10)[pos]
    last = window < 0x80
    if not bool(last.any(axis=1).all()):
        raise FileFormatError(f"{_where(node)}: malformed varint (over {max_bytes} bytes)")
    length = last.argmax(axis=1) + 1
    value = np.zeros(pos.size, dtype=np.uint64)
    for j in range(10):
        group = (window[:, j] & 0x7F).astype(np.uint64) << np.uint64(7 * j)
        value |= np.where(length > j, group, np.uint64(0))
    return value, length


def _zigzag(raw: U64) -> I64:
    return ((raw >> np.uint64(1)) ^ (np.uint64(0) - (raw & np.uint64(1)))).view(np.int64)


def _long(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[I64, I64]:
    raw, pos = _varint(node, chunk, pos, end, 10)
    return _zigzag(raw), pos


def _int(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[npt.NDArray[np.int32], I64]:
    raw, pos = _varint(node, chunk, pos, end, 5)
    if raw.size and int(raw.max()) >> 32:  # zigzag values below 2**32 are the int32 range
        raise FileFormatError(f"{_where(node)}: int value out of 32-bit range")
    return _zigzag(raw).astype(np.int32), pos


def _primitive(node: AvroNode, values: npt.NDArray[Any]) -> pa.Array:
    return pa.Array.from_buffers(node.arrow_type, values.shape[0], [None, pa.py_buffer(values)])


def _read_int(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    values, pos = _int(node, chunk, pos, end)
    _check_time(node, values)
    return _primitive(node, values), pos


def _read_long(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    values, pos = _long(node, chunk, pos, end)
    _check_time(node, values)
    return _primitive(node, values), pos


def _check_time(node: AvroNode, values: npt.NDArray[Any]) -> None:
    """Times of day must lie within the day (Arrow rejects others as invalid arrays)."""
    if values.size and pa.types.is_time(node.arrow_type):
        day = 86_400_000 if node.arrow_type.unit == "ms" else 86_400_000_000
        if int(values.min()) < 0 or int(values.max()) >= day:
            raise FileFormatError(f"{_where(node)}: time of day out of range")


def _read_fixed_width(node: AvroNode, chunk: _Chunk, pos: I64, end: I64, width: int) -> tuple[U8, I64]:
    """`width` bytes per row as a (rows, width) matrix."""
    new_pos = pos + width
    _check(node, chunk if width <= _PAD else None, new_pos, end)
    if width <= _PAD or not pos.size:
        return chunk.window(width)[pos], new_pos
    taken = _take_ranges(chunk, pos, new_pos)
    data = np.frombuffer(taken.buffers()[2], dtype=np.uint8, count=pos.size * width)
    return data.reshape(pos.size, width), new_pos


def _read_float(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    width = 4 if node.kind == "float" else 8
    raw, pos = _read_fixed_width(node, chunk, pos, end, width)
    return _primitive(node, np.ascontiguousarray(raw)), pos


def _read_boolean(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    new_pos = pos + 1
    _check(node, chunk, new_pos, end)
    return pa.array(chunk.data[pos] != 0, type=pa.bool_()), new_pos


def _read_null(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    return pa.nulls(pos.size, node.arrow_type), pos


def _ranges(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[I64, I64]:
    """Start and stop of length-prefixed payloads (bytes, string, map keys)."""
    first = chunk.data[pos]
    if first.size and int(first.max()) < 0x80:  # lengths below 64: one byte, even when not negative
        if bool((first & 1).any()):
            raise FileFormatError(f"{_where(node)}: negative byte length")
        start = pos + 1
        stop = start + (first >> 1)
    else:
        length, start = _long(node, chunk, pos, end)
        if length.size and int(length.min()) < 0:
            raise FileFormatError(f"{_where(node)}: negative byte length")
        stop = start + length
    _check(node, None, stop, end)  # always: the payload copy must stay inside the datum
    return start, stop


def _take_ranges(chunk: _Chunk, start: I64, stop: I64) -> pa.Array:
    """A BinaryArray of chunk.data[start[i]:stop[i]]."""
    return _copy_ranges(chunk.arrow, chunk.data.size, start, stop, chunk.evens(start.size))


def _copy_ranges(buffer: pa.Buffer, size: int, start: I64, stop: I64, evens: pa.Array) -> pa.Array:
    """A BinaryArray of buffer[start[i]:stop[i]], copied by Arrow's `take` kernel.

    The ranges plus the gaps between them form a valid binary array because the ranges are ordered:
    rows are always kept in data order, and each range was checked to end inside its own datum.
    Taking the even elements copies the payloads.
    """
    rows = start.size
    if rows == 0:
        return pa.array([], type=pa.binary())
    large = size >= 1 << 31
    bounds = np.empty(2 * rows + 1, dtype=np.int64 if large else np.int32)
    bounds[0:-1:2] = start
    bounds[1:-1:2] = stop
    bounds[-1] = stop[-1]
    spans = pa.Array.from_buffers(
        pa.large_binary() if large else pa.binary(), 2 * rows, [None, pa.py_buffer(bounds), buffer]
    )
    taken = spans.take(evens)
    if not large:
        return taken
    try:
        return taken.cast(pa.binary())
    except pa.ArrowInvalid as e:
        raise FileFormatError(f"decoded Avro values do not fit one Arrow array: {e}") from e


def _read_bytes(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    start, stop = _ranges(node, chunk, pos, end)
    return _take_ranges(chunk, start, stop), stop


def _read_string(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    start, stop = _ranges(node, chunk, pos, end)
    return _utf8(node, _take_ranges(chunk, start, stop)), stop


def _utf8(node: AvroNode, binary: pa.Array) -> pa.Array:
    """`binary` as strings, validating UTF-8 unless every byte is ASCII (a cheaper check)."""
    data, size = binary.buffers()[2], len(binary)
    used = int(np.frombuffer(binary.buffers()[1], dtype=np.int32, count=size + 1)[size]) if size else 0
    if data is None or int(np.frombuffer(data, dtype=np.uint8, count=used).max(initial=0)) < 0x80:
        return binary.view(pa.string())
    try:
        return binary.cast(pa.string())
    except pa.ArrowInvalid as e:
        raise FileFormatError(f"{_where(node)}: invalid UTF-8 in string: {e}") from e


def _read_fixed(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    raw, pos = _read_fixed_width(node, chunk, pos, end, node.size)
    return _primitive(node, np.ascontiguousarray(raw)), pos


def _read_enum(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    index, pos = _int(node, chunk, pos, end)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= len(node.symbols)):
        raise FileFormatError(f"{_where(node)}: enum index out of range")
    return pa.array(node.symbols, type=pa.string()).take(pa.array(index)), pos


def _read_decimal(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    """Big-endian two's complement of any length -> sign-extended little-endian 16/32 bytes."""
    if node.size:
        start, stop = pos, pos + node.size
        _check(node, chunk, stop, end)
    else:
        start, stop = _ranges(node, chunk, pos, end)
    width = node.arrow_type.byte_width
    length = stop - start
    negative = (chunk.data[start] >= 0x80) & (length > 0)
    fill = np.where(negative, np.uint8(0xFF), np.uint8(0))
    out = np.empty((start.size, width), dtype=np.uint8)
    for k in range(width):  # byte k (little-endian) is the k-th byte from the end
        inside = length > k
        out[:, k] = np.where(inside, chunk.data[np.where(inside, stop - 1 - k, start)], fill)
    wide = np.flatnonzero(length > width)
    for row in wide.tolist():  # rare: leading bytes beyond the Arrow width must be sign extension only
        head = chunk.data[start[row] : stop[row] - width]
        if bool((head != fill[row]).any()) or bool(out[row, -1] >= 0x80) != bool(negative[row]):
            raise FileFormatError(f"{_where(node)}: decimal wider than {node.arrow_type}")
    # Arrow holds only values within the precision: |unscaled| < 10**precision, compared limb by limb.
    magnitude = decimal_magnitude(out)
    bound = 10**node.arrow_type.precision
    below = np.zeros(start.size, dtype=bool)
    equal = np.ones(start.size, dtype=bool)
    for j in reversed(range(magnitude.shape[1])):
        limb = np.uint64((bound >> (64 * j)) & 0xFFFFFFFFFFFFFFFF)
        below |= equal & (magnitude[:, j] < limb)
        equal &= magnitude[:, j] == limb
    if not bool(below.all()):
        raise FileFormatError(f"{_where(node)}: decimal value exceeds the precision of {node.arrow_type}")
    return _primitive(node, out), stop


def _read_record(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    arrays = []
    for child in node.children:
        array, pos = decode_node(child, chunk, pos, end)
        arrays.append(array)
    if not arrays:
        return pa.array([{}] * pos.size, type=node.arrow_type), pos
    return pa.StructArray.from_arrays(arrays, fields=list(node.arrow_type)), pos


def _branches(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[npt.NDArray[np.bool_] | None, I64]:
    """Which rows hold the union's value (None: all of them), and the positions after the index."""
    first = chunk.data[pos]
    if first.size and int(first.max()) < min(2 * node.branch_count, 0x80) and not bool((first & 1).any()):
        # Branch indexes are one even byte (zigzag of a small non-negative int).
        present = first == 2 * node.value_index
        pos = pos + 1
        _check(node, chunk, pos, end)
    else:
        branch, pos = _int(node, chunk, pos, end)
        if branch.size and (int(branch.min()) < 0 or int(branch.max()) >= node.branch_count):
            raise FileFormatError(f"{_where(node)}: union branch index out of range")
        present = branch == node.value_index
    return (None if bool(present.all()) else present), pos


def _read_union(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    present, pos = _branches(node, chunk, pos, end)
    if node.value_index < 0:
        return pa.nulls(pos.size, node.arrow_type), pos
    if present is None:
        return decode_node(node.children[0], chunk, pos, end)
    rows = np.flatnonzero(present)
    values, sub_pos = decode_node(node.children[0], chunk, pos[rows], end[rows])
    pos = pos.copy()
    pos[rows] = sub_pos
    return _expand(values, present, rows), pos


def _expand(values: pa.Array, present: npt.NDArray[np.bool_], rows: I64) -> pa.Array:
    """`values` spread over len(present) slots, null where `present` is False."""
    size = present.size
    validity = pa.py_buffer(np.packbits(present, bitorder="little"))
    arrow_type = values.type
    if pa.types.is_binary(arrow_type) or pa.types.is_string(arrow_type):
        lengths = np.zeros(size, dtype=np.int32)
        lengths[rows] = np.diff(np.frombuffer(values.buffers()[1], dtype=np.int32, count=len(values) + 1))
        offsets = np.zeros(size + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        return pa.Array.from_buffers(arrow_type, size, [validity, pa.py_buffer(offsets), values.buffers()[2]])
    if _fixed_width(arrow_type):
        width = arrow_type.byte_width
        compact = np.frombuffer(values.buffers()[1], dtype=np.uint8, count=len(values) * width)
        full = np.zeros((size, width), dtype=np.uint8)
        full[rows] = compact.reshape(len(values), width)
        return pa.Array.from_buffers(arrow_type, size, [validity, pa.py_buffer(full)])
    indices = np.zeros(size, dtype=np.int64)
    indices[rows] = np.arange(rows.size)
    return values.take(pa.array(indices, mask=~present))


def _fixed_width(arrow_type: pa.DataType) -> bool:
    t = pa.types
    return bool(
        t.is_integer(arrow_type)
        or t.is_floating(arrow_type)
        or t.is_temporal(arrow_type)
        or t.is_decimal(arrow_type)
        or t.is_fixed_size_binary(arrow_type)
    )


def _block_counts(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[I64, I64]:
    """Item counts of the next array/map block of each row (skipping the byte size of negative ones)."""
    count, pos = _long(node, chunk, pos, end)
    negative = count < 0
    if bool(negative.any()):
        count = np.abs(count)
        if bool((count < 0).any()):  # -2**63 has no absolute value
            raise FileFormatError(f"{_where(node)}: malformed block count")
        rows = np.flatnonzero(negative)
        _, sized = _long(node, chunk, pos[rows], end[rows])
        pos = pos.copy()
        pos[rows] = sized
    item_size = node.children[0].min_size + (1 if node.kind == "map" else 0)
    if item_size and bool((count > (end - pos) // item_size).any()):
        raise FileFormatError(f"{_where(node)}: block count exceeds the datum's bytes")
    return count, pos


def _read_items(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[I64, list[pa.Array], I64]:
    """List offsets, item arrays (key strings first for maps) and positions of arrays/maps.

    Items are decoded in lockstep: step k reads item k of every row that still has one, so each
    step is one vectorized read over a shrinking row set; steps are then ordered row-major.
    """
    item_node = node.children[0]
    if node.kind == "array" and item_node.fixed_size >= 0:
        return _read_fixed_items(node, chunk, pos, end)
    rows = pos.size
    totals = np.zeros(rows, dtype=np.int64)
    live = np.arange(rows)  # rows whose end block (count 0) has not been read
    live_pos, live_end = pos.copy(), end
    remaining = np.zeros(rows, dtype=np.int64)
    done_k = np.zeros(rows, dtype=np.int64)
    steps: list[tuple[I64, I64, list[pa.Array]]] = []
    final_pos = pos.copy()
    need_header = np.ones(rows, dtype=bool)
    while live.size:
        heads = np.flatnonzero(need_header)
        if heads.size:
            count, head_pos = _block_counts(node, chunk, live_pos[heads], live_end[heads])
            live_pos[heads] = head_pos
            remaining[heads] = count
            finished = heads[count == 0]
            if finished.size:
                final_pos[live[finished]] = live_pos[finished]
                totals[live[finished]] = done_k[finished]
                keep = np.ones(live.size, dtype=bool)
                keep[finished] = False
                live, live_pos, live_end = live[keep], live_pos[keep], live_end[keep]
                remaining, done_k = remaining[keep], done_k[keep]
                if not live.size:
                    break
        arrays = []
        if node.kind == "map":  # map keys are strings; errors name the map field
            key_start, key_stop = _ranges(node, chunk, live_pos, live_end)
            arrays.append(_utf8(node, _take_ranges(chunk, key_start, key_stop)))
            live_pos = key_stop
        value, live_pos = decode_node(item_node, chunk, live_pos, live_end)
        arrays.append(value)
        steps.append((live, done_k, arrays))
        done_k = done_k + 1
        remaining = remaining - 1
        need_header = remaining == 0
    offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(totals, out=offsets[1:])
    if int(offsets[-1]) > _MAX_ITEMS:
        raise FileFormatError(f"{_where(node)}: too many items")
    return offsets, _row_major(steps, offsets, item_node, node.kind == "map"), final_pos


def _read_fixed_items(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[I64, list[pa.Array], I64]:
    """`_read_items` for items of one constant size: a block's items are at known positions, so
    all items are located block by block and decoded in one read (e.g. arrays of doubles)."""
    size = node.children[0].fixed_size
    rows = pos.size
    totals = np.zeros(rows, dtype=np.int64)
    final_pos = pos.copy()
    live, live_pos, live_end = np.arange(rows), pos, end
    blocks: list[tuple[I64, I64, I64, I64]] = []  # rows, items before the block, count, first item position
    while live.size:
        count, live_pos = _block_counts(node, chunk, live_pos, live_end)
        finished = count == 0
        final_pos[live[finished]] = live_pos[finished]
        going = ~finished
        live, live_pos, live_end, count = live[going], live_pos[going], live_end[going], count[going]
        if not live.size:
            break
        blocks.append((live, totals[live], count, live_pos))
        totals[live] += count
        live_pos = live_pos + count * size
        if int(totals.max()) > _MAX_ITEMS:
            raise FileFormatError(f"{_where(node)}: too many items")
    offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(totals, out=offsets[1:])
    if int(offsets[-1]) > _MAX_ITEMS:
        raise FileFormatError(f"{_where(node)}: too many items")
    total = int(offsets[-1])
    item_node = node.children[0]
    if len(blocks) == 1 and item_node.kind in ("float", "double", "fixed") and size:
        # One block per row, raw bytes as Arrow stores them: copy each row's items in one go.
        _, _, count, first = blocks[0]
        data = _take_ranges(chunk, first, first + count * size).buffers()[2]
        return offsets, [pa.Array.from_buffers(item_node.arrow_type, total, [None, data])], final_pos
    if len(blocks) == 1:
        block_rows, _, count, first = blocks[0]
        item_pos = np.repeat(first - offsets[block_rows] * size, count) + np.arange(total, dtype=np.int64) * size
    else:
        item_pos = np.empty(total, dtype=np.int64)
        for block_rows, before, count, first in blocks:
            owner = np.repeat(np.arange(block_rows.size), count)
            k = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
            item_pos[offsets[block_rows][owner] + before[owner] + k] = first[owner] + k * size
    values, _ = decode_node(item_node, chunk, item_pos, np.repeat(end, totals))
    return offsets, [values], final_pos


def _row_major(
    steps: list[tuple[I64, I64, list[pa.Array]]], offsets: I64, item_node: AvroNode, is_map: bool
) -> list[pa.Array]:
    """Concatenates the per-step item arrays and orders them row by row."""
    types = [pa.string(), item_node.arrow_type] if is_map else [item_node.arrow_type]
    if not steps:
        return [pa.array([], type=t) for t in types]
    columns = [pa.concat_arrays([s[2][i] for s in steps]) for i in range(len(types))]
    if len(steps) == 1:
        return columns  # one item per row at most: already row-major
    flat = np.concatenate([offsets[rows] + k for rows, k, _ in steps])
    order = np.empty(flat.size, dtype=np.int64)
    order[flat] = np.arange(flat.size)
    picks = pa.array(order)
    return [c.take(picks) for c in columns]


def _read_array(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    offsets, (values,), pos = _read_items(node, chunk, pos, end)
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, type=node.arrow_type), pos


def _read_map(node: AvroNode, chunk: _Chunk, pos: I64, end: I64) -> tuple[pa.Array, I64]:
    offsets, (keys, values), pos = _read_items(node, chunk, pos, end)
    return pa.MapArray.from_arrays(pa.array(offsets.astype(np.int32)), keys, values, type=node.arrow_type), pos


_READERS: dict[str, Callable[[AvroNode, _Chunk, I64, I64], tuple[pa.Array, I64]]] = {
    "null": _read_null,
    "boolean": _read_boolean,
    "int": _read_int,
    "long": _read_long,
    "float": _read_float,
    "double": _read_float,
    "bytes": _read_bytes,
    "string": _read_string,
    "fixed": _read_fixed,
    "enum": _read_enum,
    "decimal": _read_decimal,
    "record": _read_record,
    "union": _read_union,
    "array": _read_array,
    "map": _read_map,
}
