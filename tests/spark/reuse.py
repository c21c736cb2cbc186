"""The table the DataFrame-reuse tests read, locally and through Spark Connect, and what they expect.

Four city partitions with two file groups each: the first commit's fares are 0-49, the second's
50-99, and column statistics are kept, so a filter on city and fare prunes partitions and files.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from hudi_core import HudiTable, write_hudi
from tests.model import table_rows

CITIES = ("nyc", "sf", "la", "chi")
ROWS = 1000
DATA_COLUMNS = ["id", "ts", "city", "fare"]
WHERE = "city = 'nyc' and fare > 50"
FILTERS = [("city", "=", "nyc"), ("fare", ">", 50.0)]
PUSHDOWN = "spark.sql.python.filterPushdown.enabled"
OPTIONS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.operation": "bulk_insert",
    "hoodie.metadata.index.column.stats.enable": "true",
}


def trips(ids: range, lowest_fare: float) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i:04d}" for i in ids],
            "ts": [1] * len(ids),
            "city": [CITIES[i % len(CITIES)] for i in ids],
            "fare": [lowest_fare + i % 50 for i in ids],
        }
    )


def write_table(path: str) -> str:
    write_hudi(path, trips(range(ROWS // 2), 0.0), OPTIONS)
    write_hudi(path, trips(range(ROWS // 2, ROWS), 50.0), OPTIONS)
    return path


def all_rows(path: str) -> list[dict[str, Any]]:
    return table_rows(HudiTable(path).read(), DATA_COLUMNS)


def filtered_rows(path: str) -> list[dict[str, Any]]:
    """The rows `WHERE` (and `FILTERS`) select."""
    return [r for r in all_rows(path) if r["city"] == "nyc" and r["fare"] > 50]


def doubled(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as the derived DataFrame the tests write back has them: fares doubled."""
    return [{**r, "fare": r["fare"] * 2} for r in rows]
