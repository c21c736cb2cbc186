"""The Spark engine for tasks: a session on the master an Airflow `spark` connection names
(apache-airflow-providers-apache-spark's connection type: host, optional port, extra ignored)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from airflow.sdk import BaseHook

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_master(conn_id: str) -> str:
    """The master URL of a `spark` connection (`local[2]`, `spark://host:7077`, `yarn`, ...)."""
    connection = BaseHook.get_connection(conn_id)
    if connection.conn_type != "spark":
        raise ValueError(f"connection {conn_id!r} is of type {connection.conn_type!r}, not 'spark'")
    if not connection.host:
        raise ValueError(f"connection {conn_id!r} names no master (its host)")
    return f"{connection.host}:{connection.port}" if connection.port else connection.host


@contextmanager
def spark_session(
    conn_id: str, conf: Mapping[str, str], storage_options: Mapping[str, str] | None = None
) -> Iterator[SparkSession]:
    """The process's active session, else one on the connection's master, stopped afterwards.

    `storage_options` (a table's `aws` connection) reach the executors as their environment
    (`spark.executorEnv.*`, under `conf`): they are other processes, which the driver's registered
    settings do not reach."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 - PySpark is the `spark` extra

    from hudi_core import spark as hudi_spark  # noqa: PLC0415

    active = SparkSession.getActiveSession()
    if active is not None:
        hudi_spark.register(active)
        yield active
        return
    executor_env = {f"spark.executorEnv.{name}": value for name, value in (storage_options or {}).items()}
    session = hudi_spark.session(spark_master(conn_id), **{**executor_env, **conf})
    try:
        yield session
    finally:
        session.stop()
