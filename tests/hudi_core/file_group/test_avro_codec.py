from __future__ import annotations

import copy
import io
import math
import random
from decimal import Decimal
from functools import cache
from itertools import pairwise
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pytest

from hudi_core.errors import FileFormatError, SchemaError
from hudi_core.file_group.log_file import avro_decode, avro_encode
from hudi_core.file_group.log_file.avro_codec import decode_datums, encode_datums
from hudi_core.schema.avro import avro_to_arrow_schema

# --- random schemas and values ---------------------------------------------------------------

_LOGICAL = [
    ("int", "date"),
    ("int", "time-millis"),
    ("long", "time-micros"),
    ("long", "timestamp-millis"),
    ("long", "timestamp-micros"),
    ("long", "timestamp-nanos"),
    ("long", "local-timestamp-millis"),
    ("long", "local-timestamp-micros"),
    ("long", "local-timestamp-nanos"),
    ("string", "uuid"),
]
_CHARS = "abcXYZ019 _-é中ü😀\u00a0\u0394"


class _Generator:
    """Seeded random Avro schemas (named types are defined once, then referenced) and values."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.count = 0
        self.defined: list[tuple[str, str, dict[str, Any]]] = []  # (namespace, name, definition)

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def record_schema(self) -> dict[str, Any]:
        return self.record(0, "ns.root", root=True)

    def record(self, depth: int, namespace: str, root: bool = False) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "record", "name": self.name("R")}
        if root or self.rng.random() < 0.3:
            namespace = "ns.root" if root else f"ns.n{self.count}"
            schema["namespace"] = namespace
        fields = []
        for i in range(self.rng.randint(1 if depth else 3, 6 if depth else 9)):
            fields.append({"name": f"f{i}_{self.count}", "type": self.nullable(depth + 1, namespace)})
        schema["fields"] = fields
        self.defined.append((namespace, schema["name"], schema))
        return schema

    def nullable(self, depth: int, namespace: str) -> Any:
        inner = self.type(depth, namespace)
        roll = self.rng.random()
        if roll < 0.35:
            return ["null", inner]
        if roll < 0.5:
            return [inner, "null"]
        return inner

    def type(self, depth: int, namespace: str) -> Any:
        roll = self.rng.random()
        if self.defined and roll < 0.06:
            ns, name, definition = self.rng.choice(self.defined)
            if definition["type"] == "record" and depth >= 3:
                return "string"
            return name if ns == namespace and self.rng.random() < 0.5 else f"{ns}.{name}"
        if depth < 3 and roll < 0.16:
            return self.record(depth, namespace)
        if depth < 3 and roll < 0.26:
            return {"type": "array", "items": self.nullable(depth + 1, namespace)}
        if depth < 3 and roll < 0.34:
            return {"type": "map", "values": self.nullable(depth + 1, namespace)}
        if roll < 0.42:
            base, logical = self.rng.choice(_LOGICAL)
            return {"type": base, "logicalType": logical}
        if roll < 0.47:
            precision = self.rng.choice([1, 5, 18, 38, 39, 60, 76])
            scale = self.rng.randint(0, precision)
            return {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale}
        if roll < 0.52:
            size = self.rng.choice([1, 3, 8, 16, 17, 20, 32])
            top = len(str(2 ** (8 * size - 1) - 1)) - 1
            precision = self.rng.randint(1, min(top, 76))
            fixed: dict[str, Any] = {"type": "fixed", "name": self.name("D"), "size": size, "logicalType": "decimal"}
            fixed.update(precision=precision, scale=self.rng.randint(0, precision))
            self.defined.append((namespace, fixed["name"], fixed))
            return fixed
        if roll < 0.56:
            symbols = [f"S{i}" for i in range(self.rng.randint(1, 70))]
            enum: dict[str, Any] = {"type": "enum", "name": self.name("E"), "symbols": symbols}
            self.defined.append((namespace, enum["name"], enum))
            return enum
        if roll < 0.6:
            plain: dict[str, Any] = {
                "type": "fixed",
                "name": self.name("F"),
                "size": self.rng.choice([0, 1, 4, 16, 70]),
            }
            self.defined.append((namespace, plain["name"], plain))
            return plain
        return self.rng.choice(["boolean", "int", "long", "float", "double", "bytes", "string"])

    def value(self, schema: Any, registry: dict[str, Any]) -> Any:
        rng = self.rng
        if isinstance(schema, list):
            if rng.random() < 0.25:
                return None
            return self.value(next(b for b in schema if b != "null"), registry)
        if isinstance(schema, str) and schema in registry:
            return self.value(registry[schema], registry)
        kind = schema["type"] if isinstance(schema, dict) else schema
        logical = schema.get("logicalType") if isinstance(schema, dict) else None
        if logical == "decimal":
            digits = schema["precision"]
            top = 10**digits - 1
            unscaled = rng.choice([0, 1, -1, top, -top, -128, -32768, 127, 255, rng.randint(-top, top)])
            unscaled = max(-top, min(top, unscaled))
            return _decimal(unscaled, schema.get("scale", 0))
        if logical == "uuid":
            return "".join(rng.choice("0123456789abcdef-") for _ in range(36))
        if logical == "date":
            return rng.randint(-(2**20), 2**20)
        if logical in ("time-millis", "time-micros"):
            return rng.randint(0, 86_400_000 * (1000 if logical == "time-micros" else 1) - 1)
        if logical is not None and kind == "long":
            return rng.randint(-(2**50), 2**50)
        if kind == "record":
            return {f["name"]: self.value(f["type"], registry) for f in schema["fields"]}
        if kind == "array":
            return [self.value(schema["items"], registry) for _ in range(self.size())]
        if kind == "map":
            return {self.text(): self.value(schema["values"], registry) for _ in range(self.size())}
        if kind == "enum":
            return rng.choice(schema["symbols"])
        if kind == "fixed":
            return rng.randbytes(schema["size"])
        return self.primitive(kind)

    def size(self) -> int:
        return self.rng.choice([0, 0, 1, 2, 3, 5, 9])

    def text(self) -> str:
        length = self.rng.choice([0, 1, 3, 10, 40, 70, 300])
        return "".join(self.rng.choice(_CHARS) for _ in range(length))

    def primitive(self, kind: str) -> Any:
        rng = self.rng
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "int":
            return rng.choice([0, -1, 1, 63, -64, 64, 2**31 - 1, -(2**31), rng.randint(-(2**31), 2**31 - 1)])
        if kind == "long":
            extremes = [0, -1, 2**63 - 1, -(2**63), 2**55, -(2**56) - 1, 2**62 + 12345]
            return rng.choice([*extremes, rng.randint(-(2**63), 2**63 - 1), rng.randint(-300, 300)])
        if kind in ("float", "double"):
            value = rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-300, rng.uniform(-1e6, 1e6)])
            return float(np.float32(value)) if kind == "float" else value
        if kind == "bytes":
            return rng.randbytes(rng.choice([0, 1, 5, 63, 64, 200]))
        return self.text()


def _decimal(unscaled: int, scale: int) -> Decimal:
    return Decimal(f"{unscaled}E-{scale}")  # exact (scaleb would round to the context's 28 digits)


def _registry(schema: Any, namespace: str | None = None, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Named types by short and full name."""
    out = {} if out is None else out
    if isinstance(schema, list):
        for branch in schema:
            _registry(branch, namespace, out)
    elif isinstance(schema, dict):
        ns = schema.get("namespace", namespace)
        if schema.get("type") in ("record", "enum", "fixed"):
            out[schema["name"]] = schema
            if ns:
                out[f"{ns}.{schema['name']}"] = schema
        for field in schema.get("fields", []):
            _registry(field["type"], ns, out)
        for key in ("items", "values"):
            if key in schema:
                _registry(schema[key], ns, out)
    return out


