"""A planned read cut into Spark tasks (splits of file slices), and the reading of one split.

Both Spark read paths use these: the `hudi` data source (`hudi_core.spark.datasource`) and reads
planned on the driver (`hudi_core.spark.planned_read`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from hudi_core.config import HudiConfigs
from hudi_core.config.read import HudiReadConfig
from hudi_core.engine.spark.types import batches_for_spark
from hudi_core.file_group import FileSlice
from hudi_core.hudi_table import HudiTable
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest
from hudi_core.table.scan import ScanPlan

SPLIT_BYTES_OPTION = HudiReadConfig.SPLIT_BYTES.key


def split_bytes(options: Mapping[str, str]) -> int:
    """About how many bytes of file slices one task reads (`hoodie.spark.read.split.bytes`)."""
    return HudiConfigs(options).value(HudiReadConfig.SPLIT_BYTES)


def hudi_read_options(options: Mapping[str, str]) -> dict[str, str]:
    """The Hudi read options among a Spark read's options (without `path` and the split size)."""
    return {k: v for k, v in options.items() if k not in ("path", SPLIT_BYTES_OPTION)}


class SliceSplit(InputPartition):
    """File slices one task reads, with what to read from each."""

    def __init__(self, slices: tuple[FileSlice, ...], request: SliceReadRequest, columns: tuple[str, ...]) -> None:
        super().__init__(None)
        self.slices = slices
        self.request = request
        self.columns = columns


def plan_splits(plan: ScanPlan, size: int) -> list[SliceSplit]:
    """The plan's slices in splits of about `size` bytes, each reading the plan's output columns."""
    columns = tuple(plan.output_schema.names)
    return [SliceSplit(group, plan.request, columns) for group in group_slices(plan.slices, size)]


def read_split(path: str, split: SliceSplit, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The rows of one split of the table at `path`, as batches of exactly `schema` (Spark's)."""
    reader = FileGroupReader(HudiTable(path).storage)
    for file_slice in split.slices:
        rows = reader.read(file_slice, split.request).select(list(split.columns))
        yield from batches_for_spark(rows, schema)


def group_slices(slices: Sequence[FileSlice], size: int) -> list[tuple[FileSlice, ...]]:
    """Slices packed into splits of about `size` bytes (a large slice is a split of its own)."""
    groups: list[tuple[FileSlice, ...]] = []
    current: list[FileSlice] = []
    current_size = 0
    for file_slice in slices:
        if current and current_size + file_slice.total_size > size:
            groups.append(tuple(current))
            current, current_size = [], 0
        current.append(file_slice)
        current_size += file_slice.total_size
    if current:
        groups.append(tuple(current))
    return groups
