"""Apache Hudi's Spark driver as a request server: runs in the reference virtualenv, not in ours.

Started by ``scripts/apache_hudi.py`` with the reference environment's interpreter
(PySpark 3.5 and nothing else: no pyarrow, no pandas, no hudi_core)::

    python apache_hudi_driver.py --jar HUDI_BUNDLE.jar --workdir DIR [--driver-memory 3g]

It starts one Spark session (``local[2]``, the Hudi quick-start settings), then answers one JSON
request per stdin line with one JSON answer per stdout line, in order:

    {"op": "write", "path": P, "input": PARQUET, "options": {...}, "mode": "append"}
    {"op": "read", "path": P, "options": {...}, "output": DIR}   -> {"output": DIR}
    {"op": "scan", "path": P, "options": {...}}                  (every row into the no-op sink)
    {"op": "concurrent_writes", "writes": [WRITE, ...], "start_each_after": GLOB}
                                     (one thread each; the next starts once a new GLOB file appears)
    {"op": "sql", "text": "CALL ...", "output": DIR}             -> {"output": DIR or null}
    {"op": "write_stream", "path": P, "input": DIR, "options": {...}, "checkpoint": DIR}
                                     (Hudi's streaming sink: one micro-batch per Parquet file of DIR,
                                      all available files, then the query stops)
    {"op": "stop"}

Every answer holds ``ok`` and ``seconds``; a failed request answers ``ok: false`` with the Java
exception's class, message and causes. Results are Parquet folders written by Spark. The first
line, before any request, announces the session: ``{"ready": true, "seconds": ..., ...}``.
Everything else the JVM or Python prints goes to stderr, which the caller keeps in a file.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

LOG4J2_PROPERTIES = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n
# Known noise of a local session: no Hadoop native library, no metrics configuration.
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
"""


def session_conf(jar: str, workdir: Path, driver_memory: str) -> dict[str, str]:
    """Hudi's Spark quick-start settings for a small, quiet local[2] session on loopback."""
    log4j = workdir / "log4j2.properties"
    log4j.write_text(LOG4J2_PROPERTIES)
    return {
        "spark.jars": jar,
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        "spark.kryo.registrator": "org.apache.spark.HoodieSparkKryoRegistrar",
        "spark.sql.extensions": "org.apache.spark.sql.hudi.HoodieSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.hudi.catalog.HoodieCatalog",
        "spark.sql.catalogImplementation": "in-memory",
        "spark.sql.warehouse.dir": str(workdir / "warehouse"),
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.memory": driver_memory,
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{log4j}",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.sql.session.timeZone": "UTC",
        # Results carry timestamps as Parquet INT64 microseconds, which pyarrow reads as is.
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    }


def java_error(exc: BaseException) -> dict[str, Any]:
    """The Java exception behind a PySpark error: class, message and the chain of causes."""
    throwable = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    if throwable is None:
        return {"class": type(exc).__name__, "message": str(exc), "causes": [], "python": traceback.format_exc()}
    chain: list[str] = []
    cause = throwable.getCause()
    while cause is not None and len(chain) < 10:
        chain.append(f"{cause.getClass().getName()}: {cause.getMessage()}")
        cause = cause.getCause()
    return {"class": throwable.getClass().getName(), "message": throwable.getMessage(), "causes": chain}


