"""hudi-rs (`hudi` 0.5.0 on PyPI), our independent reader: the same queries, its answers."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from hudi import HudiQueryType, HudiReadOptions, HudiTable


def _read(path: Path | str, options: HudiReadOptions | None = None) -> pa.Table:
    table = HudiTable(str(path))
    batches = table.read(options) if options is not None else table.read()
    schema = table.get_schema_with_meta_fields()
    return pa.Table.from_batches(batches, schema=batches[0].schema if batches else schema)


def snapshot(path: Path | str) -> pa.Table:
    return _read(path)


def as_of(path: Path | str, instant: str) -> pa.Table:
    return _read(path, HudiReadOptions().with_as_of_timestamp(instant))


def read_optimized(path: Path | str) -> pa.Table:
    return _read(path, HudiReadOptions(hudi_options={"hoodie.read.use.read_optimized.mode": "true"}))


def incremental(path: Path | str, start: str, end: str | None = None) -> pa.Table:
    options = HudiReadOptions().with_query_type(HudiQueryType.Incremental).with_start_timestamp(start)
    if end is not None:
        options = options.with_end_timestamp(end)
    return _read(path, options)
