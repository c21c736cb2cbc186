"""Shared fixtures: lightweight ones, and the one Spark session of the test run, started by the
first test that asks for it: on a standalone cluster of two single-core workers on 127.0.0.1
(`tests/spark/standalone_cluster.py`), or on `local[2]` when HUDI_TEST_SPARK_MASTER=local[2]."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.corpus import corpus_tables, extract
from tests.objectstore.conftest import configure_s3_environment
from tests.spark import class_archive


def pytest_configure(config: pytest.Config) -> None:
    configure_s3_environment()  # before any Spark worker starts: they inherit the environment


# Fixtures whose one session-wide instance a test group shares when the suite runs on several
# pytest-xdist workers (`scripts/dev.py test`: `-n 2 --dist loadgroup`).
SHARED_SESSIONS = {
    "apache": ("apache_hudi", "apache_hudi_driver"),
    "spark": ("spark", "spark_cluster"),
    "local_spark": ("local_spark",),
}


def xdist_group(item: pytest.Item) -> str:
    """The worker group of a test: every test using Apache Hudi's driver on one worker, every test
    using the local Spark session on one (a module may name it `spark`), every test using the
    cluster's Spark session on one, each other file whole on one worker (its module fixtures run
    once)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if item.get_closest_marker("apache_hudi") is not None or fixtures & set(SHARED_SESSIONS["apache"]):
        return "apache"
    # Before the cluster's group: a module may name its local session `spark`.
    if fixtures & set(SHARED_SESSIONS["local_spark"]):
        return "local_spark"
    if fixtures & set(SHARED_SESSIONS["spark"]):
        return "spark"
    return item.nodeid.split("::", 1)[0]


def grouped_node_id(item: pytest.Item, group: str) -> None:
    """`<node id>@<group>`, which pytest-xdist's loadgroup scheduler keeps on one worker. xdist 3.8
    renames `item._nodeid`, which pytest 9 no longer reads (node ids live in `_id`): done here."""
    try:
        from _pytest.nodes import coerce_node_id  # type: ignore[attr-defined]  # noqa: PLC0415 - pytest 9
    except ImportError:  # pytest 8: xdist's own renaming works
        return
    item._id = coerce_node_id(f"{item.nodeid}@{group}")  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = getattr(config, "workerinput", None) is not None and bool(config.getvalue("loadgroup"))
    for item in items:
        if not any(
            item.iter_markers(name) for name in ("conformance", "spark", "dagster", "slow", "benchmark", "apache_hudi")
        ):
            item.add_marker(pytest.mark.unit)
        group = xdist_group(item)
        item.add_marker(pytest.mark.xdist_group(group))
        if grouping:
            grouped_node_id(item, group)


@pytest.fixture(scope="session")
def corpus_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session folder the corpus zips are unpacked into (each table once)."""
    return tmp_path_factory.mktemp("corpus")


@pytest.fixture(scope="session")
def corpus_table(corpus_cache: Path) -> Callable[[str], Path]:
    """Returns the unpacked base path of a corpus table by manifest name (shared, read-only)."""
    by_name = {t.name: t for t in corpus_tables()}

    def get(name: str) -> Path:
        return extract(by_name[name], corpus_cache)

    return get


@pytest.fixture
def corpus_copy(corpus_table: Callable[[str], Path], tmp_path: Path) -> Callable[[str], Path]:
    """Returns a private, writable copy of a corpus table."""

    def get(name: str) -> Path:
        source = corpus_table(name)
        target = tmp_path / source.name
        shutil.copytree(source, target)
        return target

    return get


SPARK_CONF = {
    "spark.driver.maxResultSize": "1m",  # proves writes never collect data rows to the driver
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    **class_archive.session_conf(),
}


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object | None]:
    """The standalone cluster the Spark session runs on (None on `local[2]`)."""
    if os.environ.get("HUDI_TEST_SPARK_MASTER", "cluster") != "cluster":
        yield None
        return
    from tests.spark.standalone_cluster import standalone_cluster  # noqa: PLC0415 - imports PySpark

    with standalone_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spark(spark_cluster: object | None, local_sessions: list[object]) -> Iterator[object]:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark loads only when Spark tests run
    from tests.spark.standalone_cluster import StandaloneCluster  # noqa: PLC0415

    for earlier in local_sessions:  # a process holds one SparkContext: the local one gives way
        earlier.stop()  # type: ignore[attr-defined]
    local_sessions.clear()
    if isinstance(spark_cluster, StandaloneCluster):
        session = hudi_spark.session(spark_cluster.master_url, **SPARK_CONF, **spark_cluster.session_conf())
    else:
        session = hudi_spark.session(os.environ.get("HUDI_TEST_SPARK_MASTER", "local[2]"), **SPARK_CONF)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def local_sessions() -> Iterator[list[object]]:
    """The local Spark session `local_spark` started in this worker process, if any."""
    started: list[object] = []
    yield started
    for session in started:
        session.stop()  # type: ignore[attr-defined]


@pytest.fixture
def local_spark(local_sessions: list[object]) -> object:
    """Spark for tests that need a session but not Spark's distribution (Dagster's Spark assets):
    the session this process already has (the cluster's, when the Spark tests ran on this worker
    first), else one on `local[2]`, which gives way if the cluster's session starts here later."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 - PySpark loads only when Spark tests run

    from hudi_core import spark as hudi_spark  # noqa: PLC0415

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    session = hudi_spark.session("local[2]", **SPARK_CONF)
    session.sparkContext.setLogLevel("ERROR")
    local_sessions.append(session)
    return session
