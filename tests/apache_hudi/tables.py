"""Options of the tables the Apache Hudi tests write: key `id`, ordering `ts`, partition `city`."""

from __future__ import annotations

import os
from typing import Any

import pytest


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


# `HUDI_APACHE_MATRIX=full` runs every case; CI runs the cases that fit its 6-minute budget and
# leaves the others (each covered in kind by a CI case) to the full run.
FULL_RUN = os.environ.get("HUDI_APACHE_MATRIX") == "full"


def full_run_only(*values: Any, id: str) -> Any:
    """A parameter case that only the full run selects."""
    return pytest.param(
        *values, id=id, marks=pytest.mark.skipif(not FULL_RUN, reason="full run only (HUDI_APACHE_MATRIX=full)")
    )
