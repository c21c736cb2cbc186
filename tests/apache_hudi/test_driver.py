"""The Apache Hudi driver itself: requests and answers, Java errors, timeouts and one restart."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pyarrow as pa
import pytest

from scripts.apache_hudi import ApacheHudi, ApacheHudiError, DriverFailedError

pytestmark = pytest.mark.apache_hudi


def test_writes_reads_and_runs_sql(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    path = tmp_path / "trips"
    rows = pa.table({"id": ["a", "b", "c"], "ts": [1, 2, 3], "fare": [1.5, None, 3.5]})
    options = {
        "hoodie.table.name": "driver_trips",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
    }
    apache_hudi.write(path, rows, options, mode="overwrite")

    read = apache_hudi.read(path)
    assert read.select(["id", "ts", "fare"]).sort_by("id").to_pylist() == rows.to_pylist()
    assert "_hoodie_commit_time" in read.column_names
    assert apache_hudi.sql(f"CREATE TABLE driver_trips USING hudi LOCATION '{path}'") is None
    counted = apache_hudi.sql("SELECT count(*) AS n FROM driver_trips")
    assert counted is not None
    assert counted.to_pylist() == [{"n": 3}]


def test_a_failed_request_answers_the_java_exception(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    missing = tmp_path / "no-table-here"
    with pytest.raises(ApacheHudiError) as raised:
        apache_hudi.read(missing)
    assert raised.value.java_class == "org.apache.hudi.exception.TableNotFoundException"
    assert str(missing) in raised.value.message
    # The driver keeps serving.
    answer = apache_hudi.sql("SELECT 1 AS one")
    assert answer is not None
    assert answer.to_pylist() == [{"one": 1}]


def test_a_hung_or_dead_driver_fails_its_request_and_is_restarted_once(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    driver = ApacheHudi(apache_hudi.python, apache_hudi.jar, apache_hudi.version, tmp_path, request_timeout=2)
    try:
        with pytest.raises(DriverFailedError, match=r"gave no answer to sql within 2 s; stderr \("):
            driver.sql("SELECT count(*) FROM range(1000000000000)")

        driver.request_timeout = apache_hudi.request_timeout  # a fresh session's first query takes a while
        answer = driver.sql("SELECT 2 AS two")
        assert answer is not None
        assert answer.to_pylist() == [{"two": 2}]
        assert len(driver.stats.startups) == 2

        process = driver._process
        assert process is not None
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        with pytest.raises(DriverFailedError, match="failed 2 times; not starting it again"):
            driver.sql("SELECT 3")
    finally:
        driver.stop()
