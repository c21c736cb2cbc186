"""Benchmark: Merge-on-Read reads — the log reader's records/s and a merged snapshot.

Run: `python -m bench.mor_read [--records N]`. Writes a real MoR file slice: a base Parquet file of N
trips rows and a log file holding one AVRO_DATA block that updates 1% of them (plus the same
block alone for the log-reader rate), then times:

* log reader: framing + decoding of an AVRO_DATA block of N records (records/s);
* MoR snapshot of the slice (base + 1% log) next to reading the base file alone (the raw limit).
"""

from __future__ import annotations

import argparse
import json
import struct
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench.avro_codec import SCHEMA, make_table
from hudi_core.config.table import KeyGeneratorType, RecordMergeMode
from hudi_core.file_group import FileSlice
from hudi_core.file_group.log_file.avro_codec import encode_datums
from hudi_core.file_group.log_file.blocks import decode_data_block
from hudi_core.file_group.log_file.format import BlockType, HeaderKey, encode_block
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.log_file.scanner import BlockVisibility
from hudi_core.keygen import RecordKeySpec
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest
from hudi_core.merge.record_merger import MergeSpec
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.storage import Storage

INSTANT = "20250101123045123"
DELTA = "20250102000000000"


def avro_block(table: pa.Table) -> bytes:
    data, offsets = encode_datums(SCHEMA, table)
    lengths = offsets[1:] - offsets[:-1]
    parts = [struct.pack(">ii", 3, table.num_rows)]
    for i, length in enumerate(lengths.tolist()):
        parts.append(struct.pack(">i", length))
        parts.append(data[offsets[i] : offsets[i + 1]])
    header = {HeaderKey.INSTANT_TIME: DELTA, HeaderKey.SCHEMA: json.dumps(SCHEMA)}
    return encode_block(BlockType.AVRO_DATA, header, b"".join(parts))


def best(run: int, func: object) -> float:
    times = []
    for _ in range(run):
        start = time.perf_counter()
        func()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    n = args.records
    table = make_table(n)
    with tempfile.TemporaryDirectory() as tmp:
        storage = Storage(tmp)
        block = avro_block(table)

        def read_block() -> None:
            for raw in read_log_blocks(block, "bench.log"):
                decode_data_block(raw)

        seconds = best(3, read_block)
        print(f"log reader, AVRO_DATA block of {n:,} records: {seconds:.2f} s = {n / seconds:,.0f} records/s")

        file_id = "6b7c2e5d-24f1-4c1e-9a47-7f7d0e0c3b8a-0"
        base_name = f"{file_id}_0-12-34_{INSTANT}.parquet"
        pq.write_table(table, Path(tmp) / base_name)
        updates = table.take(pa.array(range(0, n, 100)))
        updates = updates.set_column(updates.schema.get_field_index("fare"), "fare", pc.multiply(updates["fare"], 2.0))
        log_name = f".{file_id}_{DELTA}.log.1_0-1-1"
        (Path(tmp) / log_name).write_bytes(avro_block(updates))
        schema = avro_to_arrow_schema(SCHEMA)
        keys = RecordKeySpec(("uuid",), KeyGeneratorType.SIMPLE, from_meta_field=True, field_prefixed_single=False)
        request = SliceReadRequest(
            schema,
            merge=MergeSpec(RecordMergeMode.COMMIT_TIME_ORDERING, None, schema, keys),
            visibility=BlockVisibility(frozenset({INSTANT, DELTA})),
        )
        slice_ = FileSlice("", file_id, INSTANT, base_name, (log_name,))
        reader = FileGroupReader(storage)
        merged = best(3, lambda: reader.read(slice_, request))
        raw = best(3, lambda: pq.read_table(Path(tmp) / base_name))
        rows = reader.read(slice_, request).num_rows
        print(
            f"MoR snapshot of one slice ({n:,} base rows + {updates.num_rows:,} log updates): {merged:.2f} s "
            f"({rows:,} rows); base file alone with pyarrow: {raw:.2f} s; ratio {merged / raw:.1f}x"
        )


if __name__ == "__main__":
    main()
