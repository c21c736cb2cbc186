"""Spark settings every session we start gets, unless the caller overrides them."""

from __future__ import annotations

DEFAULT_CONF: dict[str, str] = {
    # Small local jobs: 200 shuffle partitions would mean 200 Python tasks per stage.
    "spark.driver.memory": "2g",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.showConsoleProgress": "false",
}