def _strip_logical(schema: Any) -> Any:
    """The schema without logical types: fastavro then reads raw ints and decimal bytes."""
    if isinstance(schema, list):
        return [_strip_logical(b) for b in schema]
    if isinstance(schema, dict):
        out = {k: v for k, v in schema.items() if k not in ("logicalType", "precision", "scale")}
        if "fields" in out:
            out["fields"] = [{**f, "type": _strip_logical(f["type"])} for f in out["fields"]]
        for key in ("items", "values"):
            if key in out:
                out[key] = _strip_logical(out[key])
        return out
    return schema


def _to_arrow_value(schema: Any, value: Any, registry: dict[str, Any]) -> Any:
    """A raw fastavro-decoded value as a Python value `pa.array` accepts for the Arrow type."""
    if value is None:
        return None
    if isinstance(schema, list):
        return _to_arrow_value(next(b for b in schema if b != "null"), value, registry)
    if isinstance(schema, str):
        return _to_arrow_value(registry[schema], value, registry) if schema in registry else value
    kind = schema["type"]
    if schema.get("logicalType") == "decimal":
        return _decimal(int.from_bytes(value, "big", signed=True), schema.get("scale", 0))
    if kind == "record":
        return {f["name"]: _to_arrow_value(f["type"], value[f["name"]], registry) for f in schema["fields"]}
    if kind == "array":
        return [_to_arrow_value(schema["items"], v, registry) for v in value]
    if kind == "map":
        return [(k, _to_arrow_value(schema["values"], v, registry)) for k, v in value.items()]
    return value


