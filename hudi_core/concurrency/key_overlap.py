"""The record keys a write stored, read back from the files it wrote (for the key-overlap check).

Base files hold them in `_hoodie_record_key`; log files in their data blocks, and the keys a
delete removed in their delete blocks (a concurrent delete of a key this write stored is an overlap
too). CDC log files carry no record of their own and are skipped. The files are read with the same
helpers the metadata table's record index uses.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.metadata.updates import WrittenLogs, base_keys
from hudi_core.schema.meta_fields import RECORD_KEY
from hudi_core.storage import Storage


def record_keys_of(storage: Storage, paths: Iterable[str]) -> pa.Array:
    """Every record key stored or deleted by the base and log files at `paths` (relative), distinct."""
    logs = WrittenLogs(storage)
    parts: list[pa.Array] = []
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if parse_base_file_name(name) is not None:
            parts.append(base_keys(storage, path))
        elif (log := parse_log_file_name(name)) is not None and not log.is_cdc:
            contents = logs[path]
            if contents.records is not None:
                parts.append(contents.records.column(RECORD_KEY).combine_chunks())
            parts.append(pa.array(contents.deleted_keys, pa.string()))
    if not parts:
        return pa.array([], pa.string())
    return pc.unique(pa.concat_arrays([p.cast(pa.string()) for p in parts]))


def shared_keys(mine: pa.Array, theirs: pa.Array) -> list[str]:
    """The keys in both arrays, sorted."""
    return sorted(theirs.filter(pc.is_in(theirs, value_set=mine)).to_pylist())
