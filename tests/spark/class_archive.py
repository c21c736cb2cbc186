"""A class-data-sharing archive of Spark's JVM classes, so the tests' Spark JVMs start faster.

Every Spark JVM the tests start (local sessions, the standalone cluster's master, workers and
executors, streaming jobs killed and restarted) loads and verifies the same few thousand classes
from PySpark's jars. Java 17 can dump the classes one run loaded into an archive
(`-XX:ArchiveClassesAtExit`) and map it into later JVMs (`-XX:SharedArchiveFile`): measured here, a
local session starts in 2.8 s instead of 4.9 s and its first job runs in 0.8 s instead of 1.5 s.

    python -m tests.spark.class_archive CACHE_DIR

builds the archive for this Java and PySpark under CACHE_DIR once (a session runs a small Hudi
write and read, then its JVM exits and writes the archive) and prints its path; `scripts/dev.py
test` passes it to the tests in `HUDI_TEST_SPARK_CLASS_ARCHIVE`. A JVM whose class path differs
from the archive's ignores it (its warning is switched off), so the archive only ever saves time.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ARCHIVE_VARIABLE = "HUDI_TEST_SPARK_CLASS_ARCHIVE"
QUIET = "-Xlog:cds=off,cds+dynamic=off"
# The warm-up write whose classes go into the archive.
SCHEMA = "id string, ts long, city string, fare double"
WRITE_OPTIONS = {
    "hoodie.table.name": "archive_warmup",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
}


def java_options() -> str:
    """The JVM options that map the archive, or "" when there is none."""
    archive = os.environ.get(ARCHIVE_VARIABLE, "")
    if not archive or not Path(archive).is_file():
        return ""
    return f"-XX:SharedArchiveFile={archive} {QUIET}"


def session_conf() -> dict[str, str]:
    """Spark settings that map the archive in a session's driver and executors ({} without one);
    the driver keeps the quiet logging profile its session would otherwise get."""
    options = java_options()
    if not options:
        return {}
    from hudi_core.engine.spark.defaults import quiet_logging_option  # noqa: PLC0415

    return {
        "spark.driver.extraJavaOptions": f"{quiet_logging_option()} {options}",
        "spark.executor.extraJavaOptions": options,
    }


def archive_path(cache_dir: Path) -> Path:
    """The archive of this Java runtime and PySpark installation (their versions and jar names)."""
    import pyspark  # noqa: PLC0415 - only the builder needs PySpark

    from hudi_core.engine.java_runtime import configure_process_for_spark  # noqa: PLC0415

    java = configure_process_for_spark().java_home / "bin" / "java"
    version = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=True).stderr
    jars = sorted(p.name for p in (Path(pyspark.__file__).parent / "jars").iterdir())
    key = hashlib.sha256("\n".join([version, pyspark.__version__, *jars]).encode()).hexdigest()[:16]
    return cache_dir / f"spark-{pyspark.__version__}-{key}.jsa"


def build(target: Path) -> None:
    """Runs a small session whose JVM writes the archive to `target` when it exits."""
    from pyspark import SparkContext  # noqa: PLC0415

    from hudi_core import spark as hudi_spark  # noqa: PLC0415
    from hudi_core.engine.spark.defaults import quiet_logging_option  # noqa: PLC0415

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    options = f"{quiet_logging_option()} -XX:ArchiveClassesAtExit={partial} {QUIET}"
    spark = hudi_spark.session("local[2]", **{"spark.driver.extraJavaOptions": options})
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "t")
        frame = spark.createDataFrame([(f"k{i}", i, ["sf", "la"][i % 2], 1.0) for i in range(20)], SCHEMA)
        options_by_name = {**WRITE_OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"}
        hudi_spark.write(frame, path, options_by_name)
        hudi_spark.write(frame.limit(5), path, WRITE_OPTIONS)
        spark.read.format("hudi").load(path).where("city = 'sf'").collect()
        hudi_spark.read(spark, path, columns=["id"]).count()
    gateway = SparkContext._gateway
    process = gateway.proc if gateway is not None else None
    spark.stop()
    if process is None:
        raise RuntimeError("the Spark JVM was not started by this process")
    process.stdin.close()  # the gateway JVM exits when its parent's pipe closes, and dumps then
    process.wait(timeout=300)
    if not partial.is_file() or partial.stat().st_size == 0:
        raise RuntimeError(f"the JVM wrote no class archive to {partial}")
    partial.replace(target)


def main(argv: list[str]) -> None:
    target = archive_path(Path(argv[0]))
    if not target.is_file():
        build(target)
    print(target)


if __name__ == "__main__":
    main(sys.argv[1:])
