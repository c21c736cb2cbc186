"""The record keys a write stored, read back from the files it wrote (for the key-overlap check).

Base files hold them in `_hoodie_record_key`; log files in their data blocks, and the keys a
delete removed in their delete blocks (a concurrent delete of a key this write stored is an overlap
too). CDC log files carry no record of their own and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow.parquet as pq

from hudi_core.file_group.log_file.blocks import decode_data_block, decode_delete_block
from hudi_core.file_group.log_file.format import BlockType
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage

_DATA_BLOCKS = (BlockType.AVRO_DATA, BlockType.PARQUET_DATA)


def record_keys_of(storage: Storage, paths: Iterable[str]) -> set[str]:
    """Every record key stored or deleted by the base and log files at `paths` (relative)."""
    keys: set[str] = set()
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if parse_base_file_name(name) is not None:
            column = pq.read_table(storage.open_input_file(path), columns=[RECORD_KEY]).column(RECORD_KEY)
            keys.update(column.to_pylist())
        elif (log := parse_log_file_name(name)) is not None and not log.is_cdc:
            for block in read_log_blocks(storage.read_bytes(path), path):
                if block.block_type is BlockType.DELETE:
                    keys.update(decode_delete_block(block).keys.to_pylist())
                elif block.block_type in _DATA_BLOCKS:
                    keys.update(decode_data_block(block).column(RECORD_KEY).to_pylist())
    return keys
