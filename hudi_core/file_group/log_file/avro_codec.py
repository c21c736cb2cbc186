"""Vectorized codec between Avro binary datums and Arrow (the payload of AVRO_DATA log blocks).

An AVRO_DATA block stores records as schemaless Avro datums: each record encoded with the block's
writer schema and nothing else. Decoding them one by one through fastavro builds a dict per record
and then transposes, which caps reads at tens of thousands of records per second. This codec works
column by column instead, with numpy, over all records of a block at once.

Decoding runs in *lockstep*: an int64 array holds the current byte position of every record; each
field of the schema is read for all records together (one gather of the bytes at those positions),
and the positions advance by each record's own field size. Records recurse with the same position
array; the value of a nullable union is read only for the records whose branch is not null; the
items of arrays and maps form a new row set (item k of every row that still has items) decoded in
lockstep too, then ordered row-major into list offsets. Strings are copied by Arrow's `take`
kernel out of the data (ranges and the gaps between them form a binary array; taking the even
elements copies the ranges). Rows are processed in chunks of a few megabytes so that the repeated
gathers hit the CPU cache. Encoding is the reverse: each field becomes per-record byte pieces
(numpy matrices for numbers and lengths, the Arrow string data itself for string payloads), and
Arrow's `binary_join_element_wise` concatenates the pieces of every record.

The Avro binary encoding rules relied on (Avro 1.11 specification, "Binary Encoding"):
  - int and long are zigzag-encoded variable-length integers: 7 bits per byte, least significant
    group first, the high bit set on every byte but the last (at most 5 bytes for int, 10 for long);
  - float and double are 4 and 8 bytes of little-endian IEEE 754; boolean is one byte 0 or 1;
  - bytes and string are a long length followed by that many bytes (UTF-8 for string);
  - fixed is exactly `size` bytes; enum is the int index of the symbol;
  - a union is the int index of the branch followed by the branch's value (nothing for null);
  - a record is its fields in schema order, with no framing;
  - arrays and maps are a series of blocks: a long count followed by that many items (map items
    are a string key then the value), ended by a count of 0; a negative count means |count| items
    preceded by a long byte size of the block. Writers (fastavro, Java) emit one block per
    non-empty value, so an empty array is the single byte 0;
  - decimals hold the unscaled value as big-endian two's complement: `fixed` decimals sign-extended
    to `size` bytes, `bytes` decimals in `bit_length(|unscaled|) // 8 + 1` bytes when encoding, as
    fastavro writes them. That is Java's minimal `BigInteger.toByteArray` length except for
    -2**(8k-1) (-128, -32768, ...), which fastavro writes one byte longer (ff 80 for -128); the
    decoder reads any length.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_core.errors import FileFormatError, SchemaError
from hudi_core.file_group.log_file.avro_decode import decode_records
from hudi_core.file_group.log_file.avro_encode import encode_records
from hudi_core.file_group.log_file.avro_node import AvroNode
from hudi_core.schema.avro import AvroSchema, avro_to_arrow_schema

__all__ = ["AvroNode", "compile_schema", "decode_datums", "encode_datums"]

_PRIMITIVE_KINDS = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
_MIN_SIZE = {"null": 0, "boolean": 1, "int": 1, "long": 1, "float": 4, "double": 8, "bytes": 1, "string": 1}
_FIXED_SIZE = {"null": 0, "boolean": 1, "float": 4, "double": 8}


def compile_schema(avro_schema: AvroSchema) -> tuple[AvroNode, pa.Schema]:
    """The node tree of a record schema and its Arrow schema (from `avro_to_arrow_schema`).

    Compiled trees are read-only and cached: every block of a log file usually shares one schema.
    """
    return _compile_text(json.dumps(avro_schema, separators=(",", ":")))


@functools.lru_cache(maxsize=64)
def _compile_text(text: str) -> tuple[AvroNode, pa.Schema]:
    avro_schema = json.loads(text)
    arrow_schema = avro_to_arrow_schema(avro_schema)
    root = _Compiler().build(avro_schema, pa.struct(list(arrow_schema)), "", None)
    return root, arrow_schema


def decode_datums(
    avro_schema: AvroSchema, data: bytes | memoryview, offsets: npt.ArrayLike, *, ends: npt.ArrayLike | None = None
) -> pa.RecordBatch:
    """Decodes the datums `data[offsets[i]:offsets[i + 1]]` into one RecordBatch.

    With `ends` (N entries), datum i is `data[offsets[i]:ends[i]]` instead and `offsets` has N
    entries: datums may then be apart, as in an AVRO_DATA block where each follows its length.
    Datums must be in order and must not overlap. The batch has the schema
    `avro_to_arrow_schema(avro_schema)`. Raises FileFormatError on truncated or corrupt datums,
    naming the field being read.
    """
    root, arrow_schema = compile_schema(avro_schema)
    raw = np.frombuffer(data, dtype=np.uint8)
    starts = np.asarray(offsets, dtype=np.int64)
    if starts.ndim != 1 or (ends is None and starts.size == 0):
        raise FileFormatError("Avro datum offsets must be a 1-D array (N + 1 entries, or N with `ends`)")
    if ends is None:
        starts, stops = starts[:-1], starts[1:]
    else:
        stops = np.asarray(ends, dtype=np.int64)
        if stops.shape != starts.shape:
            raise FileFormatError(f"Avro datum ends ({stops.shape}) do not match the offsets ({starts.shape})")
    if starts.size and (
        int(starts[0]) < 0
        or int(stops[-1]) > raw.size
        or bool((stops < starts).any())
        or bool((starts[1:] < stops[:-1]).any())
    ):
        raise FileFormatError(f"Avro datum offsets must be in order, not overlapping, within the {raw.size} data bytes")
    return decode_records(root, arrow_schema, raw, starts, stops)


def encode_datums(avro_schema: AvroSchema, table: pa.Table | pa.RecordBatch) -> tuple[bytes, npt.NDArray[np.int64]]:
    """Encodes every row of `table` as an Avro datum; returns the bytes and N + 1 offsets.

    Columns are matched to fields by name; types castable to the field's Arrow type are accepted.
    The bytes equal fastavro's `schemaless_writer` output for each record, concatenated.
    """
    root, _ = compile_schema(avro_schema)
    batches = table.to_batches() if isinstance(table, pa.Table) else [table]
    parts: list[pa.Buffer] = []
    all_offsets = [np.zeros(1, dtype=np.int64)]
    base = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        chunks, offsets = encode_records(root, batch)
        parts.extend(chunks)
        all_offsets.append(offsets[1:] + base)
        base += int(offsets[-1])
    return b"".join(parts), np.concatenate(all_offsets)


class _Compiler:
    """Builds AvroNodes, resolving named-type references as `hudi_core.schema.avro` does."""

    def __init__(self) -> None:
        self._named: dict[str, tuple[dict[str, Any], str | None]] = {}

    def _register(self, schema: dict[str, Any], namespace: str | None) -> None:
        name = schema.get("name")
        if not name:
            return
        ns = schema.get("namespace", namespace)
        self._named[name] = (schema, namespace)
        if ns and "." not in name:
            self._named[f"{ns}.{name}"] = (schema, namespace)

    def build(self, schema: AvroSchema, arrow_type: pa.DataType, path: str, namespace: str | None) -> AvroNode:
        if isinstance(schema, str):
            if schema in _PRIMITIVE_KINDS:
                return AvroNode(
                    schema, path, arrow_type, min_size=_MIN_SIZE[schema], fixed_size=_FIXED_SIZE.get(schema, -1)
                )
            qualified = f"{namespace}.{schema}" if namespace else schema
            found = self._named.get(schema) or self._named.get(qualified)
            if found is None:
                raise SchemaError(f"{path or '<root>'}: unknown Avro type {schema!r}")
            # A reference decodes like its definition; rebuilding it keeps error paths at the use site.
            return self.build(found[0], arrow_type, path, found[1])
        if isinstance(schema, list):
            return self._union(schema, arrow_type, path, namespace)
        if not isinstance(schema, dict):
            raise SchemaError(f"{path or '<root>'}: malformed Avro type {schema!r:.80}")
        kind = schema.get("type")
        ns = schema.get("namespace", namespace)
        if kind == "record":
            self._register(schema, namespace)
            fields = schema.get("fields", [])
            children = [
                self.build(f["type"], arrow_type.field(i).type, f"{path}.{f['name']}" if path else f["name"], ns)
                for i, f in enumerate(fields)
            ]
            names = [f["name"] for f in fields]
            node = AvroNode("record", path, arrow_type, children, names, min_size=sum(c.min_size for c in children))
            if all(c.fixed_size >= 0 for c in children):
                node.fixed_size = sum(c.fixed_size for c in children)
            return node
        if kind == "enum":
            self._register(schema, namespace)
            return AvroNode("enum", path, arrow_type, symbols=[str(s) for s in schema["symbols"]], min_size=1)
        if kind == "fixed":
            self._register(schema, namespace)
            size = int(schema["size"])
            decimal = pa.types.is_decimal(arrow_type)
            if decimal and size < 1:
                raise SchemaError(f"{path or '<root>'}: a fixed decimal needs at least one byte")
            return AvroNode(
                "decimal" if decimal else "fixed", path, arrow_type, size=size, min_size=size, fixed_size=size
            )
        if kind == "array":
            item = self.build(schema["items"], arrow_type.value_type, f"{path}[]", ns)
            return AvroNode("array", path, arrow_type, [item], min_size=1)
        if kind == "map":
            value = self.build(schema["values"], arrow_type.item_type, f"{path}{{}}", ns)
            return AvroNode("map", path, arrow_type, [value], min_size=1)
        if kind == "bytes" and pa.types.is_decimal(arrow_type):
            return AvroNode("decimal", path, arrow_type, size=0, min_size=1)
        if isinstance(kind, (str, list, dict)):
            return self.build(kind, arrow_type, path, ns)
        raise SchemaError(f"{path or '<root>'}: unsupported Avro type {schema!r:.120}")

    def _union(self, branches: list[Any], arrow_type: pa.DataType, path: str, namespace: str | None) -> AvroNode:
        values = [i for i, b in enumerate(branches) if b != "null"]
        if len(values) > 1:
            raise SchemaError(f"{path or '<root>'}: Avro unions of several non-null types are not supported")
        nulls = [i for i, b in enumerate(branches) if b == "null"]
        node = AvroNode("union", path, arrow_type, branch_count=len(branches), min_size=1)
        node.null_index = nulls[0] if nulls else -1
        if values:
            node.value_index = values[0]
            node.children = [self.build(branches[values[0]], arrow_type, path, namespace)]
        return node
