"""The `hudi` PySpark data source: `spark.read.format("hudi").option(...).load(path)`.

Reads plan on the driver with the same planner as the Arrow engine (`HudiTable.plan`): one Spark
input partition per file slice, small slices grouped up to `hoodie.spark.read.split.bytes`. Each task
reads its slices with the shared file-group reader (merging Merge-on-Read logs) and yields Arrow
batches in exactly the declared schema. CDC queries (`hoodie.datasource.query.incremental.format=cdc`)
read one commit's changes per task.

Filters Spark pushes (`spark.sql.python.filterPushdown.enabled`, set by `hudi_core.spark.session`)
prune partitions and files only; every filter is handed back to Spark, which still evaluates it, so
results never depend on pushdown. Each query gets a fresh reader, whose pruning filters are reset
when Spark pushes.

Writes through `df.write.format("hudi")` are in `hudi_core.engine.spark.source_writer`.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceWriter,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    LessThan,
    LessThanOrEqual,
)
from pyspark.sql.types import StructType

from hudi_core.engine.spark.source_writer import HudiSourceWriter
from hudi_core.engine.spark.types import arrow_schema, batches_for_spark, spark_schema
from hudi_core.errors import HudiConfigError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.reader import FileGroupReader, SliceReadRequest
from hudi_core.table import HudiTable
from hudi_core.table.scan import ScanPlan

SPLIT_BYTES_OPTION = "hoodie.spark.read.split.bytes"
DEFAULT_SPLIT_BYTES = 128 * 1024 * 1024
_OPS = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<=", In: "in"}


def hudi_options(options: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The table path and the Hudi read options of a data source's options."""
    path = options.get("path")
    if not path:
        raise HudiConfigError('spark.read.format("hudi") needs a path: .load(path)')
    hudi = {k: v for k, v in options.items() if k not in ("path", SPLIT_BYTES_OPTION)}
    return path, hudi


class HudiDataSource(DataSource):
    """Apache Hudi tables (v6, v8, v9) for Spark, read with hudi_core's planner and file-group reader."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType:
        path, options = hudi_options(self.options)
        table = HudiTable(path)
        if table.is_cdc_query(options):
            return spark_schema(table.cdc_reader().output_schema("json"))
        return spark_schema(table.plan(options=options).output_schema)

    def reader(self, schema: StructType) -> DataSourceReader:
        return HudiReader(dict(self.options), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return HudiSourceWriter(dict(self.options), schema, overwrite)


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


def _python_value(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool, decimal.Decimal, datetime.date, datetime.datetime)):
        return value
    raise TypeError(type(value))


def pruning_filters(filters: Iterable[Filter]) -> list[tuple[str, str, Any]]:
    """Pushed filters our planner can prune with, as (column, op, value); others are skipped."""
    found: list[tuple[str, str, Any]] = []
    for pushed in filters:
        op = _OPS.get(type(pushed))
        attribute: tuple[str, ...] = tuple(getattr(pushed, "attribute", ()))
        raw = getattr(pushed, "value", None)
        if op is None or len(attribute) != 1:
            continue
        try:
            value = [_python_value(v) for v in raw or ()] if op == "in" else _python_value(raw)
        except TypeError:
            continue
        found.append((attribute[0], op, value))
    return found


class HudiReader(DataSourceReader):
    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self._options = options
        self._schema = arrow_schema(schema)
        self._pruning: list[tuple[str, str, Any]] = []

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:  # noqa: N802 - PySpark's name
        self._pruning = pruning_filters(filters)
        return filters  # Spark evaluates every filter itself

    def _plan(self) -> tuple[HudiTable, ScanPlan]:
        path, options = hudi_options(self._options)
        table = HudiTable(path)
        filters = [f for f in self._pruning if f[0] in self._schema.names]
        try:
            plan = table.plan(filters=filters or None, options=options)
        except HudiConfigError:
            plan = table.plan(options=options)  # a pushed filter our planner cannot use
        return table, plan

    def partitions(self) -> Sequence[InputPartition]:
        path, options = hudi_options(self._options)
        table = HudiTable(path)
        if table.is_cdc_query(options):
            start, end = table.cdc_window(options)
            return [CommitSplit(c.requested_time) for c in table.cdc_reader().commits(start, end)]
        _, plan = self._plan()
        split_bytes = int(self._options.get(SPLIT_BYTES_OPTION, DEFAULT_SPLIT_BYTES))
        columns = tuple(plan.output_schema.names)
        return [SliceSplit(group, plan.request, columns) for group in group_slices(plan.slices, split_bytes)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        path, _ = hudi_options(self._options)
        table = HudiTable(path)
        if isinstance(partition, CommitSplit):
            cdc = table.cdc_reader()
            commit = table.timeline.find(partition.requested_time)
            if commit is not None:
                yield from batches_for_spark(cdc.read_commit(commit, "json"), self._schema)
            return
        if not isinstance(partition, SliceSplit):
            return  # an empty plan: Spark still runs one task
        reader = FileGroupReader(table.storage)
        for file_slice in partition.slices:
            rows = reader.read(file_slice, partition.request).select(list(partition.columns))
            yield from batches_for_spark(rows, self._schema)


def group_slices(slices: Sequence[FileSlice], split_bytes: int) -> list[tuple[FileSlice, ...]]:
    """Slices packed into splits of about `split_bytes` (a large slice is a split of its own)."""
    groups: list[tuple[FileSlice, ...]] = []
    current: list[FileSlice] = []
    size = 0
    for file_slice in slices:
        if current and size + file_slice.total_size > split_bytes:
            groups.append(tuple(current))
            current, size = [], 0
        current.append(file_slice)
        size += file_slice.total_size
    if current:
        groups.append(tuple(current))
    return groups