def _plain(arrow_type: pa.DataType) -> pa.DataType:
    """The type with temporal types as integers (their Python forms cannot hold every value)."""
    t = pa.types
    if t.is_date32(arrow_type) or t.is_time32(arrow_type):
        return pa.int32()
    if t.is_timestamp(arrow_type) or t.is_time64(arrow_type):
        return pa.int64()
    if t.is_struct(arrow_type):
        return pa.struct([f.with_type(_plain(f.type)) for f in arrow_type])
    if t.is_map(arrow_type):
        return pa.map_(arrow_type.key_field, arrow_type.item_field.with_type(_plain(arrow_type.item_type)))
    if t.is_list(arrow_type):
        return pa.list_(arrow_type.value_field.with_type(_plain(arrow_type.value_type)))
    return arrow_type


def _same(a: Any, b: Any) -> bool:
    """Deep equality where NaN equals NaN and -0.0 differs from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _fastavro_datums(schema: Any, records: list[Any]) -> tuple[bytes, np.ndarray]:
    parsed = fastavro.parse_schema(copy.deepcopy(schema))
    out = io.BytesIO()
    ends = [0]
    for record in records:
        fastavro.schemaless_writer(out, parsed, record)
        ends.append(out.tell())
    return out.getvalue(), np.array(ends, dtype=np.int64)


@cache
def _case(seed: int) -> tuple[Any, bytes, np.ndarray, pa.Table]:
    """A random schema, fastavro's datums for random records, and the records as Arrow (reference)."""
    generator = _Generator(seed)
    schema = generator.record_schema()
    registry = _registry(schema)
    records = [generator.value(schema, registry) for _ in range(generator.rng.choice([0, 1, 2, 7, 30]))]
    data, offsets = _fastavro_datums(schema, records)
    reader = fastavro.parse_schema(_strip_logical(copy.deepcopy(schema)))
    raw = [fastavro.schemaless_reader(io.BytesIO(data[a:b]), reader, None) for a, b in pairwise(offsets)]
    arrow_schema = avro_to_arrow_schema(schema)
    values = [_to_arrow_value(schema, r, registry) for r in raw]
    expected = pa.Table.from_struct_array(pa.array(values, type=pa.struct(list(arrow_schema))))
    return schema, data, offsets, expected


