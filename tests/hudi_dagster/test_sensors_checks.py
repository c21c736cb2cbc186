"""Timeline sensors, observable source assets, asset checks and maintenance jobs on real tables."""

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest
from dagster._core.definitions.observe import observe  # the public name is gone; materialize() refuses sources

from hudi_core import HudiTable, write_hudi
from hudi_dagster import (
    HudiTableConfig,
    hudi_commit_sensor,
    hudi_maintenance_job,
    hudi_observable_source_asset,
    hudi_table_checks,
)

OPTIONS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
}
ROOT = Path(__file__).resolve().parents[2]


def batch(ids: range, ts: int = 1) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids), "city": ["sf"] * len(ids)})


def write(path: str, ids: range, operation: str = "upsert", ts: int = 1) -> str:
    return write_hudi(path, batch(ids, ts), {**OPTIONS, "hoodie.datasource.write.operation": operation}).instant_time


@dg.op
def noop() -> None:
    pass


@dg.job
def downstream() -> None:
    noop()


def evaluate(sensor: dg.SensorDefinition, cursor: str | None) -> tuple[int, str | None]:
    with dg.instance_for_test() as instance:
        tick = sensor.evaluate_tick(dg.build_sensor_context(instance=instance, cursor=cursor))
    return len(tick.run_requests or []), tick.cursor


def test_sensor_fires_on_data_commits_only(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    sensor = hudi_commit_sensor(name="trips_commits", table_path=path, job=downstream)
    assert evaluate(sensor, None) == (0, None)  # no table yet
    write(path, range(5))
    requests, cursor = evaluate(sensor, None)
    table = HudiTable(path)
    assert requests == 1 and cursor == table.timeline.completed()[-1].completion_time
    assert evaluate(sensor, cursor) == (0, cursor)  # nothing new: cursor unchanged

    write(path, range(3), ts=2)  # a log file in the slice
    requests, cursor = evaluate(sensor, cursor)
    assert requests == 1
    assert HudiTable(path).compact() is not None  # a compaction commit: files change, data does not
    write(path, range(20, 25), operation="bulk_insert", ts=2)  # a second small file group to cluster
    requests, cursor = evaluate(sensor, cursor)
    assert requests == 1
    assert HudiTable(path).cluster(options={"hoodie.clustering.plan.strategy.small.file.limit": str(2**30)})
    assert evaluate(sensor, cursor)[0] == 0

    # A commit written by another process, outside Dagster, triggers like any other.
    code = f"from tests.hudi_dagster.test_sensors_checks import write; write({path!r}, range(7, 9), ts=3)"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
    requests, later = evaluate(sensor, cursor)
    assert requests == 1 and later is not None and later > cursor


def test_sensor_on_a_v6_table_never_passes_the_earliest_pending_instant(corpus_copy: object, tmp_path: Path) -> None:
    from tests.corpus import corpus_tables  # noqa: PLC0415

    v6 = next(t.name for t in corpus_tables() if "v6" in t.name and "cow" in t.name)
    path = corpus_copy(v6)  # type: ignore[operator]
    table = HudiTable(str(path))
    commits = [i for i in table.timeline.completed_data_instants() if not table.timeline.is_table_service(i)]
    sensor = hudi_commit_sensor(name="v6_commits", table_path=str(path), job=downstream)
    requests, cursor = evaluate(sensor, None)
    assert requests == 1 and cursor == commits[-1].requested_time  # layout 1: the instant time

    # A write that started before the last commit and is still inflight holds the cursor back.
    earliest = commits[0].requested_time
    pending = str(int(commits[-1].requested_time) - 1)
    hoodie = Path(path) / ".hoodie"
    (hoodie / f"{pending}.commit.requested").write_bytes(b"")
    (hoodie / f"{pending}.inflight").write_bytes(b"")
    requests, cursor = evaluate(sensor, earliest)
    assert cursor is None or cursor < pending


def test_observable_source_asset_version_follows_external_writes(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    source = hudi_observable_source_asset(key="external_trips", table_path=path)

    def observed() -> str:
        with dg.instance_for_test() as instance:
            result = observe([source], instance=instance)
            observation = result.asset_observations_for_node("external_trips")[0]
            return observation.tags["dagster/data_version"]

    assert observed() == "absent"
    first = write(path, range(3))
    assert observed() == first
    second = write(path, range(2), ts=2)
    assert observed() == second
    HudiTable(path).compact()
    assert observed() == second  # compaction is not new data


def run_checks(path: str, **kwargs: object) -> dict[str, dg.AssetCheckEvaluation]:
    checks = hudi_table_checks(asset_key="trips", table_path=path, **kwargs)  # type: ignore[arg-type]

    @dg.asset(name="trips")
    def trips() -> None:
        pass

    result = dg.materialize([trips, *checks], raise_on_error=False)
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def test_checks_pass_on_a_healthy_table_and_fail_on_problems(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    write(path, range(5))
    write(path, range(3), ts=2)
    results = run_checks(path, max_small_file_ratio=1.0)
    assert all(e.passed for e in results.values()), {k: e.metadata for k, e in results.items()}

    write(path, range(2), operation="bulk_insert")  # bulk_insert does not look up keys: duplicates
    expected = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string()), ("fare", pa.float64())])
    results = run_checks(path, expected_schema=expected, max_small_file_ratio=0.0)
    assert not results["record_key_unique"].passed
    assert results["record_key_unique"].metadata["duplicated_keys"].value == 2
    assert not results["schema_drift"].passed and results["schema_drift"].metadata["removed"].value == "fare"
    assert not results["table_health"].passed  # every base file is small


