"""Apache Hudi's own Hive sync of an existing Hudi table, as ``CALL hive_sync(...)`` runs it.

The golden reference for what a Hudi table looks like in a Hive metastore (HMS): this script runs
Apache Hudi's ``hive_sync`` procedure (``HiveSyncProcedure``, which builds its properties and runs
``org.apache.hudi.hive.HiveSyncTool`` in ``hms`` mode) on the table at a base path, against the
metastore at a Thrift URI.

Run it with the Apache Hudi reference environment's interpreter (PySpark 3.5 and nothing else), not
with the project's::

    ~/.cache/hudi-dagster/apache-hudi/pyspark-3.5.9/bin/python tests/catalog/reference_hive_sync.py \\
        --jar ~/.cache/hudi-dagster/apache-hudi/jars/hudi-spark3.5-bundle_2.12-1.2.0.jar \\
        --base-path /data/trips --metastore-uri thrift://127.0.0.1:9083 \\
        --database sales --table trips --partition-fields dt \\
        --partition-extractor-class org.apache.hudi.hive.MultiPartKeysValueExtractor \\
        --option skip_ro_suffix=false --option sync_as_datasource=true --option support_timestamp=true

or with one JSON object as the only argument (the same names, with underscores; ``options`` is an
object; ``jar`` may come from the ``HUDI_BUNDLE_JAR`` variable)::

    python reference_hive_sync.py '{"jar": "...", "base_path": "/data/trips", "metastore_uri": "thrift://...",
        "database": "sales", "table": "trips", "partition_fields": ["dt"],
        "partition_extractor_class": "org.apache.hudi.hive.MultiPartKeysValueExtractor",
        "options": {"support_timestamp": "true"}}'

It exits 0 after a successful sync (printing ``hive sync OK: ...`` on stdout) and 1 with the Java
exception's class, message and causes on stderr otherwise (2 for bad arguments).

How: ``hive_sync`` resolves its ``table`` argument through Spark's catalog and syncs into the
catalog table's database, so the script registers the table in Spark's in-memory catalog first
(``CREATE DATABASE <database>``, ``CREATE TABLE <database>.<table> USING hudi LOCATION '<base path>'``:
nothing reaches the metastore, and the table's ``hoodie.properties`` stays as it is), then runs
``CALL hive_sync(table => '<database>.<table>', metastore_uri => ..., mode => 'hms',
partition_fields => ..., partition_extractor_class => ...)`` (empty arguments left out: Hudi then
takes the partition fields from the table and infers the extractor). Options that ``hive_sync`` has
no argument for (``skip_ro_suffix``, ``sync_as_datasource``, ``support_timestamp``, ...) are session
settings (``SET hoodie.datasource.hive_sync.<name>=<value>``), which the procedure reads; so is
``hoodie.datasource.hive_sync.table``: without it the procedure names the metastore table after
``hoodie.table.name`` in ``hoodie.properties``, not after the catalog table. Without
``support_timestamp`` the procedure syncs timestamps as Hive ``timestamp`` (it defaults that option
to true; with ``support_timestamp=false`` they become ``bigint``).

A Copy-on-Write table registers ``<table>``. A Merge-on-Read table registers ``<table>_ro``
(read-optimized), ``<table>_rt`` (snapshot) and ``<table>`` (the snapshot again:
``hoodie.meta.sync.sync_snapshot_with_table_name`` defaults to true); with ``skip_ro_suffix=true``,
``<table>`` (read-optimized) and ``<table>_rt``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a file by the reference interpreter
from scripts.apache_hudi_driver import session_conf

SYNC_PREFIX = "hoodie.datasource.hive_sync."


class UsageError(Exception):
    """The arguments do not describe a sync."""


@dataclass(frozen=True)
class SyncRequest:
    """One sync: the table at `base_path` into `database`.`table` of the metastore at `metastore_uri`."""

    jar: str
    base_path: str
    metastore_uri: str
    database: str
    table: str
    partition_fields: tuple[str, ...] = ()
    partition_extractor_class: str = ""
    options: dict[str, str] = field(default_factory=dict)

    def session_settings(self) -> dict[str, str]:
        """The `hoodie.datasource.hive_sync.*` settings the procedure reads from the session."""
        settings = {SYNC_PREFIX + "table": self.table}
        for name, value in self.options.items():
            settings[name if name.startswith("hoodie.") else SYNC_PREFIX + name] = value
        return settings

    def call_statement(self) -> str:
        """The `CALL hive_sync(...)` statement."""
        arguments = {
            "table": f"{self.database}.{self.table}",  # Hudi splits this name on "." (no quoting)
            "metastore_uri": self.metastore_uri,
            "mode": "hms",
            "partition_fields": ",".join(self.partition_fields),
            "partition_extractor_class": self.partition_extractor_class,
        }
        given = ", ".join(f"{name} => {sql_string(value)}" for name, value in arguments.items() if value)
        return f"CALL hive_sync({given})"


def sql_string(value: str) -> str:
    """A Spark SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def sql_identifier(name: str) -> str:
    """A Spark SQL identifier, back-quoted."""
    return "`" + name.replace("`", "``") + "`"


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`name=value` pairs as a dict."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option needs name=value, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


