"""CDC log files: the change records a Copy-on-Write rewrite of a file group leaves next to it.

A `.cdc` log file (`.<fileId>_<instant>.log.<v>_<token>.cdc`, notes §3, §10) holds CDC_DATA blocks
(type 6) framed like any log block, with INSTANT_TIME and SCHEMA headers and the content of an
Avro data block (version 3, record count, length-prefixed datums). Its record schema depends on
`hoodie.table.cdc.supplemental.logging.mode`:

* OP_KEY_ONLY: record `Record` {op: [string, null], record_key: [string, null]};
* DATA_BEFORE: record `CDC` in the table namespace {op, record_key, before: [null, <table record>]};
* DATA_BEFORE_AFTER: record `CDC` {op, ts_ms (the commit's instant), before, after}.

`op` is `i`, `u` or `d`; images hold the data columns only (no meta fields). No CDC-enabled table
was available to check this layout against real files: it follows Hudi 1.0's sources
(`HoodieCDCLogger`, `HoodieCDCUtils`, `HoodieCDCDataBlock`), and tests/format checks our files
against those schemas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from hudi_core.config.table import CdcLoggingMode
from hudi_core.errors import FileFormatError
from hudi_core.file_group.log_file.blocks import decode_data_block
from hudi_core.file_group.log_file.format import BlockType
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.log_file.writer import avro_data_block
from hudi_core.schema.conform import conform_array
from hudi_core.storage import Storage

OP = "op"
RECORD_KEY = "record_key"
COMMIT_TIMESTAMP = "ts_ms"
BEFORE = "before"
AFTER = "after"
INSERT, UPDATE, DELETE = "i", "u", "d"

_OP_KEY_ONLY_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Record",
    "fields": [{"name": OP, "type": ["string", "null"]}, {"name": RECORD_KEY, "type": ["string", "null"]}],
}


def _nullable_field(name: str, avro_type: Any) -> dict[str, Any]:
    return {"name": name, "type": ["null", avro_type], "doc": "", "default": None}


def cdc_avro_schema(mode: CdcLoggingMode, data_schema: dict[str, Any]) -> dict[str, Any]:
    """The CDC record schema of `mode` for a table whose data record schema is `data_schema`."""
    if mode is CdcLoggingMode.OP_KEY_ONLY:
        return _OP_KEY_ONLY_SCHEMA
    fields = [_nullable_field(OP, "string")]
    if mode is CdcLoggingMode.DATA_BEFORE_AFTER:
        fields += [
            _nullable_field(COMMIT_TIMESTAMP, "string"),
            _nullable_field(BEFORE, data_schema),
            # A record type is defined once; Avro refers to it by its full name afterwards.
            _nullable_field(AFTER, _full_name(data_schema)),
        ]
    else:
        fields += [_nullable_field(RECORD_KEY, "string"), _nullable_field(BEFORE, data_schema)]
    schema: dict[str, Any] = {"type": "record", "name": "CDC"}
    if data_schema.get("namespace"):
        schema["namespace"] = data_schema["namespace"]
    schema["doc"] = ""
    schema["fields"] = fields
    return schema


def _full_name(record: dict[str, Any]) -> str:
    namespace = record.get("namespace")
    return f"{namespace}.{record['name']}" if namespace else str(record["name"])


@dataclass(frozen=True)
class ChangeRecords:
    """Changes to the records of one file group by one commit.

    Attributes:
        ops: 'i', 'u' or 'd' per change.
        keys: the record key of each change.
        before: the data columns before the change (rows of inserts are ignored), or None when
            not known (OP_KEY_ONLY logs).
        after: the data columns after the change (rows of deletes are ignored), or None when not
            known (OP_KEY_ONLY and DATA_BEFORE logs).
    """

    ops: pa.Array
    keys: pa.Array
    before: pa.Table | None
    after: pa.Table | None

    @property
    def num_rows(self) -> int:
        return len(self.ops)


def struct_images(rows: pa.Table, present: np.ndarray) -> pa.StructArray:
    """Each row's columns as a struct; null where `present` is False (CDC before/after images)."""
    flat = rows.combine_chunks()
    return pa.StructArray.from_arrays(
        [flat.column(i).combine_chunks() for i in range(flat.num_columns)],
        fields=list(flat.schema),
        mask=pa.array(~present, pa.bool_()),
    )


def cdc_block(instant_time: str, mode: CdcLoggingMode, data_schema: dict[str, Any], changes: ChangeRecords) -> bytes:
    """One CDC_DATA block holding `changes` as `mode` logs them (images need `before`/`after`)."""
    schema = cdc_avro_schema(mode, data_schema)
    ops = changes.ops.to_numpy(zero_copy_only=False)
    columns: dict[str, pa.Array] = {OP: changes.ops}
    if mode is CdcLoggingMode.DATA_BEFORE_AFTER:
        columns[COMMIT_TIMESTAMP] = pa.repeat(pa.scalar(instant_time), changes.num_rows)
    else:
        columns[RECORD_KEY] = changes.keys
    if mode is not CdcLoggingMode.OP_KEY_ONLY:
        assert changes.before is not None
        columns[BEFORE] = struct_images(changes.before, ops != INSERT)
    if mode is CdcLoggingMode.DATA_BEFORE_AFTER:
        assert changes.after is not None
        columns[AFTER] = struct_images(changes.after, ops != DELETE)
    return avro_data_block(instant_time, schema, pa.table(columns), BlockType.CDC_DATA)


def read_cdc_log(storage: Storage, path: str, data_schema: pa.Schema) -> tuple[pa.Table, CdcLoggingMode]:
    """The change records of one `.cdc` log file and the mode they were logged in.

    Images are brought to `data_schema` (the table's data columns now). The returned table has
    `op`, `record_key` (null in DATA_BEFORE_AFTER logs) and, as the mode provides them, `before`
    and `after` struct columns.
    """
    blocks = [b for b in read_log_blocks(storage.read_bytes(path), path) if b.block_type is BlockType.CDC_DATA]
    tables = [decode_data_block(b) for b in blocks]
    if not tables:
        raise FileFormatError(f"{path}: CDC log without CDC_DATA blocks")
    names = set(tables[0].column_names)
    if AFTER in names:
        mode = CdcLoggingMode.DATA_BEFORE_AFTER
    elif BEFORE in names:
        mode = CdcLoggingMode.DATA_BEFORE
    else:
        mode = CdcLoggingMode.OP_KEY_ONLY
    target = pa.struct(list(data_schema))
    columns: dict[str, pa.ChunkedArray] = {}
    for name in (OP, RECORD_KEY, BEFORE, AFTER):
        if name not in names:
            continue
        chunks = []
        for table in tables:
            if name not in table.column_names:
                raise FileFormatError(f"{path}: CDC blocks disagree on their schema (no {name!r} in one)")
            for chunk in table.column(name).chunks:
                kind = target if name in (BEFORE, AFTER) else pa.string()
                chunks.append(conform_array(chunk, kind, f"{path}: {name}"))
        columns[name] = pa.chunked_array(chunks, type=target if name in (BEFORE, AFTER) else pa.string())
    if RECORD_KEY not in columns:
        rows = sum(t.num_rows for t in tables)
        columns[RECORD_KEY] = pa.chunked_array([pa.nulls(rows, pa.string())])
    return pa.table(columns), mode
