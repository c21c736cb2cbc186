"""FileGroupReader: one file slice in, the rows it holds out, as Arrow.

Engine-agnostic: the Arrow engine runs it in threads, the Spark engine in Python tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from hudi_core.errors import UnsupportedFeatureError
from hudi_core.expr import Filter, combined_expression
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.parquet import read_parquet
from hudi_core.storage import Storage


@dataclass(frozen=True)
class SliceReadRequest:
    """What to read from each slice.

    Attributes:
        schema: the columns to produce (table types), including any a filter needs.
        filters: row filters applied after merging.
        read_optimized: read base files only, ignoring log files.
    """

    schema: pa.Schema
    filters: Sequence[Filter] = ()
    read_optimized: bool = False


class FileGroupReader:
    """Reads file slices of one table."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def read(self, file_slice: FileSlice, request: SliceReadRequest) -> pa.Table:
        """The rows of `file_slice` matching the request's filters, in the request's schema."""
        if file_slice.has_logs and not request.read_optimized:
            raise UnsupportedFeatureError(
                f"file slice {file_slice.partition_path}/{file_slice.file_id} has log files; "
                "merge-on-read snapshot reads are not implemented yet"
            )
        if file_slice.base_file_path is None:
            return request.schema.empty_table()
        table = read_parquet(self._storage, file_slice.base_file_path, request.schema, request.filters).table
        expression = combined_expression(request.filters)
        return table.filter(expression) if expression is not None else table
