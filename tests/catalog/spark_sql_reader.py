"""Reads tables synced to a Hive metastore through Spark SQL, in a process of its own (a Hive catalog
needs a session of its own, and a process has one SparkContext).

    python -m tests.catalog.spark_sql_reader thrift://127.0.0.1:PORT WAREHOUSE WRITE TABLE [TABLE ...]

WRITE is a JSON object {"path": ..., "rows": [...], "options": {...}}: rows the Spark engine upserts
into the table at `path` first, with Hudi options that sync it (or {} for no write). Prints one
JSON object: per table name, the rows `hudi_core.spark.table` reads (data columns,
sorted by id), and under "plain_sql" what `spark.sql("SELECT * FROM <first table>")` does without
them: the error class Spark raises.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from hudi_core import spark as hudi_spark


def main(uri: str, warehouse: str, write: dict[str, Any], names: list[str]) -> dict[str, Any]:
    spark = hudi_spark.session(
        "local[1]",
        **{
            "spark.sql.catalogImplementation": "hive",
            "spark.hadoop.hive.metastore.uris": uri,
            "spark.sql.warehouse.dir": warehouse,
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={warehouse}",
        },
    )
    try:
        if write:
            hudi_spark.write(spark.createDataFrame(write["rows"]), write["path"], write["options"])
        found: dict[str, Any] = {}
        for name in names:
            frame = hudi_spark.table(spark, name).select("id", "fare", "dt").orderBy("id")
            found[name] = [row.asDict() for row in frame.collect()]
        try:
            spark.sql(f"SELECT * FROM {names[0]}").collect()
            found["plain_sql"] = "ok"
        except Exception as e:  # what Spark says when a Python data source gets no path
            error_class = e.getErrorClass() if hasattr(e, "getErrorClass") else None
            found["plain_sql"] = error_class or type(e).__name__
        return found
    finally:
        spark.stop()


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4:])))