def test_health_check_reports_a_failed_write(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    write(path, range(5))
    code = f"from tests.hudi_dagster.test_sensors_checks import write; write({path!r}, range(9), ts=5)"
    env = {**os.environ, "HUDI_CRASH_AT": "write.after_first_file"}
    crashed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, timeout=120, check=False)
    assert crashed.returncode != 0
    results = run_checks(path, max_small_file_ratio=1.0)
    assert not results["table_health"].passed
    assert results["table_health"].metadata["pending_writes"].value != "-"


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ"])
def test_maintenance_job_reports_each_service(table_type: str, tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    for ts in range(1, 5):
        write(path, range(10), ts=ts)
    config = HudiTableConfig(path=path, record_key=["id"], table_type=table_type)
    job = hudi_maintenance_job(
        config,
        ["log_compaction", "compaction", "clustering", "clean", "archive"],
        options={
            "hoodie.cleaner.commits.retained": "1",
            "hoodie.clustering.plan.strategy.small.file.limit": "0",
            "hoodie.log.compaction.blocks.threshold": "2",
        },
    )

    def run(job: dg.JobDefinition = job) -> dict[str, dict[str, object]]:
        result = job.execute_in_process()
        assert result.success
        return {
            event.step_key: {k: v.value for k, v in event.event_specific_data.metadata.items()}  # type: ignore[union-attr]
            for event in result.all_events
            if event.event_type_value == "STEP_OUTPUT"
        }

    outputs = run()
    assert outputs["trips_log_compaction"]["hudi/ran"] is True  # three log blocks became one
    assert outputs["trips_compaction"]["hudi/ran"] is True
    assert outputs["trips_compaction"]["hudi/log_files_compacted"] == 4  # three logs and the compacted one
    write(path, range(10), ts=8)
    write(path, range(10), ts=9)
    outputs = run()  # the pre-compaction slice is now outside the retained commits
    assert outputs["trips_clean"]["hudi/ran"] is True and outputs["trips_clean"]["hudi/files_deleted"] >= 1
    assert run(hudi_maintenance_job(config, ["savepoint"], name="savepoint"))["trips_savepoint"]["hudi/ran"] is True
    table = HudiTable(path)
    assert len(table.savepoints()) == 1 and not any(s.log_files for s in table.file_slices())
    assert table.read().num_rows == 10
