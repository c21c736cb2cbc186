"""Windows of a table's commits written as Parquet files, the window in each file's name.

A consumer writing files has no commit to hold its checkpoint: the file name is the checkpoint.
`<prefix><start>_<end>.parquet` appears at once, written under a temporary name first and then
renamed, so a consumer killed mid-write leaves no file and its retry writes the same window again,
while one killed after the rename finds its window done.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from hudi_airflow.sources import filesystem

_NAME = re.compile(r"^(?P<start>[0-9]+|earliest)_(?P<end>[0-9]+)\.parquet$")


def _safe_prefix(identifier: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", identifier) + "__"


def files_checkpoint(output_dir: str, identifier: str, storage_options: Mapping[str, str]) -> str | None:
    """The end of the newest window `identifier` wrote into `output_dir` (None: none yet)."""
    fs, root = filesystem(output_dir, storage_options)
    prefix = _safe_prefix(identifier)
    if fs.get_file_info(root).type == pafs.FileType.NotFound:
        return None
    ends = [
        found.group("end")
        for info in fs.get_file_info(pafs.FileSelector(root))
        if info.base_name.startswith(prefix) and (found := _NAME.match(info.base_name[len(prefix) :]))
    ]
    return max(ends, default=None)


def write_window_file(
    output_dir: str, identifier: str, start: str, end: str, rows: pa.Table, storage_options: Mapping[str, str]
) -> str:
    """Writes a window's rows as one Parquet file; returns its location."""
    fs, root = filesystem(output_dir, storage_options)
    fs.create_dir(root, recursive=True)
    name = f"{_safe_prefix(identifier)}{start}_{end}.parquet"
    staging = f"{root}/.{name}.{uuid.uuid4().hex}.tmp"
    pq.write_table(rows, staging, filesystem=fs)
    fs.move(staging, f"{root}/{name}")
    return f"{output_dir.rstrip('/')}/{name}"
