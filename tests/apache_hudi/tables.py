"""Options of the tables the Apache Hudi tests write: key `id`, ordering `ts`, partition `city`."""

from __future__ import annotations


def writer_options(table_name: str, table_type: str, partitioned: bool = True) -> dict[str, str]:
    """Apache Hudi's datasource options for the tests' tables: key `id`, ordering `ts`, partition `city`."""
    options = {
        "hoodie.table.name": table_name,
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
    }
    if partitioned:
        options["hoodie.datasource.write.partitionpath.field"] = "city"
    return options
