"""Spark Connect client processes, run by `test_spark_connect.py`; each prints its findings as JSON.

`python -m tests.spark.connect_client upsert URL TABLE_PATH` upserts a batch and prints the rows;
`python -m tests.spark.connect_client reuse URL TABLE_PATH TARGET_PATH` runs filtered and unfiltered
queries on one DataFrame, writes a DataFrame derived from it to TARGET_PATH and reads with
`hudi_core.spark.read(filters=...)`. Each runs in its own process because PySpark allows one kind
of session (local or Connect) per process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from hudi_core import spark as hudi_spark
from tests.spark.reuse import DATA_COLUMNS, FILTERS, PUSHDOWN, WHERE
from tests.spark.reuse import OPTIONS as REUSE_OPTIONS

OPTIONS = {
    "hoodie.table.name": "connect_trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.operation": "upsert",
}
COLUMNS = ["id", "ts", "city", "fare"]
UPDATES = [("k1", 2, "nyc", 100.0), ("k2", 2, "sf", 200.0), ("k99", 2, "sf", 9.0)]


def upsert(spark: Any, path: str) -> dict[str, Any]:
    batch = spark.createDataFrame(UPDATES, "id string, ts long, city string, fare double")
    result = hudi_spark.write(batch, path, OPTIONS)
    rows = [row.asDict() for row in spark.read.format("hudi").load(path).select(*COLUMNS).collect()]
    return {"inserts": result.inserts, "updates": result.updates, "rows": rows}


def reuse(spark: Any, path: str, target: str) -> dict[str, Any]:
    from pyspark.sql import functions as sf  # noqa: PLC0415 - after the Connect session exists

    spark.conf.set(PUSHDOWN, "true")  # the server pushes filters to the source, as it may
    df = spark.read.format("hudi").load(path)
    counts = [df.count(), df.where(WHERE).count(), df.count()]
    df.where(WHERE).collect()
    collected = len(df.collect())
    derived = df.select(*DATA_COLUMNS).withColumn("fare", sf.col("fare") * 2)
    written = hudi_spark.write(derived, target, {**REUSE_OPTIONS, "hoodie.table.name": "doubled"}).inserts
    pruned = hudi_spark.read(spark, path, filters=FILTERS).select(*DATA_COLUMNS).collect()
    return {"counts": counts, "collected": collected, "written": written, "pruned": [r.asDict() for r in pruned]}


def main(command: str, url: str, *paths: str) -> None:
    spark = hudi_spark.session(remote=url)
    try:
        reply = upsert(spark, *paths) if command == "upsert" else reuse(spark, *paths)
        print(json.dumps(reply))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
