"""Reads pruned for one call: `hudi_core.spark.read(spark, path, filters=..., columns=...)`.

The read is planned here, in the calling process (the driver, or a Spark Connect client): the
filters prune partitions and files and filter rows, and the columns narrow what is read. The
planned splits become the returned DataFrame's own data, one pickled split per row, which
`mapInArrow` reads on the executors. So the pruning belongs to that DataFrame alone, as its
definition: unlike filters pushed into the `hudi` data source (see `hudi_core.spark.datasource`),
nothing of it can reach another DataFrame or query. The DataFrame reads the table as planned here,
whenever its queries run.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping, Sequence
from functools import partial

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import BinaryType, LongType, StructField, StructType

from hudi_core.engine.spark.types import arrow_schema, spark_schema
from hudi_core.errors import HudiConfigError
from hudi_core.hudi_table import Filters, HudiTable
from hudi_core.spark.splits import SplitSizing, hudi_read_options, plan_splits, read_split

_SPLITS = StructType([StructField("split", BinaryType(), False), StructField("number", LongType(), False)])


def planned_frame(
    spark: SparkSession,
    path: str,
    options: Mapping[str, str],
    filters: Filters,
    columns: Sequence[str] | None,
) -> DataFrame:
    """The rows of `path` that match `filters`, in `columns`, read as planned now."""
    planner = HudiTable(path).planner
    read_options = hudi_read_options(options)
    if planner.is_cdc_query(read_options):
        raise HudiConfigError("a CDC query returns whole change rows: filters and columns do not apply")
    plan = planner.plan(columns=columns, filters=filters, options=read_options)
    schema = spark_schema(plan.output_schema)
    sizing = SplitSizing.of_session(spark).with_options(options)
    splits = [(pickle.dumps(split), number) for number, split in enumerate(plan_splits(plan, sizing))]
    frame = spark.createDataFrame(splits, _SPLITS)
    if len(splits) > 1:  # one task per split, as planned (a local list spreads over default parallelism)
        frame = frame.repartitionByRange(len(splits), "number")
    return frame.mapInArrow(partial(read_pickled_splits, path, arrow_schema(schema)), schema)


def read_pickled_splits(path: str, schema: pa.Schema, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Reads the splits `planned_frame` pickled into the rows of `batches`."""
    for batch in batches:
        for payload in batch.column(0).to_pylist():
            yield from read_split(path, pickle.loads(payload), schema)
