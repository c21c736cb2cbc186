"""Spark tests carry the `spark` marker (the session fixture is in tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.spark.reuse import write_table


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/spark/" in str(item.fspath).replace("\\", "/") and "test_java_runtime" not in str(item.fspath):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="module")
def reuse_table(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The partitioned table of `tests.spark.reuse`, written once per module."""
    return write_table(str(tmp_path_factory.mktemp("reuse") / "trips"))