def _small_chunks(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Tiny chunks and slices so that records span several of them."""
    monkeypatch.setattr(avro_decode, "_CHUNK_BYTES", [1, 50, 400, 1 << 22][seed % 4])
    monkeypatch.setattr(avro_encode, "_SLICE_ROWS", [1, 3, 16384][seed % 3])


_SEEDS = range(300)


@pytest.mark.parametrize("seed", _SEEDS)
def test_decode_datums_random_schemas_match_fastavro(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_chunks(monkeypatch, seed)
    schema, data, offsets, expected = _case(seed)
    batch = decode_datums(schema, data, offsets)
    assert batch.schema == avro_to_arrow_schema(schema)
    batch.validate(full=True)
    plain = _plain(pa.struct(list(batch.schema)))
    got = pa.StructArray.from_arrays(batch.columns, fields=list(batch.schema)).cast(plain).to_pylist()
    want = expected.to_struct_array().combine_chunks().cast(plain).to_pylist() if expected.num_rows else []
    assert _same(got, want)


@pytest.mark.parametrize("seed", _SEEDS)
def test_encode_datums_random_schemas_byte_identical(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_chunks(monkeypatch, seed + 1)
    schema, data, offsets, expected = _case(seed)
    encoded, encoded_offsets = encode_datums(schema, expected)
    assert encoded == data
    assert encoded_offsets.dtype == np.int64
    assert np.array_equal(encoded_offsets, offsets)


# --- fixed cases --------------------------------------------------------------------------------


def _record(*fields: tuple[str, Any]) -> dict[str, Any]:
    return {"type": "record", "name": "r", "namespace": "ns", "fields": [{"name": n, "type": t} for n, t in fields]}


def _round_trip(schema: dict[str, Any], records: list[dict[str, Any]]) -> pa.RecordBatch:
    data, offsets = _fastavro_datums(schema, records)
    batch = decode_datums(schema, data, offsets)
    encoded, encoded_offsets = encode_datums(schema, batch)
    assert encoded == data
    assert np.array_equal(encoded_offsets, offsets)
    return batch


def test_encode_datums_bytes_decimal_uses_fastavro_lengths() -> None:
    schema = _record(("d", {"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 0}))
    values = [0, 1, -1, 127, 128, -128, -129, 255, -256, 32767, -32768, -32769, 10**38 - 1, -(10**38 - 1)]
    data, offsets = _fastavro_datums(schema, [{"d": Decimal(v)} for v in values])
    assert data[offsets[5] : offsets[6]] == b"\x04\xff\x80"  # -128: two bytes, one more than minimal
    batch = _round_trip(schema, [{"d": Decimal(v)} for v in values])
    assert batch.column(0).to_pylist() == [Decimal(v) for v in values]


def test_decode_datums_minimal_decimal_bytes_decoded() -> None:
    schema = _record(("d", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}))
    data = b"\x02\x80" + b"\x00" + b"\x06\xff\xff\x85"  # Java's minimal -128, an empty value, padded -123
    batch = decode_datums(schema, data, np.array([0, 2, 3, 7]))
    assert batch.column(0).to_pylist() == [Decimal("-1.28"), Decimal("0.00"), Decimal("-1.23")]


def test_decode_datums_negative_block_counts_and_several_blocks_decoded() -> None:
    schema = _record(("a", {"type": "array", "items": "long"}), ("m", {"type": "map", "values": "int"}))
    # a: block of -2 items with a byte size, then a block of 1 item, then 0; m: one block of 1 entry.
    datum = b"\x03\x04\x02\x04" + b"\x02\x06" + b"\x00" + b"\x02\x02k\x08\x00"
    batch = decode_datums(schema, datum, np.array([0, len(datum)]))
    assert batch.to_pylist() == [{"a": [1, 2, 3], "m": [("k", 4)]}]


def test_decode_datums_named_type_references_resolved() -> None:
    inner = {"type": "record", "name": "inner", "namespace": "other", "fields": [{"name": "x", "type": "int"}]}
    schema = _record(
        ("a", inner),
        ("b", ["null", "other.inner"]),
        ("c", {"type": "enum", "name": "E", "symbols": ["X", "Y"]}),
        ("d", {"type": "array", "items": "ns.E"}),
        ("e", "E"),
    )
    batch = _round_trip(schema, [{"a": {"x": 1}, "b": {"x": -2}, "c": "Y", "d": ["X", "Y"], "e": "X"}])
    assert batch.to_pylist() == [{"a": {"x": 1}, "b": {"x": -2}, "c": "Y", "d": ["X", "Y"], "e": "X"}]


def test_decode_datums_no_records_empty_batch() -> None:
    schema = _record(("s", ["null", "string"]), ("a", {"type": "array", "items": "int"}))
    batch = decode_datums(schema, b"", np.zeros(1, dtype=np.int64))
    assert batch.num_rows == 0
    assert batch.schema == avro_to_arrow_schema(schema)
    assert encode_datums(schema, batch)[0] == b""


def test_encode_datums_castable_inputs_accepted() -> None:
    schema = _record(
        ("l", "long"),
        ("s", "string"),
        ("e", {"type": "enum", "name": "E", "symbols": ["A", "B"]}),
        ("t", {"type": "long", "logicalType": "timestamp-micros"}),
        ("n", ["null", "double"]),
    )
    table = pa.table(
        {
            "extra": pa.array([1, 2]),
            "t": pa.array([1_000, 2_000], type=pa.timestamp("ns", tz="UTC")),
            "e": pa.array(["B", "A"]).dictionary_encode(),
            "s": pa.array(["x", "é"], type=pa.large_string()),
            "l": pa.array([-1, 2**31 - 1], type=pa.int32()),
        }
    )
    data, offsets = encode_datums(schema, table)
    expected = [
        {"l": -1, "s": "x", "e": "B", "t": 1, "n": None},
        {"l": 2**31 - 1, "s": "é", "e": "A", "t": 2, "n": None},
    ]
    expected_data, expected_offsets = _fastavro_datums(schema, expected)
    assert data == expected_data
    assert np.array_equal(offsets, expected_offsets)


def test_encode_datums_sliced_and_chunked_input_matches_fastavro() -> None:
    schema = _record(("s", ["null", "string"]), ("a", ["null", {"type": "array", "items": ["int", "null"]}]))
    records = [{"s": None if i % 3 else "v" * i, "a": None if i % 4 == 1 else [i, None][: i % 3]} for i in range(40)]
    data, offsets = _fastavro_datums(schema, records)
    batch = decode_datums(schema, data, offsets)
    table = pa.Table.from_batches([batch.slice(5, 10), batch.slice(15, 20)])
    encoded, encoded_offsets = encode_datums(schema, table)
    assert encoded == data[offsets[5] : offsets[35]]
    assert np.array_equal(encoded_offsets, offsets[5:36] - offsets[5])


def test_decode_datums_truncated_datum_raises_file_format_error() -> None:
    schema = _record(("a", "long"), ("name", "string"))
    data, offsets = _fastavro_datums(schema, [{"a": 5, "name": "abcdef"}, {"a": 6, "name": "xyz"}])
    offsets[1] -= 2  # the first datum loses the end of its string
    with pytest.raises(FileFormatError, match="name"):
        decode_datums(schema, data, offsets)


def test_decode_datums_truncated_varint_raises_file_format_error() -> None:
    schema = _record(("s", "string"), ("n", "long"))
    with pytest.raises(FileFormatError, match="n: datum truncated"):
        decode_datums(schema, b"\x02a\xff\xff", np.array([0, 4]))


def test_decode_datums_invalid_union_index_raises_file_format_error() -> None:
    schema = _record(("u", ["null", "string"]))
    with pytest.raises(FileFormatError, match="u: union branch index out of range"):
        decode_datums(schema, b"\x04\x02a", np.array([0, 3]))


def test_decode_datums_invalid_utf8_raises_file_format_error() -> None:
    schema = _record(("s", "string"))
    with pytest.raises(FileFormatError, match="s: invalid UTF-8"):
        decode_datums(schema, b"\x04\xff\xfe", np.array([0, 3]))


def test_decode_datums_invalid_enum_index_raises_file_format_error() -> None:
    schema = _record(("e", {"type": "enum", "name": "E", "symbols": ["A"]}))
    with pytest.raises(FileFormatError, match="e: enum index out of range"):
        decode_datums(schema, b"\x02", np.array([0, 1]))


def test_decode_datums_trailing_bytes_raise_file_format_error() -> None:
    schema = _record(("i", "int"))
    with pytest.raises(FileFormatError, match="bytes left"):
        decode_datums(schema, b"\x02\x00", np.array([0, 2]))


def test_decode_datums_overlong_varint_raises_file_format_error() -> None:
    schema = _record(("i", "int"))
    with pytest.raises(FileFormatError, match="i: malformed varint"):
        decode_datums(schema, b"\xff" * 9 + b"\x01", np.array([0, 10]))


def test_decode_datums_huge_block_count_raises_file_format_error() -> None:
    schema = _record(("a", {"type": "array", "items": "double"}))
    with pytest.raises(FileFormatError, match="a: block count exceeds"):
        decode_datums(schema, b"\xfe\xff\xff\x0f" + b"\x00" * 8, np.array([0, 12]))


def test_decode_datums_bad_offsets_raise_file_format_error() -> None:
    schema = _record(("i", "int"))
    with pytest.raises(FileFormatError, match="offsets"):
        decode_datums(schema, b"\x02\x04", np.array([0, 2, 1]))


def test_decode_datums_multi_branch_union_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match="u"):
        decode_datums(_record(("u", ["null", "int", "string"])), b"", np.zeros(1, dtype=np.int64))


def test_encode_datums_null_for_non_nullable_raises_schema_error() -> None:
    schema = _record(("ok", ["null", "int"]), ("inner", _record(("x", "long"))))
    table = pa.table({"ok": [None], "inner": pa.array([{"x": None}], pa.struct([("x", pa.int64())]))})
    with pytest.raises(SchemaError, match=r"inner\.x: null value"):
        encode_datums(schema, table)


def test_encode_datums_missing_columns_null_or_schema_error() -> None:
    schema = _record(("a", ["null", "int"]), ("b", "string"))
    data, _ = encode_datums(schema, pa.table({"b": ["x"]}))
    assert data == b"\x00\x02x"
    with pytest.raises(SchemaError, match="b: missing column"):
        encode_datums(schema, pa.table({"a": [1]}))


def test_encode_datums_unknown_enum_symbol_raises_schema_error() -> None:
    schema = _record(("e", {"type": "enum", "name": "E", "symbols": ["A", "B"]}))
    with pytest.raises(SchemaError, match="e: 'C' is not a symbol"):
        encode_datums(schema, pa.table({"e": ["A", "C"]}))


def test_encode_datums_lossy_timestamp_cast_raises_schema_error() -> None:
    schema = _record(("t", {"type": "long", "logicalType": "timestamp-micros"}))
    table = pa.table({"t": pa.array([1_000, 1_001], type=pa.timestamp("ns", tz="UTC"))})
    with pytest.raises(SchemaError, match="t: cannot encode"):
        encode_datums(schema, table)


def test_encode_datums_int_overflow_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match="i: cannot encode"):
        encode_datums(_record(("i", "int")), pa.table({"i": [2**40]}))


def test_encode_datums_decimal_too_wide_for_fixed_raises_schema_error() -> None:
    fixed = {"type": "fixed", "name": "F", "size": 2, "logicalType": "decimal", "precision": 6, "scale": 0}
    table = pa.table({"d": pa.array([Decimal(40000)], pa.decimal128(6, 0))})
    with pytest.raises(SchemaError, match="d: decimal value does not fit"):
        encode_datums(_record(("d", fixed)), table)


def test_decode_datums_zero_byte_types_round_trip() -> None:
    empty = {"type": "record", "name": "empty", "fields": []}
    schema = _record(
        ("n", "null"),
        ("u", ["null"]),
        ("an", {"type": "array", "items": "null"}),
        ("af", {"type": "array", "items": {"type": "fixed", "name": "F0", "size": 0}}),
        ("e", empty),
        ("ae", {"type": "array", "items": "empty"}),
        ("i", "int"),
    )
    records: list[dict[str, Any]] = [
        {"n": None, "u": None, "an": [None] * k, "af": [b""] * k, "e": {}, "ae": [{}] * k, "i": k} for k in range(4)
    ]
    batch = _round_trip(schema, records)
    assert batch.column("an").to_pylist() == [[None] * k for k in range(4)]
    assert batch.column("af").to_pylist() == [[b""] * k for k in range(4)]
    assert batch.column("i").to_pylist() == [0, 1, 2, 3]


def test_decode_datums_strings_growing_across_chunks_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(avro_decode, "_CHUNK_BYTES", 64)
    schema = _record(("s", ["null", "string"]), ("b", "bytes"))
    records = [{"s": "x" * (i * i % 300) if i % 5 else None, "b": b"\x00" * (i % 7)} for i in range(200)]
    batch = _round_trip(schema, records)
    assert batch.to_pylist() == records


def test_encode_datums_missing_nullable_record_and_list_inputs_accepted() -> None:
    inner = {"type": "record", "name": "inner", "fields": [{"name": "x", "type": "long"}]}
    schema = _record(("r", ["null", inner]), ("a", {"type": "array", "items": "long"}))
    table = pa.table({"a": pa.array([[1, 2], [3, 4]], type=pa.list_(pa.int32(), 2))})
    data, offsets = encode_datums(schema, table)
    expected = _fastavro_datums(schema, [{"r": None, "a": [1, 2]}, {"r": None, "a": [3, 4]}])
    assert data == expected[0]
    assert np.array_equal(offsets, expected[1])


def test_encode_datums_record_from_non_struct_raises_schema_error() -> None:
    inner = {"type": "record", "name": "inner", "fields": [{"name": "x", "type": "long"}]}
    with pytest.raises(SchemaError, match="r: cannot encode int64 as a record"):
        encode_datums(_record(("r", inner)), pa.table({"r": [1]}))


def test_decode_datums_time_of_day_out_of_range_raises_file_format_error() -> None:
    schema = _record(("t", {"type": "int", "logicalType": "time-millis"}))
    with pytest.raises(FileFormatError, match="t: time of day out of range"):
        decode_datums(schema, b"\x01", np.array([0, 1]))  # -1


def test_decode_datums_negative_length_raises_file_format_error() -> None:
    with pytest.raises(FileFormatError, match="b: negative byte length"):
        decode_datums(_record(("b", "bytes")), b"\x03abc", np.array([0, 4]))


def test_decode_datums_int_out_of_range_raises_file_format_error() -> None:
    with pytest.raises(FileFormatError, match="i: int value out of 32-bit range"):
        decode_datums(_record(("i", "int")), b"\x80\x80\x80\x80\x7f", np.array([0, 5]))


def test_decode_datums_decimal_wider_than_arrow_raises_file_format_error() -> None:
    fixed = {"type": "fixed", "name": "F", "size": 20, "logicalType": "decimal", "precision": 10, "scale": 0}
    schema = _record(("d", fixed))
    ok = b"\xff" * 19 + b"\x85"  # -123 sign-extended to 20 bytes
    assert decode_datums(schema, ok, np.array([0, 20])).column(0).to_pylist() == [Decimal(-123)]
    with pytest.raises(FileFormatError, match="d: decimal wider than"):
        decode_datums(schema, b"\x01" + b"\x00" * 19, np.array([0, 20]))


def test_decode_datums_decimal_beyond_precision_raises_file_format_error() -> None:
    schema = _record(("d", {"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 0}))
    assert decode_datums(schema, b"\x02\x9d", np.array([0, 2])).column(0).to_pylist() == [Decimal(-99)]
    with pytest.raises(FileFormatError, match="d: decimal value exceeds the precision"):
        decode_datums(schema, b"\x02\x9c", np.array([0, 2]))  # -100


def test_decode_datums_corrupt_bytes_raise_only_file_format_error() -> None:
    rng = random.Random(11)
    for _ in range(300):
        schema, data, offsets, _ = _case(rng.randrange(len(_SEEDS)))
        if not data:
            continue
        corrupt, bounds = bytearray(data), offsets.copy()
        if rng.random() < 0.6:
            for _ in range(rng.randint(1, 3)):
                corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        else:  # a datum loses its last bytes
            k = rng.randrange(1, len(bounds))
            bounds[k] = max(bounds[k - 1], bounds[k] - rng.randint(1, 4))
        try:
            batch = decode_datums(schema, bytes(corrupt), bounds)
        except FileFormatError:
            continue
        batch.validate(full=True)  # bytes that still parse must give a valid batch


def test_encode_datums_values_under_nulls_ignored() -> None:
    inner = {"type": "record", "name": "inner", "fields": [{"name": "x", "type": "long"}]}
    schema = _record(("r", ["null", inner]), ("a", ["null", {"type": "array", "items": "long"}]))
    struct = pa.StructArray.from_arrays([pa.array([1, 2, 3])], names=["x"], mask=pa.array([False, True, False]))
    lists = pa.ListArray.from_arrays(
        pa.array([0, 2, 4, 4], type=pa.int32()), pa.array([1, 2, None, 4]), mask=pa.array([False, True, False])
    )
    data, offsets = encode_datums(schema, pa.table({"r": struct, "a": lists}))
    expected = [{"r": {"x": 1}, "a": [1, 2]}, {"r": None, "a": None}, {"r": {"x": 3}, "a": []}]
    expected_data, expected_offsets = _fastavro_datums(schema, expected)
    assert data == expected_data
    assert np.array_equal(offsets, expected_offsets)


def test_decode_datums_spans_apart_with_ends_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(avro_decode, "_CHUNK_BYTES", 40)
    schema = _record(("s", ["null", "string"]), ("n", "long"))
    records = [{"s": None if i % 4 == 0 else "é" * i, "n": -(i**5)} for i in range(30)]
    data, offsets = _fastavro_datums(schema, records)
    # As in an AVRO_DATA block: each datum after a 4-byte length.
    content = b"".join(len(data[a:b]).to_bytes(4, "big") + data[a:b] for a, b in pairwise(offsets))
    starts = offsets[:-1] + 4 * np.arange(1, len(records) + 1)
    batch = decode_datums(schema, content, starts, ends=starts + np.diff(offsets))
    assert batch.to_pylist() == records
    overlapping = starts + np.diff(offsets)
    overlapping[0] += 5  # one byte into the next datum
    with pytest.raises(FileFormatError, match="offsets must be in order"):
        decode_datums(schema, content, starts, ends=overlapping)


def test_decode_datums_fixed_size_items_in_several_blocks_decoded() -> None:
    point = {
        "type": "record",
        "name": "p",
        "fields": [{"name": "x", "type": "float"}, {"name": "ok", "type": "boolean"}],
    }
    schema = _record(("d", {"type": "array", "items": "double"}), ("p", {"type": "array", "items": point}))
    doubles = [np.float64(v).tobytes() for v in (1.5, -2.0, 3.25)]
    points = [np.float32(v).tobytes() + flag for v, flag in ((0.5, b"\x01"), (-1.0, b"\x00"))]
    # d: a block of -2 items with its byte size, then a block of 1; p: two blocks of one item.
    datum = b"\x03\x20" + doubles[0] + doubles[1] + b"\x02" + doubles[2] + b"\x00"
    datum += b"\x02" + points[0] + b"\x02" + points[1] + b"\x00"
    empty = b"\x00\x00"
    batch = decode_datums(schema, datum + empty, np.array([0, len(datum), len(datum) + 2]))
    assert batch.to_pylist() == [
        {"d": [1.5, -2.0, 3.25], "p": [{"x": 0.5, "ok": True}, {"x": -1.0, "ok": False}]},
        {"d": [], "p": []},
    ]


def test_decode_datums_huge_count_of_null_items_raises_file_format_error() -> None:
    schema = _record(("a", {"type": "array", "items": "null"}))
    count = 2**40 * 2  # zigzag varint of 2**40
    varint = bytes([(count >> (7 * i)) & 0x7F | (0x80 if count >> (7 * (i + 1)) else 0) for i in range(6)])
    with pytest.raises(FileFormatError, match="a: too many items"):
        decode_datums(schema, varint + b"\x00", np.array([0, 7]))
