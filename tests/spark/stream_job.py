"""A streaming write as its own Spark application, for tests that kill its driver.

    python -m tests.spark.stream_job MASTER SOURCE_DIR TABLE CHECKPOINT OPTIONS_JSON [SPARK_CONF_JSON]

Streams the Parquet files of SOURCE_DIR (one file per micro-batch, all available files, then
stops) into TABLE with `hudi_core.spark.write_stream`. Tests set `HUDI_CRASH_AT` to kill it.
"""

from __future__ import annotations

import json
import sys

from hudi_core import spark as hudi_spark


def main(argv: list[str]) -> None:
    master, source, table, checkpoint, options = argv[:5]
    conf = json.loads(argv[5]) if len(argv) > 5 else {}
    spark = hudi_spark.session(master, **{"spark.sql.shuffle.partitions": "2", **conf})
    spark.sparkContext.setLogLevel("ERROR")
    schema = spark.read.parquet(source).schema
    stream = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(source)
    query = hudi_spark.write_stream(stream, table, json.loads(options), checkpoint, trigger={"availableNow": True})
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
