"""A Spark Connect client process: upserts a batch into a table and prints the table's rows as JSON.

`python -m tests.spark.connect_client URL TABLE_PATH` — run by `test_spark_connect.py` in its own
process, because PySpark allows one kind of session (local or Connect) per process.
"""

from __future__ import annotations

import json
import sys

from hudi_core import spark as hudi_spark

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


def main(url: str, path: str) -> None:
    spark = hudi_spark.session(remote=url)
    try:
        batch = spark.createDataFrame(UPDATES, "id string, ts long, city string, fare double")
        result = hudi_spark.write(batch, path, OPTIONS)
        rows = [row.asDict() for row in spark.read.format("hudi").load(path).select(*COLUMNS).collect()]
        print(json.dumps({"inserts": result.inserts, "updates": result.updates, "rows": rows}))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
