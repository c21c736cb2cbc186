"""The `hudi` PySpark data source: `spark.read.format("hudi").option(...).load(path)`.

Reads plan on the driver with the same planner as the Arrow engine (`ReadPlanner`): file slices
grouped into Spark input partitions as Spark sizes file reads (`spark.sql.files.maxPartitionBytes`
and `openCostInBytes`: the values the session had when `register` ran, or set on the read itself). Each task
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

Writes through `df.write.format("hudi")` are in `hudi_core.spark.source_writer`; streaming reads
(`spark.readStream.format("hudi")`) in `hudi_core.spark.stream_read`; streaming writes in
`hudi_core.spark.stream_write`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
)
from pyspark.sql.types import StructType

from hudi_core.engine.spark.types import arrow_schema, spark_schema
from hudi_core.errors import HudiConfigError
from hudi_core.hudi_table import HudiTable
from hudi_core.spark.source_writer import HudiSourceWriter
from hudi_core.spark.splits import (
    CommitSplit,
    SplitSizing,
    cdc_reader,
    hudi_read_options,
    plan_splits,
    read_partition,
)
from hudi_core.spark.stream_read import HudiStreamReader
from hudi_core.spark.stream_write import HudiStreamSinkWriter
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


class HudiDataSource(DataSource):
    """Apache Hudi tables (v6, v8, v9) for Spark, read with hudi_core's planner and file-group reader.

    A data source plans in a Python worker that has no SparkSession, so `register` registers a
    subclass carrying the session's split sizing (`session_sizing`).
    """

    session_sizing = SplitSizing()

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
        return HudiReader(dict(self.options), schema, self.session_sizing.with_options(self.options))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return HudiSourceWriter(dict(self.options), schema, overwrite)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802 - PySpark's name
        path, options = hudi_options(self.options)
        return HudiStreamReader(path, options, arrow_schema(schema), self.session_sizing.with_options(self.options))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:  # noqa: N802 - PySpark's name
        return HudiStreamSinkWriter()


class HudiReader(DataSourceReader):
    """Reads the whole query, whatever its filters (see the module docstring)."""

    def __init__(self, options: dict[str, str], schema: StructType, sizing: SplitSizing) -> None:
        self._options = options
        self._schema = arrow_schema(schema)
        self._sizing = sizing

    def partitions(self) -> Sequence[InputPartition]:
        path, options = hudi_options(self._options)
        planner = read_planner(path)
        if planner.is_cdc_query(options):
            start, end = planner.cdc_window(options)
            return [CommitSplit(c.requested_time) for c in cdc_reader(planner).commits(start, end)]
        return plan_splits(planner.plan(options=options), self._sizing)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        path, _ = hudi_options(self._options)
        yield from read_partition(path, partition, self._schema)


def register(spark: SparkSession) -> None:
    """Registers the `hudi` data source: `spark.read.format("hudi")`, `df.write.format("hudi")`.

    The source works with Python data source filter pushdown on or off
    (`spark.sql.python.filterPushdown.enabled`): it takes no pushed filters. Its reads size tasks
    by the session's `spark.sql.files.maxPartitionBytes` and `openCostInBytes` as they are now (a
    data source plans without a session; register again after changing them, or set them as
    options of one read).
    """
    sized = type("HudiDataSource", (HudiDataSource,), {"session_sizing": SplitSizing.of_session(spark)})
    spark.dataSource.register(sized)
