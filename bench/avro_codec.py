"""Benchmark: Avro datums <-> Arrow, fastavro per record versus the vectorized codec.

Run: `python -m bench.avro_codec [--records N]`. Uses a trips-like flat schema (Hudi meta fields
plus the quickstart columns, every field `["null", T]`) and prints records/s for
(a) fastavro `schemaless_reader` per record + transposing to Arrow, (b) `decode_datums`,
(c) fastavro `schemaless_writer` per record from `table.to_pylist()`, (d) `encode_datums`.
The vectorized runs are repeated and the best is reported with the first: in a fresh process the
first run also pays for touching new memory, which is slow in VMs.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa

from hudi_core.file_group.log_file.avro_codec import decode_datums, encode_datums
from hudi_core.schema.avro import avro_to_arrow_schema

_FIELDS: list[tuple[str, str]] = [
    ("_hoodie_commit_time", "string"),
    ("_hoodie_commit_seqno", "string"),
    ("_hoodie_record_key", "string"),
    ("_hoodie_partition_path", "string"),
    ("_hoodie_file_name", "string"),
    ("uuid", "string"),
    ("ts", "long"),
    ("rider", "string"),
    ("driver", "string"),
    ("city", "string"),
    ("fare", "double"),
    ("lat", "double"),
    ("lon", "double"),
    ("passengers", "int"),
    ("tip_cents", "int"),
    ("is_shared", "boolean"),
]
SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "trips_record",
    "namespace": "hoodie.trips",
    "fields": [{"name": name, "type": ["null", kind], "default": None} for name, kind in _FIELDS],
}


def make_table(rows: int, seed: int = 7) -> pa.Table:
    """Trips-like data with about 1% nulls in a few columns."""
    rng = np.random.default_rng(seed)
    cities = np.array(["san_francisco", "sao_paulo", "chennai", "new_york", "amsterdam"])
    partitions = np.array([f"americas/united_states/{c}" for c in cities])
    uuids = np.array(
        [
            f"{a:016x}-{b:04x}-4{b % 4096:03x}-a{a % 4096:03x}-{a ^ b:012x}"[:36]
            for a, b in zip(rng.integers(0, 2**62, rows), rng.integers(0, 2**16, rows), strict=True)
        ]
    )
    city = rng.integers(0, len(cities), rows)
    seq = np.arange(rows)

    def text(values: Any, null_rate: float = 0.0) -> pa.Array:
        mask = rng.random(rows) < null_rate if null_rate else None
        return pa.array(values, type=pa.string(), mask=mask)

    columns = {
        "_hoodie_commit_time": text(np.full(rows, "20250101123045123")),
        "_hoodie_commit_seqno": text(np.char.add("20250101123045123_0_", seq.astype(str))),
        "_hoodie_record_key": text(uuids),
        "_hoodie_partition_path": text(partitions[city]),
        "_hoodie_file_name": text(
            np.full(rows, "6b7c2e5d-24f1-4c1e-9a47-7f7d0e0c3b8a-0_0-12-34_20250101123045123.parquet")
        ),
        "uuid": text(uuids),
        "ts": pa.array(1_735_689_600_000 + rng.integers(0, 86_400_000, rows)),
        "rider": text(np.char.add("rider-", (seq % 997).astype(str))),
        "driver": text(np.char.add("driver-", (seq % 499).astype(str)), 0.01),
        "city": text(cities[city]),
        "fare": pa.array(rng.random(rows) * 100, mask=rng.random(rows) < 0.01),
        "lat": pa.array(rng.random(rows) * 180 - 90),
        "lon": pa.array(rng.random(rows) * 360 - 180),
        "passengers": pa.array(rng.integers(1, 7, rows).astype(np.int32)),
        "tip_cents": pa.array(rng.integers(-100, 5000, rows).astype(np.int32)),
        "is_shared": pa.array(rng.random(rows) < 0.3),
    }
    return pa.Table.from_pydict(columns, schema=avro_to_arrow_schema(SCHEMA))


def _timed(label: str, rows: int, action: Callable[[], Any], repeat: int = 1) -> Any:
    """Runs `action` `repeat` times; prints the rate of the best run (and of the first, if several)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
        if len(times) < repeat:
            del result  # the next run may reuse its memory
    best = min(times)
    note = f"best of {repeat}; first run {rows / times[0]:,.0f}/s" if repeat > 1 else "one run"
    print(f"{label:<56} {rows / best:>12,.0f} records/s  ({best:.2f} s, {note})")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    rows = parser.parse_args().records
    table = make_table(rows)
    arrow_schema = table.schema
    parsed = fastavro.parse_schema(SCHEMA)
    print(f"{rows:,} records, {len(_FIELDS)} nullable fields")

    def fastavro_encode() -> tuple[bytes, np.ndarray]:
        out = io.BytesIO()
        ends = [0]
        for record in table.to_pylist():
            fastavro.schemaless_writer(out, parsed, record)
            ends.append(out.tell())
        return out.getvalue(), np.array(ends, dtype=np.int64)

    def fastavro_decode() -> pa.Table:
        view = memoryview(data)
        records = [
            fastavro.schemaless_reader(io.BytesIO(view[a:b]), parsed, None)
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]
        return pa.Table.from_pylist(records, schema=arrow_schema)

    data, offsets = _timed("(c) fastavro schemaless_writer per record (to_pylist)", rows, fastavro_encode)
    print(f"    {len(data) / rows:.1f} bytes per datum")
    reference = _timed("(a) fastavro schemaless_reader per record + to Arrow", rows, fastavro_decode)
    batch = _timed("(b) decode_datums", rows, lambda: decode_datums(SCHEMA, data, offsets), repeat=3)
    encoded, encoded_offsets = _timed("(d) encode_datums", rows, lambda: encode_datums(SCHEMA, table), repeat=3)
    assert pa.Table.from_batches([batch]).equals(reference), "decode_datums differs from fastavro"
    assert encoded == data and np.array_equal(encoded_offsets, offsets), "encode_datums differs from fastavro"
    print("outputs identical to fastavro")


if __name__ == "__main__":
    main()
