"""Apache Hudi 1.2 on Spark `local[2]` as a peer, through the driver the tests use (`scripts/apache_hudi.py`).

Each operation run starts one driver (PySpark 3.5 and Hudi's Spark bundle, from the reference
environment `scripts/dev.py reference` installs) in its untimed setup, then warms it with a write
of a few rows (the JVM loads Hudi's classes once per process): the figure is the operation alone,
and the start-up is reported beside it (`spark_startup_s`). Writes read the same Parquet inputs as
ours; reads go into Spark's no-op sink. Apache Hudi creates its own table for the bulk insert (at
its defaults) and upserts into copies of our fixture tables, which are version 8
(`hoodie.write.table.version=8`, so that no upgrade is timed).
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from bench.spark_upsert import options as writer_options
from bench.suite.workspace import Workspace
from scripts import reference_env
from scripts.apache_hudi import ApacheHudi

DRIVER_MEMORY = "4g"  # as our Spark engine's session in the bench
CONTINUE_VERSION_8 = {"hoodie.write.table.version": "8"}
SYSTEM = "Apache Hudi 1.2 (Spark)"


class ApacheHudiUnavailableError(RuntimeError):
    """The reference environment is not installed here (`scripts/dev.py reference` installs it)."""


def start_driver(space: Workspace, name: str) -> tuple[ApacheHudi, float]:
    """A started and warmed driver for one operation run, and its start-up seconds."""
    found = reference_env.installed(os.environ)
    if found is None:
        raise ApacheHudiUnavailableError("no Apache Hudi reference environment: run `python3 scripts/dev.py reference`")
    jar = found.jars[0]
    workdir = space.fresh_scratch(f"{name}-driver")
    driver = ApacheHudi(
        found.python, jar, reference_env.bundle_version(jar) or "?", workdir, driver_memory=DRIVER_MEMORY
    )
    startup = driver.start()
    warm = workdir / "warm.parquet"
    pq.write_table(pa.table({"uuid": ["a", "b"], "city": ["x", "y"], "ts": [1, 2]}), warm)
    driver.write_files(workdir / "warm-table", warm, writer_options("COPY_ON_WRITE", "upsert"), "overwrite")
    return driver, startup
