"""Vectorized encoding of Arrow columns as Avro datums (the design is described in `avro_codec`).

Each field is turned into *pieces*: per-row byte strings, all rows at once. Numbers, lengths,
union branches, block counts and short strings are `_Piece` matrices built with numpy (row i's
bytes are `matrix[i, :lengths[i]]`); longer string and bytes payloads are the Arrow data itself,
as large_binary arrays. Consecutive matrices are laid side by side, each row's bytes packed to the
front, and Arrow's `take` copies the rows out; Arrow's `binary_join_element_wise` then
concatenates every row's pieces into its datum. Rows that are absent at some level (a null union
value, the items of a null list) get empty pieces: length 0 in a matrix, a null in an Arrow piece
(joined as ""). Rows are encoded a slice at a time, which keeps the join's inputs in cache.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.errors import SchemaError

if TYPE_CHECKING:
    from hudi_core.file_group.log_file.avro_node import AvroNode

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_] | None  # rows being encoded at this level; None means all


class _Piece:
    """Per-row bytes: row i is `matrix[i, :lengths[i]]`, or the whole row when `lengths` is None."""

    def __init__(self, matrix: U8, lengths: I64 | None, present: Mask) -> None:
        self.matrix = matrix
        if present is not None:
            lengths = np.where(present, matrix.shape[1] if lengths is None else lengths, 0)
        self.lengths = lengths


Pieces = list[_Piece | pa.Array]
# Built from buffers: `pa.scalar` and `pa.array` import pandas (~170 ms) on first use.
_EMPTY = pa.Array.from_buffers(
    pa.large_binary(), 1, [None, pa.py_buffer(np.zeros(2, dtype=np.int64).tobytes()), pa.py_buffer(b"")]
)[0]
# Kernel outputs here are scratch, copied into the result bytes at the end; the system allocator
# recycles these slice-sized buffers more steadily than the default pool (fewer page faults).
_POOL = pa.system_memory_pool()


_INLINE_BYTES = 16  # string/bytes values up to this long are copied as matrix pieces
_SLICE_ROWS = 16384  # rows encoded together: Arrow's join is much faster on cache-sized inputs


def encode_records(root: AvroNode, batch: pa.RecordBatch) -> tuple[list[pa.Buffer], I64]:
    """The datums of the rows of `batch` (as buffers to concatenate) and their N + 1 offsets."""
    parts: list[pa.Buffer] = []
    ends = [np.zeros(1, dtype=np.int64)]
    base = 0
    for first in range(0, batch.num_rows, _SLICE_ROWS):
        rows = batch.slice(first, _SLICE_ROWS)
        columns: dict[str, pa.Array] = {}
        for i, name in reversed(list(enumerate(rows.schema.names))):
            columns[name] = rows.column(i)
        pieces: Pieces = []
        _encode_fields(root, columns, rows.num_rows, None, pieces)
        joined = _join(pieces, rows.num_rows)
        offsets = np.frombuffer(joined.buffers()[1], dtype=np.int64, count=joined.offset + rows.num_rows + 1)
        offsets = offsets[joined.offset :]
        head, tail = int(offsets[0]), int(offsets[-1])
        if tail > head:
            parts.append(joined.buffers()[2].slice(head, tail - head))
        ends.append(offsets[1:] - head + base)
        base += tail - head
    return parts, np.concatenate(ends)


def _join(pieces: Pieces, rows: int) -> pa.Array:
    """One large_binary array: per row, the concatenation of its pieces."""
    arrays: list[pa.Array] = []
    run: list[_Piece] = []
    for piece in pieces if rows else []:
        if isinstance(piece, _Piece):
            run.append(piece)
            continue
        if run:
            arrays.append(_compact(run, rows))
            run = []
        arrays.append(piece)
    if run:
        arrays.append(_compact(run, rows))
    if not arrays or rows == 0:
        offsets = pa.py_buffer(np.zeros(rows + 1, dtype=np.int64))
        return pa.Array.from_buffers(pa.large_binary(), rows, [None, offsets, pa.py_buffer(b"")])
    if len(arrays) == 1 and arrays[0].null_count == 0:
        return arrays[0]
    return pc.binary_join_element_wise(*arrays, _EMPTY, null_handling="replace", memory_pool=_POOL)


def _compact(run: list[_Piece], rows: int) -> pa.Array:
    """Consecutive matrix pieces as one large_binary array (dropping the unused bytes of each row).

    The pieces are laid out in a (rows, total width) matrix, each written at the row's running
    length: a piece may write past its row's length, but never past the row, and the next piece
    overwrites those bytes. Arrow's `take` then copies each row's prefix, as in `_copy_prefixes`.
    """
    run = [p for p in run if p.matrix.shape[1]]  # zero-width pieces (fixed(0), empty strings) add nothing
    width = sum(p.matrix.shape[1] for p in run)
    if all(p.lengths is None for p in run):
        matrix = np.hstack([p.matrix for p in run]) if run else np.zeros((rows, 0), dtype=np.uint8)
        offsets = np.arange(rows + 1, dtype=np.int64) * width
        data = np.ascontiguousarray(matrix).reshape(-1)
        return pa.Array.from_buffers(pa.large_binary(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    flat = np.empty(rows * width, dtype=np.uint8)
    layout = flat.reshape(rows, width)
    starts = np.arange(rows, dtype=np.int64) * width
    cursor: int | I64 = 0
    for matrix, lengths in _merge_full_width(run):
        piece_width = matrix.shape[1]
        if isinstance(cursor, int):
            layout[:, cursor : cursor + piece_width] = matrix
        else:  # one item of piece_width bytes per row: fancy indexing moves whole items
            item = np.dtype(f"V{piece_width}")
            windows = np.ndarray((flat.size - piece_width + 1,), dtype=item, buffer=flat, strides=(1,))
            windows[starts + cursor] = np.ascontiguousarray(matrix).view(item).reshape(-1)
        cursor = cursor + (piece_width if lengths is None else lengths)
    return _copy_prefixes(flat, starts, starts + cursor)


def _merge_full_width(run: list[_Piece]) -> list[tuple[U8, I64 | None]]:
    """The pieces with consecutive full-width ones side by side (fewer, wider writes)."""
    merged: list[tuple[U8, I64 | None]] = []
    pending: list[U8] = []
    for p in [*run, None]:
        if p is not None and p.lengths is None:
            pending.append(p.matrix)
            continue
        if pending:
            merged.append((pending[0] if len(pending) == 1 else np.hstack(pending), None))
            pending = []
        if p is not None:
            merged.append((p.matrix, p.lengths))
    return merged


def _copy_prefixes(flat: U8, starts: I64, stops: I64) -> pa.Array:
    """A large_binary array of flat[starts[i]:stops[i]] (ordered, non-overlapping ranges).

    The ranges and the gaps between them form a valid array; `take` copies its even elements.
    """
    rows = starts.size
    bounds = np.empty(2 * rows + 1, dtype=np.int64)
    bounds[0:-1:2] = starts
    bounds[1:-1:2] = stops
    bounds[-1] = flat.size
    spans = pa.Array.from_buffers(pa.large_binary(), 2 * rows, [None, pa.py_buffer(bounds), pa.py_buffer(flat)])
    return pc.take(spans, pa.array(np.arange(0, 2 * rows, 2, dtype=np.int64)), memory_pool=_POOL)


def _varint_piece(values: I64, present: Mask) -> _Piece:
    """Zigzag varints of `values` (one row each)."""
    raw = ((values << 1) ^ (values >> 63)).view(np.uint64)
    if present is not None:
        raw = np.where(present, raw, np.uint64(0))  # absent rows may hold garbage; keep the width small
    top = int(raw.max()) if raw.size else 0
    if top < 0x80:
        return _Piece(raw.astype(np.uint8)[:, None], None, present)
    width = (top.bit_length() + 6) // 7
    lengths = np.ones(raw.size, dtype=np.int64)
    for k in range(1, width):
        lengths += raw >= np.uint64(1 << (7 * k))
    matrix = np.empty((raw.size, width), dtype=np.uint8)
    for j in range(width):
        group = ((raw >> np.uint64(7 * j)) & np.uint64(0x7F)).astype(np.uint8)
        matrix[:, j] = group | ((lengths > j + 1).astype(np.uint8) << 7)
    return _Piece(matrix, lengths, present)


def _byte_piece(value: int, rows: int, present: Mask) -> _Piece:
    return _Piece(np.full((rows, 1), value, dtype=np.uint8), None, present)


def _validity(present: Mask) -> pa.Buffer | None:
    return None if present is None else pa.py_buffer(np.packbits(present, bitorder="little"))


def _where(node: AvroNode) -> str:
    return f"Avro field {node.path or '<root>'}"


def _valid(arr: pa.Array) -> npt.NDArray[np.bool_] | None:
    if arr.null_count == 0:
        return None
    if pa.types.is_null(arr.type):
        return np.zeros(len(arr), dtype=bool)
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _require_values(node: AvroNode, arr: pa.Array, present: Mask) -> None:
    valid = _valid(arr)
    if valid is not None and bool((~valid if present is None else present & ~valid).any()):
        raise SchemaError(f"{_where(node)}: null value for a non-nullable field")


def _cast(node: AvroNode, arr: pa.Array, target: pa.DataType) -> pa.Array:
    if arr.type.equals(target):
        return arr
    try:
        return arr.cast(target)  # safe cast: overflow or lost precision raises
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        raise SchemaError(f"{_where(node)}: cannot encode {arr.type} as {target}: {e}") from e


def _values(arr: pa.Array, dtype: type[np.generic]) -> npt.NDArray[Any]:
    """The data buffer of a fixed-width array as a 1-D numpy array (garbage where null)."""
    rows = len(arr)
    buf = arr.buffers()[1]
    if buf is None:
        return np.zeros(rows, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=arr.offset + rows)[arr.offset :]


def _matrix(arr: pa.Array, width: int) -> U8:
    """The data buffer of a fixed-width array as (rows, width) bytes."""
    rows = len(arr)
    buf = arr.buffers()[1]
    if buf is None or width == 0:
        return np.zeros((rows, width), dtype=np.uint8)
    flat = np.frombuffer(buf, dtype=np.uint8, count=(arr.offset + rows) * width)[arr.offset * width :]
    return flat.reshape(rows, width)


def _encode(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    if node.kind not in ("union", "null"):
        _require_values(node, arr, present)
    _WRITERS[node.kind](node, arr, present, pieces)


def _encode_fields(node: AvroNode, columns: dict[str, pa.Array], rows: int, present: Mask, pieces: Pieces) -> None:
    for name, child in zip(node.names, node.children, strict=True):
        arr = columns.get(name)
        if arr is None:
            if child.kind != "null" and (child.kind != "union" or child.null_index < 0):
                raise SchemaError(f"{_where(child)}: missing column for a non-nullable field")
            arr = pa.nulls(rows)
        _encode(child, arr, present, pieces)


def _write_record(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    if not pa.types.is_struct(arr.type):
        if not pa.types.is_null(arr.type):
            raise SchemaError(f"{_where(node)}: cannot encode {arr.type} as a record")
        arr = pa.nulls(len(arr), node.arrow_type)
    columns = {arr.type.field(i).name: arr.field(i) for i in reversed(range(arr.type.num_fields))}
    _encode_fields(node, columns, len(arr), present, pieces)


def _write_union(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    zigzag_null, zigzag_value = 2 * node.null_index, 2 * node.value_index
    if node.value_index < 0:
        pieces.append(_byte_piece(zigzag_null, len(arr), present))
        return
    valid = _valid(arr)
    if valid is None or node.null_index < 0:
        _require_values(node, arr, present)
        pieces.append(_byte_piece(zigzag_value, len(arr), present))
        _encode(node.children[0], arr, present, pieces)
        return
    branch = np.where(valid, np.uint8(zigzag_value), np.uint8(zigzag_null))
    pieces.append(_Piece(branch[:, None], None, present))
    inner = valid if present is None else present & valid
    _encode(node.children[0], arr, inner, pieces)


def _write_null(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    return  # null takes no bytes


def _write_boolean(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    arr = _cast(node, arr, pa.bool_())
    rows = len(arr)
    buf = arr.buffers()[1]
    bits = np.frombuffer(buf, dtype=np.uint8) if buf is not None else np.zeros(0, dtype=np.uint8)
    values = np.unpackbits(bits, bitorder="little", count=arr.offset + rows)[arr.offset :]
    pieces.append(_Piece(values.reshape(rows, 1), None, present))


def _write_int(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    arr = _cast(node, arr, node.arrow_type)
    dtype = np.int32 if node.kind == "int" else np.int64
    pieces.append(_varint_piece(_values(arr, dtype).astype(np.int64), present))


def _write_float(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    arr = _cast(node, arr, node.arrow_type)
    width = 4 if node.kind == "float" else 8
    pieces.append(_Piece(_matrix(arr, width), None, present))


def _write_fixed(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    arr = _cast(node, arr, node.arrow_type)
    pieces.append(_Piece(_matrix(arr, node.size), None, present))


def _write_payload(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces, target: pa.DataType) -> None:
    """Length varint + bytes; large string/binary inputs are used as they are."""
    large = pa.large_string() if target == pa.string() else pa.large_binary()
    if not arr.type.equals(large):
        arr = _cast(node, arr, target)
    dtype = np.int64 if arr.type.equals(large) else np.int32
    rows = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=dtype, count=arr.offset + rows + 1)[arr.offset :]
    offsets = offsets.astype(np.int64)
    lengths = np.diff(offsets)
    pieces.append(_varint_piece(lengths, present))
    data = arr.buffers()[2] if arr.buffers()[2] is not None else pa.py_buffer(b"")
    widest = int(lengths.max()) if rows else 0
    if widest > _INLINE_BYTES:
        pieces.append(pa.Array.from_buffers(pa.large_binary(), rows, [_validity(present), pa.py_buffer(offsets), data]))
        return
    # Short values join the surrounding matrix pieces (fewer pieces for Arrow's join to visit).
    head, tail = int(offsets[0]), int(offsets[-1])
    source = np.zeros(tail - head + widest, dtype=np.uint8)
    source[: tail - head] = np.frombuffer(data, dtype=np.uint8, count=tail)[head:]
    window = np.lib.stride_tricks.as_strided(source, (tail - head + 1, widest), (1, 1), writeable=False)
    pieces.append(_Piece(window[offsets[:-1] - head], lengths, present))


def _write_string(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    _write_payload(node, arr, present, pieces, pa.string())


def _write_bytes(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    _write_payload(node, arr, present, pieces, pa.binary())


def _write_enum(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    arr = _cast(node, arr, pa.string())
    index = pc.index_in(arr, value_set=pa.array(node.symbols, type=pa.string()))
    unknown = np.asarray(index.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    unknown &= np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if present is not None:
        unknown &= present
    if bool(unknown.any()):
        symbol = arr[int(np.flatnonzero(unknown)[0])].as_py()
        raise SchemaError(f"{_where(node)}: {symbol!r} is not a symbol of the enum {node.symbols}")
    values = np.asarray(index.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    pieces.append(_varint_piece(values, present))


def _write_decimal(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    """Two's complement big-endian: `size` bytes for fixed, fastavro's length for bytes."""
    arr = _cast(node, arr, node.arrow_type)
    width = node.arrow_type.byte_width
    little = _matrix(arr, width)
    if present is not None:
        little = np.where(present[:, None], little, np.uint8(0))
    negative = little[:, -1] >= 0x80
    fill = np.where(negative, np.uint8(0xFF), np.uint8(0))
    extended = np.concatenate([little, fill[:, None]], axis=1)  # one more sign byte: -2**127 needs 17 bytes
    rows = little.shape[0]
    if node.size:
        size = node.size
        if size < width:
            spill = (little[:, size:] != fill[:, None]).any(axis=1) | ((little[:, size - 1] >= 0x80) != negative)
            if bool(spill.any()):
                raise SchemaError(f"{_where(node)}: decimal value does not fit in fixed({size})")
        lengths = np.full(rows, size, dtype=np.int64)
    else:
        # fastavro writes bit_length(|v|) // 8 + 1 bytes: one more than minimal for -2**(8k-1).
        magnitude = decimal_magnitude(little).view(np.uint8).reshape(rows, width)
        nonzero = magnitude != 0
        high = width - 1 - nonzero[:, ::-1].argmax(axis=1)
        top = magnitude[np.arange(rows), high]
        lengths = np.where(nonzero.any(axis=1), high + 1 + (top >= 0x80), 1).astype(np.int64)
        size = int(lengths.max()) if rows else 1
        pieces.append(_varint_piece(lengths, present))
    if size > width + 1:
        extended = np.concatenate([extended, np.repeat(fill[:, None], size - width - 1, axis=1)], axis=1)
    index = np.maximum(lengths[:, None] - 1 - np.arange(size), 0)
    big_endian = np.take_along_axis(extended, index, axis=1)
    pieces.append(_Piece(big_endian, None if node.size else lengths, present))


def decimal_magnitude(little: U8) -> npt.NDArray[np.uint64]:
    """|v| of rows of little-endian two's complement bytes, as uint64 limbs (least significant first)."""
    negative = little[:, -1] >= 0x80
    words = np.ascontiguousarray(little).view("<u8").copy()
    words[negative] = ~words[negative]
    carry = negative.copy()
    for j in range(words.shape[1]):  # add 1 to the inverted negatives, propagating the carry
        words[:, j] += carry.astype(np.uint64)
        carry &= words[:, j] == 0
    return words


