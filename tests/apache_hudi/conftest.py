"""The Apache Hudi drivers of a test session: one per Hudi version, started on first use.

``scripts/dev.py test`` installs the reference environment and names it in ``HUDI_REFERENCE_*``
variables. Without them the tests are skipped, with the reason, unless the run requires them
(under CI, or when dev.py installed them): then they fail.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from scripts import reference_env
from scripts.apache_hudi import ApacheHudi

DEFAULT_VERSION = "1.2.0"

_drivers: dict[str, ApacheHudi] = {}  # every driver of the session, for the closing summary


def _reference_jars() -> tuple[Path, dict[str, Path]]:
    """The reference interpreter and the bundle jar of each Hudi version; skips or fails without them."""
    found = reference_env.from_variables(os.environ)
    if isinstance(found, str):
        if reference_env.is_required(os.environ):
            pytest.fail(f"Apache Hudi reference required but missing: {found}", pytrace=False)
        pytest.skip(f"Apache Hudi reference unavailable: {found}")
    jars = {reference_env.bundle_version(jar) or jar.name: jar for jar in found.jars}
    return found.python, jars


@pytest.fixture(scope="session")
def apache_hudi_driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., ApacheHudi]]:
    """Returns the session's driver of a Hudi version (its process starts on its first request)."""
    python, jars = _reference_jars()
    workdir = tmp_path_factory.mktemp("apache-hudi")

    def get(version: str) -> ApacheHudi:
        if version not in jars:
            pytest.fail(f"no Hudi {version} bundle in the reference environment (it has {sorted(jars)})")
        if version not in _drivers:
            _drivers[version] = ApacheHudi(python, jars[version], version, workdir / version)
        return _drivers[version]

    yield get
    for driver in _drivers.values():
        driver.stop()


@pytest.fixture(scope="session")
def apache_hudi(apache_hudi_driver: Callable[..., ApacheHudi]) -> ApacheHudi:
    """Apache Hudi 1.2's driver."""
    return apache_hudi_driver(DEFAULT_VERSION)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Start-up and request seconds of each driver, start-up measured apart."""
    for version, driver in sorted(_drivers.items()):
        stats = driver.stats
        if not stats.startups:
            continue
        startups = ", ".join(f"{seconds:.1f}" for seconds in stats.startups)
        busy = sum(seconds for _, seconds in stats.requests)
        terminalreporter.write_line(
            f"Apache Hudi {version} driver: start-up {startups} s; {len(stats.requests)} requests, {busy:.1f} s"
        )
