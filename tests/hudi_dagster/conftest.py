"""Dagster tests carry the `dagster` marker; tables go to tmp_path, Dagster runs are real."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/hudi_dagster/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.dagster)