class Driver:
    def __init__(self, spark: Any) -> None:
        self.spark = spark

    def write(self, request: dict[str, Any]) -> dict[str, Any]:
        frame = self.spark.read.parquet(request["input"])
        writer = frame.write.format("hudi").options(**request.get("options", {}))
        writer.mode(request.get("mode", "append")).save(request["path"])
        return {}

    def write_stream(self, request: dict[str, Any]) -> dict[str, Any]:
        schema = self.spark.read.parquet(request["input"]).schema
        stream = self.spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(request["input"])
        writer = stream.writeStream.format("hudi").options(**request.get("options", {}))
        writer = writer.option("checkpointLocation", request["checkpoint"]).trigger(availableNow=True)
        query = writer.start(request["path"])
        query.awaitTermination()
        return {"batches": [p["batchId"] for p in query.recentProgress]}

    def concurrent_writes(self, request: dict[str, Any]) -> dict[str, Any]:
        """Concurrent writers in this one Spark session, one thread each (Spark runs their jobs side
        by side). Each next writer starts once a file matching `start_each_after` appears that was not
        there when the previous one started (its instant is requested), or after a minute."""
        failures: list[BaseException] = []

        def run(write: dict[str, Any]) -> None:
            try:
                self.write(write)
            except BaseException as exc:  # re-raised below, on the serving thread
                failures.append(exc)

        pattern = request.get("start_each_after")
        threads: list[threading.Thread] = []
        before: set[str] = set()
        for write in request["writes"]:
            if threads and pattern:
                deadline = time.monotonic() + 60
                while set(glob.glob(pattern)) == before and threads[-1].is_alive() and time.monotonic() < deadline:
                    time.sleep(0.02)
            before = set(glob.glob(pattern)) if pattern else set()
            threads.append(threading.Thread(target=run, args=(write,)))
            threads[-1].start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        return {}

    def scan(self, request: dict[str, Any]) -> dict[str, Any]:
        frame = self.spark.read.format("hudi").options(**request.get("options", {})).load(request["path"])
        frame.write.format("noop").mode("overwrite").save()
        return {}

    def read(self, request: dict[str, Any]) -> dict[str, Any]:
        frame = self.spark.read.format("hudi").options(**request.get("options", {})).load(request["path"])
        return self._result(frame, request["output"])

    def sql(self, request: dict[str, Any]) -> dict[str, Any]:
        frame = self.spark.sql(request["text"])  # commands and CALL run here, eagerly
        if not frame.columns:
            return {"output": None}
        return self._result(frame, request["output"])

    @staticmethod
    def _result(frame: Any, output: str) -> dict[str, Any]:
        frame.coalesce(1).write.mode("overwrite").parquet(output)
        return {"output": output}


def serve(driver: Driver, requests: TextIO, answers: TextIO) -> None:
    handlers = {
        "write": driver.write,
        "concurrent_writes": driver.concurrent_writes,
        "write_stream": driver.write_stream,
        "read": driver.read,
        "scan": driver.scan,
        "sql": driver.sql,
    }
    for line in requests:
        if not line.strip():
            continue
        started = time.monotonic()
        request = json.loads(line)
        op = request.get("op")
        if op == "stop":
            answer: dict[str, Any] = {"ok": True}
        elif op not in handlers:
            answer = {"ok": False, "error": {"class": "ValueError", "message": f"unknown op {op!r}", "causes": []}}
        else:
            try:
                answer = {"ok": True, **handlers[op](request)}
            except Exception as exc:  # every failure is an answer; the driver keeps serving
                answer = {"ok": False, "error": java_error(exc)}
                print(f"request {op} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        answer["seconds"] = round(time.monotonic() - started, 3)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
        if op == "stop":
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", required=True, help="the Hudi Spark bundle jar")
    parser.add_argument("--workdir", required=True, type=Path, help="a private folder for Spark's files")
    parser.add_argument("--driver-memory", default="1g", help="the Spark driver's heap")
    args = parser.parse_args()

    # The protocol owns the real stdout; whatever else writes to fd 1 (the JVM's System.out
    # included: it inherits the descriptor) lands in stderr.
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only, and no warning about the host name
    os.environ["SPARK_LOCAL_DIRS"] = str(args.workdir / "spark-local")  # shuffle and block files
    for inherited in ("SPARK_HOME", "PYSPARK_SUBMIT_ARGS"):  # they would point at another Spark
        os.environ.pop(inherited, None)
    started = time.monotonic()
    from pyspark.sql import SparkSession  # noqa: PLC0415 - only after stdout is redirected

    builder = SparkSession.builder.master("local[2]").appName("apache-hudi-reference")
    for key, value in session_conf(args.jar, args.workdir, args.driver_memory).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    ready = {"ready": True, "seconds": round(time.monotonic() - started, 3), "spark": spark.version}
    answers.write(json.dumps(ready) + "\n")
    answers.flush()
    try:
        serve(Driver(spark), sys.stdin, answers)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
