"""A Spark application whose executors cannot import hudi_core, for the test of its error.

    python -m tests.spark.no_package_job TABLE FAKE_PACKAGE_DIR

Writes once with executors that find a `hudi_core` that fails to import (FAKE_PACKAGE_DIR first on
their PYTHONPATH, as on a cluster where the package is missing), prints the error's type and message
as JSON, then writes again with a session whose executors have it.
"""

from __future__ import annotations

import json
import sys

from hudi_core import spark as hudi_spark
from tests.spark import class_archive

OPTIONS = {
    "hoodie.table.name": "no_package",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.operation": "upsert",
}


def main(table: str, fake_packages: str) -> None:
    outcome: dict[str, str] = {}
    conf = {"spark.executorEnv.PYTHONPATH": fake_packages, **class_archive.session_conf()}
    spark = hudi_spark.session("local[1]", **conf)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        hudi_spark.write(spark.createDataFrame([(3, 2)], "id long, ts long"), table, OPTIONS)
    except Exception as error:  # reported to the test
        outcome = {"type": type(error).__name__, "message": str(error)}
    spark.stop()
    print(json.dumps(outcome), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
