"""The `hudi` PySpark data source: `spark.read.format("hudi").option(...).load(path)`.

Reads plan on the driver with the same planner as the Arrow engine (`ReadPlanner`): one Spark
input partition per file slice, small slices grouped up to `hoodie.spark.read.split.bytes`. Each task
reads its slices with the shared file-group reader (merging Merge-on-Read logs) and yields Arrow
batches in exactly the declared schema. CDC queries (`hoodie.datasource.query.incremental.format=cdc`)
read one commit's changes per task.

The source does not prune by a query's filters: it defines no `pushFilters`. PySpark (4.x, at least
up to 4.3) keeps the read info that a filter pushdown produces (the pickled reader and the
partitions it planned) on the relation, and reuses it for every later scan of the same DataFrame
that pushes no filter. Pruning planned for `df.where(...)` would drop rows from a later
`df.count()`, and from whatever is written from a DataFrame derived from `df`. So nothing Spark may
cache here depends on a query's filters; Spark evaluates every filter itself. Pruned reads are
planned on the driver for one call by `hudi_core.spark.read(spark, path, filters=..., columns=...)`
(`hudi_core.spark.planned_read`). Without `pushFilters` the source works whatever
`spark.sql.python.filterPushdown.enabled` says (PySpark refuses a reader that defines it when
pushdown is off).

Writes through `df.write.format("hudi")` are in `hudi_core.spark.source_writer`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import partial

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceWriter, InputPartition
from pyspark.sql.types import StructType

from hudi_core.engine.arrow import iter_plan
from hudi_core.engine.spark.types import arrow_schema, batches_for_spark, spark_schema
from hudi_core.errors import HudiConfigError
from hudi_core.hudi_table import HudiTable
from hudi_core.spark.source_writer import HudiSourceWriter
from hudi_core.spark.splits import SliceSplit, hudi_read_options, plan_splits, read_split, split_bytes
from hudi_core.table.cdc import CdcReader
from hudi_core.table.read_planner import ReadPlanner


def hudi_options(options: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The table path and the Hudi read options of a data source's options."""
    path = options.get("path")
    if not path:
        raise HudiConfigError('spark.read.format("hudi") needs a path: .load(path)')
    return path, hudi_read_options(options)


def read_planner(path: str) -> ReadPlanner:
    """The planner of the table at `path` (which must hold one)."""
    return HudiTable(path).planner


def cdc_reader(planner: ReadPlanner) -> CdcReader:
    """A change-feed reader over the table as it is now, reading slices with the Arrow engine
    (inside the Spark task that computes one commit's changes)."""
    return planner.cdc_reader(partial(iter_plan, planner.storage))


class HudiDataSource(DataSource):
    """Apache Hudi tables (v6, v8, v9) for Spark, read with hudi_core's planner and file-group reader."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType:
        path, options = hudi_options(self.options)
        planner = read_planner(path)
        if planner.is_cdc_query(options):
            return spark_schema(cdc_reader(planner).output_schema("json"))
        return spark_schema(planner.plan(options=options).output_schema)

    def reader(self, schema: StructType) -> DataSourceReader:
        return HudiReader(dict(self.options), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return HudiSourceWriter(dict(self.options), schema, overwrite)


class CommitSplit(InputPartition):
    """One commit whose change rows one task computes."""

    def __init__(self, requested_time: str) -> None:
        super().__init__(requested_time)
        self.requested_time = requested_time


class HudiReader(DataSourceReader):
    """Reads the whole query, whatever its filters (see the module docstring)."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self._options = options
        self._schema = arrow_schema(schema)

    def partitions(self) -> Sequence[InputPartition]:
        path, options = hudi_options(self._options)
        planner = read_planner(path)
        if planner.is_cdc_query(options):
            start, end = planner.cdc_window(options)
            return [CommitSplit(c.requested_time) for c in cdc_reader(planner).commits(start, end)]
        return plan_splits(planner.plan(options=options), split_bytes(self._options))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        path, _ = hudi_options(self._options)
        if isinstance(partition, SliceSplit):
            yield from read_split(path, partition, self._schema)
        elif isinstance(partition, CommitSplit):
            reader = cdc_reader(read_planner(path))
            commit = reader.timeline.find(partition.requested_time)
            if commit is not None:
                yield from batches_for_spark(reader.read_commit(commit, "json"), self._schema)
        # any other partition: an empty plan, for which Spark still runs one task