def _list_like(node: AvroNode, arr: pa.Array) -> pa.Array:
    if node.kind == "map":
        return arr if pa.types.is_map(arr.type) else _cast(node, arr, node.arrow_type)
    if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
        return arr
    if pa.types.is_fixed_size_list(arr.type):
        return _cast(node, arr, pa.list_(arr.type.value_field))
    return _cast(node, arr, node.arrow_type)


def _write_items(node: AvroNode, arr: pa.Array, present: Mask, pieces: Pieces) -> None:
    """Count, the row's items, 0 (or the single 0 of an empty array/map)."""
    arr = _list_like(node, arr)
    rows = len(arr)
    offsets = np.asarray(arr.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    counts = np.diff(offsets)
    if present is not None:
        counts = np.where(present, counts, 0)
    # The child arrays are not sliced with `arr`: keep the items of these rows only.
    low, high = int(offsets[0]), int(offsets[-1])
    children = [c.slice(low, high - low) for c in ([arr.keys, arr.items] if node.kind == "map" else [arr.values])]
    offsets = offsets - low
    total = high - low
    has_items = counts > 0
    item_present: Mask = None
    if not (bool(has_items.all()) and offsets[0] == 0 and offsets[-1] == total):
        marks = np.zeros(total + 1, dtype=np.int64)
        marks[offsets[:-1][has_items]] += 1
        marks[offsets[1:][has_items]] -= 1
        item_present = np.cumsum(marks[:-1]) > 0
    item_pieces: Pieces = []
    if node.kind == "map":
        _require_values(node, children[0], item_present)
        _write_payload(node, children[0], item_present, item_pieces, pa.string())
    _encode(node.children[0], children[-1], item_present, item_pieces)
    items = _join(item_pieces, total)
    item_offsets = np.frombuffer(items.buffers()[1], dtype=np.int64, count=items.offset + total + 1)[items.offset :]
    row_offsets = pa.py_buffer(np.ascontiguousarray(item_offsets[offsets]))
    data = items.buffers()[2] if items.buffers()[2] is not None else pa.py_buffer(b"")
    pieces.append(_varint_piece(counts, present))
    pieces.append(pa.Array.from_buffers(pa.large_binary(), rows, [_validity(has_items), row_offsets, data]))
    pieces.append(_byte_piece(0, rows, has_items))


_WRITERS: dict[str, Callable[[AvroNode, pa.Array, Mask, Pieces], None]] = {
    "null": _write_null,
    "boolean": _write_boolean,
    "int": _write_int,
    "long": _write_int,
    "float": _write_float,
    "double": _write_float,
    "bytes": _write_bytes,
    "string": _write_string,
    "fixed": _write_fixed,
    "enum": _write_enum,
    "decimal": _write_decimal,
    "record": _write_record,
    "union": _write_union,
    "array": _write_items,
    "map": _write_items,
}
