"""Inline services that fail after the write committed: the write succeeds, the failure (whatever its
type) is a warning of its result and of the Dagster materialization, the service's lock is given
back, and its next run does the work.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.concurrency.storage_lock import LOCK_FILE
from hudi_dagster import HudiPyArrowIOManager
from hudi_dagster.metadata import SERVICE_WARNINGS_KEY
from tests.faults.faulty_storage import inject, no_space
from tests.faults.tables import SCHEMA, rows, values
from tests.invariants import assert_healthy

ENOSPC_TEXT = "No space left on device"
OPTIONS = {"hoodie.parquet.small.file.limit": "0"}


ARCHIVING = {
    **OPTIONS,
    "hoodie.clean.automatic": "false",
    "hoodie.keep.min.commits": "2",
    "hoodie.keep.max.commits": "3",
    "hoodie.clean.commits.retained": "1",
}


def _unexpected(path: str) -> Exception:
    return RuntimeError(f"unexpected failure writing {path}")


@pytest.mark.parametrize(
    ("error", "reported"),
    [(no_space, rf"HudiStorageError: cannot write .*timeline/history/.*{ENOSPC_TEXT}"), (_unexpected, "RuntimeError")],
    ids=["disk-full", "any-exception"],
)
def test_an_inline_archival_failing_after_the_commit_is_a_warning_of_the_committed_write(
    error: Callable[[str], Exception], reported: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "t"
    seeding = {**ARCHIVING, "hoodie.archive.automatic": "false"}
    table = HudiTable.create(str(base), SCHEMA, "fail", ["id"], ["p"], None, "COPY_ON_WRITE", seeding)
    table.insert(rows(range(4), 0), seeding)
    for round_ in (1, 2, 3):
        table.upsert(rows([round_], round_), seeding)

    with monkeypatch.context() as patch:
        # Archival's first file: its history (LSM) file.
        inject(patch, fail_at=1, matching="timeline/history/", error=error)
        result = HudiTable(str(base)).upsert(rows([0, 7], 9), ARCHIVING)

    (warning,) = result.service_warnings
    assert warning.startswith("inline archival failed after the write committed")
    assert re.search(reported, warning), warning
    assert result.table_services == ()
    assert result.instant_time in [i.requested_time for i in HudiTable(str(base)).timeline.completed()]
    assert values(base) == {"k0": 9, "k1": 1, "k2": 2, "k3": 3, "k7": 9}
    assert not (base / LOCK_FILE).exists()

    retried = HudiTable(str(base)).upsert(rows([3], 10), ARCHIVING)  # the next write archives
    assert [s.action for s in retried.table_services] == ["archive"] and retried.service_warnings == ()
    assert_healthy(base)


@pytest.mark.dagster
def test_a_dagster_materialization_reports_an_inline_service_failure_as_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    @dg.asset(metadata={"record_key": "id"})
    def trips() -> pa.Table:
        return rows(range(3), 1)

    # The lock refreshes of the first write: the write's own, then the inline services' (one hold).
    inject(monkeypatch, fail_at=2, matching="table_lock.json.")
    result = dg.materialize([trips], resources={"io_manager": HudiPyArrowIOManager(root_uri=str(tmp_path))})

    assert result.success
    (event,) = result.asset_materializations_for_node("trips")
    warning = event.metadata[SERVICE_WARNINGS_KEY].value
    assert isinstance(warning, str) and warning.startswith("inline services skipped after the write committed")
    assert ENOSPC_TEXT in warning
    assert values(tmp_path / "trips") == {"k0": 1, "k1": 1, "k2": 1}
