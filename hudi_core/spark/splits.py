"""A planned read cut into Spark tasks (splits of file slices), and the reading of one split.

Every Spark read path uses these: the `hudi` data source (`hudi_core.spark.datasource`), its
streaming reads (`hudi_core.spark.stream_read`) and reads planned on the driver
(`hudi_core.spark.planned_read`). A CDC query's task computes one commit's changes (`CommitSplit`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from hudi_core.config import with_declared_case
from hudi_core.engine.arrow import iter_plan
from hudi_core.engine.spark.types import batches_for_spark
from hudi_core.errors import HudiConfigError
from hudi_core.file_group import FileSlice
from hudi_core.hudi_table import HudiTable
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest
from hudi_core.table.cdc import CdcReader
from hudi_core.table.read_planner import ReadPlanner
from hudi_core.table.scan import ScanPlan

MAX_PARTITION_BYTES = "spark.sql.files.maxPartitionBytes"
OPEN_COST_IN_BYTES = "spark.sql.files.openCostInBytes"
_BYTE_UNITS = {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}


@dataclass(frozen=True)
class SplitSizing:
    """How Spark's file sources size read tasks, applied to file slices: a task takes slices up to
    `max_bytes` (`spark.sql.files.maxPartitionBytes`), each counted `open_cost` bytes more than its
    files (`spark.sql.files.openCostInBytes`), so many small slices do not crowd one task."""

    max_bytes: int = 128 * 2**20
    open_cost: int = 4 * 2**20

    @classmethod
    def of_session(cls, spark: Any) -> SplitSizing:
        """The sizing a session's conf sets (Spark's defaults where it sets none)."""
        return cls().with_options(
            {key: spark.conf.get(key) for key in (MAX_PARTITION_BYTES, OPEN_COST_IN_BYTES) if spark.conf.get(key, None)}
        )

    def with_options(self, options: Mapping[str, str]) -> SplitSizing:
        """This sizing with the Spark settings among a read's options (keys in any case) applied."""
        given = {key.lower(): value for key, value in options.items()}
        max_bytes, open_cost = given.get(MAX_PARTITION_BYTES.lower()), given.get(OPEN_COST_IN_BYTES.lower())
        return SplitSizing(
            byte_size(max_bytes, MAX_PARTITION_BYTES) if max_bytes is not None else self.max_bytes,
            byte_size(open_cost, OPEN_COST_IN_BYTES) if open_cost is not None else self.open_cost,
        )


def byte_size(text: str, key: str) -> int:
    """A Spark byte-size setting (`134217728`, `128m`, `128MB`, `1g`) in bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([bkmgtp]?)b?\s*", text.lower())
    if match is None or int(match.group(1)) < 1:
        raise HudiConfigError(f"{key} must be a positive size in bytes (e.g. 134217728 or 128m), got {text!r}")
    return int(match.group(1)) * _BYTE_UNITS[match.group(2) or "b"]


def hudi_read_options(options: Mapping[str, str]) -> dict[str, str]:
    """The Hudi read options among a Spark read's options (without `path` and Spark's own
    `spark.*` settings), their keys spelled as declared."""
    return {k: v for k, v in with_declared_case(options).items() if k != "path" and not k.startswith("spark.")}


class SliceSplit(InputPartition):
    """File slices one task reads, with what to read from each."""

    def __init__(self, slices: tuple[FileSlice, ...], request: SliceReadRequest, columns: tuple[str, ...]) -> None:
        super().__init__(None)
        self.slices = slices
        self.request = request
        self.columns = columns


class CommitSplit(InputPartition):
    """One commit whose change rows one task computes."""

    def __init__(self, requested_time: str) -> None:
        super().__init__(requested_time)
        self.requested_time = requested_time


def cdc_reader(planner: ReadPlanner) -> CdcReader:
    """A change-feed reader over the table as it is now, reading slices with the Arrow engine
    (inside the Spark task that computes one commit's changes)."""
    return planner.cdc_reader(partial(iter_plan, planner.storage))


def plan_splits(plan: ScanPlan, sizing: SplitSizing) -> list[SliceSplit]:
    """The plan's slices in splits sized as Spark sizes file reads, each reading the plan's output columns."""
    columns = tuple(plan.output_schema.names)
    return [SliceSplit(group, plan.request, columns) for group in group_slices(plan.slices, sizing)]


def read_split(path: str, split: SliceSplit, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The rows of one split of the table at `path`, as batches of exactly `schema` (Spark's)."""
    reader = FileGroupReader(HudiTable(path).storage)
    for file_slice in split.slices:
        rows = reader.read(file_slice, split.request).select(list(split.columns))
        yield from batches_for_spark(rows, schema)


def read_partition(path: str, partition: InputPartition, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The rows of one planned partition (`SliceSplit` or `CommitSplit`) as batches of `schema`."""
    if isinstance(partition, SliceSplit):
        yield from read_split(path, partition, schema)
    elif isinstance(partition, CommitSplit):
        reader = cdc_reader(HudiTable(path).planner)
        commit = reader.timeline.find(partition.requested_time)
        if commit is not None:
            yield from batches_for_spark(reader.read_commit(commit, "json"), schema)
    # any other partition: an empty plan, for which Spark still runs one task


def group_slices(slices: Sequence[FileSlice], sizing: SplitSizing) -> list[tuple[FileSlice, ...]]:
    """Slices packed in order into splits of up to `sizing.max_bytes` (a larger slice is a split
    of its own: a file slice is read by one task)."""
    groups: list[tuple[FileSlice, ...]] = []
    current: list[FileSlice] = []
    current_size = 0
    for file_slice in slices:
        cost = file_slice.total_size + sizing.open_cost
        if current and current_size + cost > sizing.max_bytes:
            groups.append(tuple(current))
            current, current_size = [], 0
        current.append(file_slice)
        current_size += cost
    if current:
        groups.append(tuple(current))
    return groups
