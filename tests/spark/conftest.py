"""Spark tests carry the `spark` marker (the session fixture is in tests/conftest.py)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/spark/" in str(item.fspath).replace("\\", "/") and "test_java_runtime" not in str(item.fspath):
            item.add_marker(pytest.mark.spark)
