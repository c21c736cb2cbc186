"""Spark settings every session we start gets, unless the caller overrides them."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

DEFAULT_CONF: dict[str, str] = {
    # Small local jobs: 200 shuffle partitions would mean 200 Python tasks per stage.
    "spark.driver.memory": "2g",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.showConsoleProgress": "false",
}

# Warnings and above, without the start-up lines Spark's default profile prints (which profile it
# uses, how to change the level) or the native-Hadoop notice every local session gives.
LOG4J2_PROPERTIES = """\
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
"""
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def log4j2_file() -> Path:
    """The logging profile above, written once per content into the temporary directory."""
    digest = hashlib.sha256(LOG4J2_PROPERTIES.encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"hudi-dagster-log4j2-{digest}.properties"
    if not path.exists():
        path.write_text(LOG4J2_PROPERTIES)
    return path


def quiet_start(master: str, conf: Mapping[str, str]) -> dict[str, str]:
    """Settings that keep a session's start-up quiet, unless the caller chose them: the logging
    profile above, and for local masters the loopback address (Spark warns when the host name
    resolves to loopback and picks another interface)."""
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if DRIVER_JAVA_OPTIONS in conf:
        return {}
    return {DRIVER_JAVA_OPTIONS: quiet_logging_option()}


def quiet_logging_option() -> str:
    """The JVM option that selects the logging profile above (for callers that set their own
    driver options and keep the quiet start)."""
    return f"-Dlog4j2.configurationFile=file:{log4j2_file()}"
