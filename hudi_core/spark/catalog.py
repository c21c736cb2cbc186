"""Hudi tables by their catalog name: `table(spark, "db.rides")`.

A table synced to a Hive metastore (or Glue) with `sync_as_datasource` names `hudi` as its provider,
and Spark 4 resolves that provider to the registered Python data source. But Spark hands a Python
data source only the options of the query, not the catalog table's location, so
`spark.sql("SELECT * FROM db.rides")` fails with "needs a path". `table` reads the location and
the view (read-optimized or snapshot) from the catalog and reads the table by name with them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession

from hudi_core.config.read import HudiReadConfig
from hudi_core.config.sync import QUERY_AS_RO_TABLE, HudiMetaSyncConfig
from hudi_core.errors import HudiError
from hudi_core.spark.datasource import register

_NAME = re.compile(r"(?:(?P<database>[A-Za-z0-9_]+)\.)?(?P<table>[A-Za-z0-9_]+)")
_READ_OPTIMIZED = f"{QUERY_AS_RO_TABLE}=true"


@dataclass(frozen=True)
class CatalogEntry:
    """What the session's catalog says of a table: its provider, location and storage properties."""

    provider: str
    location: str
    storage_properties: str


def catalog_entry(spark: SparkSession, name: str) -> CatalogEntry:
    """The catalog's entry of `name` (`table` or `database.table`); raises HudiError when the name
    is malformed or the catalog has no such table."""
    matched = _NAME.fullmatch(name.strip())
    if matched is None:
        raise HudiError(f"{name!r} is not a table name of the form table or database.table")
    database, table = matched["database"], matched["table"]
    scope = f" IN {database}" if database else ""
    rows = spark.sql(f"SHOW TABLE EXTENDED{scope} LIKE '{table}'").collect()
    found = [row for row in rows if row["tableName"].lower() == table.lower()]
    if not found:
        raise HudiError(f"the catalog has no table {name}")
    fields: dict[str, str] = {}
    for line in str(found[0]["information"]).splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            fields[key.strip()] = value.strip()
    return CatalogEntry(fields.get("Provider", ""), fields.get("Location", ""), fields.get("Storage Properties", ""))


def table(spark: SparkSession, name: str, options: Mapping[str, str] | None = None) -> DataFrame:
    """The Hudi table the catalog names `name`, as a DataFrame with the catalog's schema.

    A `_ro` table (serde property `hoodie.query.as.ro.table=true`) is read read-optimized, every
    other one as a snapshot; `options` are Hudi read options and win over both.

    Raises:
        HudiError: no such table, or its provider is not `hudi` (synced with
            `hoodie.datasource.hive_sync.sync_as_datasource=false`, or not a Hudi table).
    """
    register(spark)
    entry = catalog_entry(spark, name)
    if entry.provider.lower() != "hudi":
        raise HudiError(
            f"{name} is not registered as a Hudi data source table (provider {entry.provider or 'none'}); "
            f"sync it with {HudiMetaSyncConfig.SYNC_AS_DATASOURCE.key}=true"
        )
    chosen: dict[str, str] = {"path": entry.location}
    if _READ_OPTIMIZED in entry.storage_properties:
        chosen[HudiReadConfig.QUERY_TYPE.key] = "read_optimized"
    chosen.update(options or {})
    return spark.read.options(**chosen).table(name)
