"""Fixtures for the catalog-sync tests: real Hive metastores on loopback (see ``hive_metastore.py``).

``scripts/dev.py test`` installs the metastore and names it in ``HUDI_HIVE_METASTORE_*`` variables.
Without them the tests are skipped, with the reason, unless the run requires them (under CI, or
when dev.py installed it): then they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import hive_metastore_env
from tests.catalog.hive_metastore import HiveMetastoreServer


def hive_metastore_home() -> Path:
    """The metastore's install directory; skips or fails the test without one."""
    found = hive_metastore_env.from_variables(os.environ)
    if isinstance(found, str):
        if hive_metastore_env.is_required(os.environ):
            pytest.fail(f"Hive metastore required but missing: {found}", pytrace=False)
        pytest.skip(f"Hive metastore unavailable: {found}")
    return found


@pytest.fixture(scope="session")
def hive_metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HiveMetastoreServer]:
    """The session's metastore (one per xdist worker), started on first use. Tests share it: each
    uses databases of its own and never stops it (``restartable_hive_metastore`` is for that)."""
    home = hive_metastore_home()
    with HiveMetastoreServer(home, tmp_path_factory.mktemp("hive-metastore")) as server:
        yield server


@pytest.fixture
def restartable_hive_metastore(tmp_path: Path) -> Iterator[HiveMetastoreServer]:
    """A started metastore of the test's own, which it may stop and start again (same port and
    database); stopped after the test."""
    home = hive_metastore_home()
    with HiveMetastoreServer(home, tmp_path / "hive-metastore") as server:
        yield server