def fields_of(value: Any) -> tuple[str, ...]:
    """Partition fields given as a list or as a comma-separated string."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(item).strip() for item in items if str(item).strip())


def request_from_json(text: str) -> SyncRequest:
    """A request from one JSON object (the long option names, with underscores)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"the argument is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError("the JSON argument must be an object")
    known = {
        "jar",
        "base_path",
        "metastore_uri",
        "database",
        "table",
        "partition_fields",
        "partition_extractor_class",
        "options",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise UsageError(f"unknown keys {unknown}; known: {sorted(known)}")
    missing = [name for name in ("base_path", "metastore_uri", "database", "table") if not data.get(name)]
    if missing:
        raise UsageError(f"missing {missing}")
    options = data.get("options") or {}
    if not isinstance(options, Mapping):
        raise UsageError("options must be an object of name: value")
    return SyncRequest(
        jar=str(data.get("jar") or os.environ.get("HUDI_BUNDLE_JAR", "")),
        base_path=str(data["base_path"]),
        metastore_uri=str(data["metastore_uri"]),
        database=str(data["database"]),
        table=str(data["table"]),
        partition_fields=fields_of(data.get("partition_fields")),
        partition_extractor_class=str(data.get("partition_extractor_class") or ""),
        options={str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()},
    )


def request_from_argv(argv: Sequence[str]) -> SyncRequest:
    """A request from the command line: flags, or one JSON object."""
    if len(argv) == 1 and argv[0].lstrip().startswith("{"):
        request = request_from_json(argv[0])
    else:
        parser = argparse.ArgumentParser(description="Apache Hudi's CALL hive_sync for an existing table.")
        parser.add_argument(
            "--jar",
            default=os.environ.get("HUDI_BUNDLE_JAR", ""),
            help="the Hudi Spark bundle jar (default: $HUDI_BUNDLE_JAR)",
        )
        parser.add_argument("--base-path", required=True, help="the Hudi table's base path")
        parser.add_argument("--metastore-uri", required=True, help="thrift://host:port")
        parser.add_argument("--database", required=True)
        parser.add_argument("--table", required=True, help="the table name in the metastore")
        parser.add_argument("--partition-fields", default="", help="comma-separated (default: Hudi's, from the table)")
        parser.add_argument("--partition-extractor-class", default="", help="default: what Hudi infers for the table")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a hive_sync option: skip_ro_suffix=true, sync_as_datasource=false, "
            "support_timestamp=true, or any full hoodie.* key",
        )
        args = parser.parse_args(argv)
        request = SyncRequest(
            jar=args.jar,
            base_path=args.base_path,
            metastore_uri=args.metastore_uri,
            database=args.database,
            table=args.table,
            partition_fields=fields_of(args.partition_fields),
            partition_extractor_class=args.partition_extractor_class,
            options=parse_options(args.option),
        )
    if not request.jar or not Path(request.jar).is_file():
        raise UsageError(f"no Hudi bundle jar at {request.jar!r} (--jar or $HUDI_BUNDLE_JAR)")
    if (
        not (Path(request.base_path.removeprefix("file:")) / ".hoodie" / "hoodie.properties").is_file()
        and "://" not in request.base_path
    ):
        raise UsageError(f"no Hudi table at {request.base_path} (no .hoodie/hoodie.properties)")
    return request


def start_session(jar: str, workdir: Path) -> SparkSession:
    """A small local Spark session with Hudi's SQL extension and catalog, and Spark's in-memory
    catalog: the reference driver's settings (`scripts/apache_hudi_driver.py`) on one core."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "hostname resolves to a loopback address" warning
    conf = session_conf(jar, workdir, "1g")
    # allowAttachSelf: Hudi's object sizing (JOL) attaches to its own JVM instead of printing
    # "# WARNING: Unable to attach ..." lines on stdout.
    conf["spark.driver.extraJavaOptions"] += f" -Dderby.system.home={workdir} -Djdk.attach.allowAttachSelf=true"
    conf.update({"spark.sql.shuffle.partitions": "1", "spark.default.parallelism": "1"})
    builder = SparkSession.builder.master("local[1]").appName("reference-hive-sync")
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def java_error(exc: BaseException) -> str:
    """The Java exception behind a PySpark error: class, message and causes, one a line."""
    throwable = getattr(exc, "java_exception", None)
    if throwable is None:
        return f"{type(exc).__name__}: {exc}"
    lines = [f"{throwable.getClass().getName()}: {throwable.getMessage()}"]
    cause = throwable.getCause()
    while cause is not None and len(lines) < 12:
        lines.append(f"  caused by {cause.getClass().getName()}: {cause.getMessage()}")
        cause = cause.getCause()
    return "\n".join(lines)


def run(request: SyncRequest) -> str:
    """Runs the sync; returns the procedure's result. Raises what Spark or Hudi raised."""
    with tempfile.TemporaryDirectory(prefix="reference-hive-sync-") as tmp:
        spark = start_session(request.jar, Path(tmp))
        try:
            for key, value in request.session_settings().items():
                spark.conf.set(key, value)
            database = sql_identifier(request.database)
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
            spark.sql(
                f"CREATE TABLE {database}.{sql_identifier(request.table)} USING hudi "
                f"LOCATION {sql_string(request.base_path)}"
            )
            rows = spark.sql(request.call_statement()).collect()
            return "; ".join(str(row[0]) for row in rows)
        finally:
            spark.stop()


def main(argv: Sequence[str]) -> int:
    try:
        request = request_from_argv(argv)
    except UsageError as exc:
        print(f"reference_hive_sync: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        result = run(request)
    except Exception as exc:  # every failure becomes exit 1 with its Java cause chain
        print(
            f"hive sync FAILED for {request.base_path} -> {request.database}.{request.table} "
            f"at {request.metastore_uri}:\n{java_error(exc)}",
            file=sys.stderr,
        )
        return 1
    print(
        f"hive sync OK: {request.base_path} -> {request.database}.{request.table} at {request.metastore_uri} "
        f"({result}; {time.monotonic() - started:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
