"""One Spark session (local[2]) for the whole test run; Spark tests carry the `spark` marker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

SPARK_CONF = {
    "spark.driver.maxResultSize": "1m",  # proves writes never collect data rows to the driver
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
}


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark loads only when Spark tests run

    session = hudi_spark.session("local[2]", **SPARK_CONF)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/spark/" in str(item.fspath).replace("\\", "/") and "test_java_runtime" not in str(item.fspath):
            item.add_marker(pytest.mark.spark)
