"""Timeline sensors, observable source assets, asset checks and maintenance jobs on real tables."""

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest
from dagster._core.definitions.observe import observe  # the public name is gone; materialize() refuses sources

from hudi_core import HudiTable, WriteResult, write_hudi
from hudi_core.cli.health import table_stats
from hudi_core.lifecycle.markers import Markers
from hudi_core.timeline.instant import State
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


def commit(path: str, ids: range, operation: str = "upsert", ts: int = 1) -> WriteResult:
    return write_hudi(path, batch(ids, ts), {**OPTIONS, "hoodie.datasource.write.operation": operation})


def write(path: str, ids: range, operation: str = "upsert", ts: int = 1) -> str:
    return commit(path, ids, operation, ts).instant_time


@dg.op
def noop() -> None:
    pass


@dg.job
def downstream() -> None:
    noop()


Requests = list[tuple[str | None, dict[str, str]]]


def evaluate(
    sensor: dg.SensorDefinition, cursor: str | None, definitions: dg.Definitions | None = None
) -> tuple[Requests, str | None, str | None]:
    """The tick's run requests (run key, tags), its cursor and its skip message."""
    with dg.instance_for_test() as instance:
        tick = sensor.evaluate_tick(dg.build_sensor_context(instance=instance, cursor=cursor, definitions=definitions))
    requests = [(r.run_key, dict(r.tags)) for r in tick.run_requests or []]
    return requests, tick.cursor, tick.skip_message


def asset_events(sensor: dg.SensorDefinition, cursor: str) -> list[tuple[str, str, str]]:
    """(event kind, operation, instant) of the tick's events on the table's asset."""
    with dg.instance_for_test() as instance:
        tick = sensor.evaluate_tick(dg.build_sensor_context(instance=instance, cursor=cursor))
    return [
        (type(e).__name__, str(e.metadata["hudi/operation"].value), str(e.metadata["hudi/commit_instant"].value))
        for e in tick.asset_events
    ]


def fired(sensor: dg.SensorDefinition, path: str, end: str, *commits: str) -> tuple[Requests, str, None]:
    """What a tick that found `commits` (requested times), the newest completing at `end`, returns."""
    tags = {"hudi/table": path, "hudi/commits": ",".join(commits), "dagster/sensor_name": sensor.name}
    return [(f"{path}@{end}", tags)], end, None


def test_sensor_fires_on_data_commits_only(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    sensor = hudi_commit_sensor(name="trips_commits", table_path=path, job=downstream)
    # Turned on before the table exists: every commit of the table will be new to it.
    assert evaluate(sensor, None) == ([], "earliest", f"no Hudi table at {path} yet")
    first = commit(path, range(5))
    assert evaluate(sensor, "earliest") == fired(sensor, path, first.completion_time, first.instant_time)
    cursor = first.completion_time
    assert evaluate(sensor, cursor) == ([], cursor, f"no data commits after {cursor}")  # the cursor stays

    second = commit(path, range(3), ts=2)  # a log file in the slice
    assert evaluate(sensor, cursor) == fired(sensor, path, second.completion_time, second.instant_time)
    cursor = second.completion_time
    assert HudiTable(path).compact() is not None  # a compaction commit: files change, data does not
    third = commit(path, range(20, 25), operation="bulk_insert", ts=2)  # a second small file group to cluster
    assert evaluate(sensor, cursor) == fired(sensor, path, third.completion_time, third.instant_time)
    cursor = third.completion_time
    assert HudiTable(path).cluster(options={"hoodie.clustering.plan.strategy.small.file.limit": str(2**30)})
    assert evaluate(sensor, cursor) == ([], cursor, f"no data commits after {cursor}")

    # Commits written by another process, outside Dagster, trigger like any other: both in one run.
    code = (
        "from tests.hudi_dagster.test_sensors_checks import commit\n"
        "for ids in (range(7, 9), range(30, 32)):\n"
        f"    done = commit({path!r}, ids, ts=3)\n"
        "    print(done.instant_time, done.completion_time)"
    )
    external = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120, capture_output=True)
    (one, _), (two, end) = (line.split() for line in external.stdout.decode().splitlines())
    assert evaluate(sensor, cursor) == fired(sensor, path, end, one, two)


def test_sensor_on_a_v6_table_never_passes_the_earliest_pending_instant(corpus_copy: object, tmp_path: Path) -> None:
    from tests.corpus import corpus_tables  # noqa: PLC0415

    v6 = next(t.name for t in corpus_tables() if "v6" in t.name and "cow" in t.name)
    path = str(corpus_copy(v6))  # type: ignore[operator]
    table = HudiTable(path)
    timeline = table.timeline
    commits = [i.requested_time for i in timeline.completed_data_instants() if not timeline.is_table_service(i)]
    assert len(commits) == 2
    sensor = hudi_commit_sensor(name="v6_commits", table_path=path, job=downstream)
    assert evaluate(sensor, "earliest") == fired(sensor, path, commits[-1], *commits)  # layout 1: the instant time

    # A write that started before the last commit and is still inflight holds the cursor back: the
    # last commit is not reported until the write before it finishes.
    earliest, last = commits
    pending = str(int(last) - 1)
    hoodie = Path(path) / ".hoodie"
    requested, inflight = hoodie / f"{pending}.commit.requested", hoodie / f"{pending}.inflight"
    requested.write_bytes(b"")
    inflight.write_bytes(b"")
    assert evaluate(sensor, earliest) == ([], earliest, f"no data commits after {earliest}")
    requested.unlink()  # the pending write rolled back
    inflight.unlink()
    assert evaluate(sensor, earliest) == fired(sensor, path, last, last)


def test_first_tick_starts_from_the_consumers_checkpoints(tmp_path: Path) -> None:
    """Turning the sensor on over a table with history does not replay what consumers processed."""
    from hudi_dagster import hudi_incremental_asset  # noqa: PLC0415

    path = str(tmp_path / "trips")
    first, second = commit(path, range(5)), commit(path, range(5, 8), ts=2)
    sensor = hudi_commit_sensor(name="trips_commits", table_path=path, job=downstream)
    # No consumers in the code location: the sensor starts after the latest commit.
    assert evaluate(sensor, None) == ([], second.completion_time, f"no data commits after {second.completion_time}")

    silver = HudiTableConfig(path=str(tmp_path / "silver"), record_key=["id"], partition_fields=["city"])
    consumer = hudi_incremental_asset(name="silver", source="trips", source_path=path, target=silver)
    definitions = dg.Definitions(assets=[consumer], jobs=[downstream], sensors=[sensor])
    # A consumer that never ran: everything is new to it.
    expected = fired(sensor, path, second.completion_time, first.instant_time, second.instant_time)
    assert evaluate(sensor, None, definitions) == expected
    write_hudi(
        silver.path, batch(range(1)), silver.write_options("upsert"), first.completion_time, "silver"
    )  # as if silver had processed the first commit
    assert evaluate(sensor, None, definitions) == fired(sensor, path, second.completion_time, second.instant_time)


def test_commits_outside_dagster_are_reported_on_the_table_asset(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    own = write_hudi(
        path,
        batch(range(5)),
        {**OPTIONS, "hoodie.datasource.write.commitmeta.key.prefix": "dagster/", "dagster/run_id": "r1"},
    )
    sensor = hudi_commit_sensor(name="trips_commits", table_path=path, job=downstream, table_asset="trips")
    cursor = own.completion_time
    other = commit(path, range(3), ts=2)  # another writer
    compacted = HudiTable(path).compact()
    assert compacted is not None
    events = asset_events(sensor, "earliest")
    assert events == [
        ("AssetMaterialization", "upsert", other.instant_time),
        ("AssetObservation", "compact", compacted.instant_time),
    ]  # the Dagster run's own commit is not reported
    assert asset_events(sensor, cursor) == events
    _, after, _ = evaluate(sensor, cursor)
    assert after is not None and asset_events(sensor, after) == []  # reported once


def test_observable_source_asset_version_follows_external_writes(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    source = hudi_observable_source_asset(key="external_trips", table_path=path)

    def observed() -> str:
        with dg.instance_for_test() as instance:
            result = observe([source], instance=instance)
            observation = result.asset_observations_for_node("external_trips")[0]
            return observation.tags["dagster/data_version"]

    with dg.instance_for_test() as instance:  # no table: a failed observation saying so
        result = observe([source], instance=instance, raise_on_error=False)
        assert not result.success
        failure = next(e for e in result.all_events if e.is_step_failure)
        assert f"no Hudi table at {path}" in str(failure.event_specific_data)
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


def test_health_judges_small_files_by_what_packing_would_save(tmp_path: Path) -> None:
    """One small base file per partition is healthy (nothing to pack it with), also after compaction,
    at the default thresholds; two small files in one partition are one file too many."""
    path = str(tmp_path / "trips")
    cities = ["sf", "nyc", "la", "chi"]
    rows = pa.table({"id": [f"k{i}" for i in range(8)], "ts": [1] * 8, "city": cities * 2})
    write_hudi(path, rows, OPTIONS)
    write_hudi(path, rows.slice(0, 4).set_column(1, "ts", pa.array([2] * 4)), OPTIONS)
    assert HudiTable(path).compact() is not None
    results = run_checks(path)
    health = results["table_health"]
    assert health.passed, health.metadata
    assert health.metadata["packable_small_files"].value == 0
    assert health.metadata["small_file_limit_bytes"].value == 104857600
    assert health.metadata["max_file_size_bytes"].value == 125829120
    more = pa.table({"id": ["x1", "x2"], "ts": [1, 1], "city": ["sf", "sf"]})
    write_hudi(path, more, {**OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"})
    health = run_checks(path, max_small_file_ratio=0.1)["table_health"]
    assert not health.passed and health.metadata["packable_small_files"].value == 1
    checks = hudi_table_checks(asset_key="trips", table_path=path)
    descriptions = [spec.description for check in checks for spec in check.check_specs]
    assert len(descriptions) == 4 and all(descriptions), descriptions
    assert "hoodie.parquet.small.file.limit" in descriptions[2]


def test_health_check_reports_a_failed_write(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    write(path, range(5))
    code = f"from tests.hudi_dagster.test_sensors_checks import write; write({path!r}, range(9), ts=5)"
    env = {**os.environ, "HUDI_CRASH_AT": "write.after_first_file"}
    crashed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, timeout=120, check=False)
    assert crashed.returncode == -signal.SIGKILL
    # Killed at `write.after_first_file`: the write is inflight with a finished data file (file-group
    # tasks run two at a time, so another may have marked and begun its file too).
    table = HudiTable(path)
    [pending] = table.timeline.pending()
    assert pending.state is State.INFLIGHT
    marked = Markers(table.storage, pending.requested_time).data_files()
    assert 1 <= len(marked) <= 2 and any(table.storage.exists(path) for path in marked)
    results = run_checks(path, max_small_file_ratio=1.0)
    assert not results["table_health"].passed
    assert results["table_health"].metadata["pending_writes"].value == pending.requested_time


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
        table_asset="trips",
    )
    observations: list[str] = []

    def run(job: dg.JobDefinition = job) -> dict[str, dict[str, object]]:
        result = job.execute_in_process()
        assert result.success
        observations.extend(
            str(e.event_specific_data.asset_observation.metadata["hudi/service"].value)  # type: ignore[union-attr]
            for e in result.get_asset_observation_events()
            if e.asset_key == dg.AssetKey("trips")
        )
        return {
            event.step_key: {k: v.value for k, v in event.event_specific_data.metadata.items()}  # type: ignore[union-attr]
            for event in result.all_events
            if event.event_type_value == "STEP_OUTPUT"
        }

    outputs = run()
    # Each service's result is an observation of the table's asset too.
    assert observations == ["log_compaction", "compaction", "clustering", "clean", "archive"]
    assert outputs["trips_log_compaction"]["hudi/ran"] is True  # three log blocks became one
    assert outputs["trips_compaction"]["hudi/ran"] is True
    timeline = HudiTable(path).timeline
    compaction = next(i for i in timeline.completed_data_instants() if timeline.is_table_service(i))
    assert "dagster/run_id" in timeline.commit_metadata(compaction).extra_metadata  # not an outside commit
    assert outputs["trips_compaction"]["hudi/log_files_compacted"] == 4  # three logs and the compacted one
    write(path, range(10), ts=8)
    write(path, range(10), ts=9)
    outputs = run()  # the pre-compaction slice is now outside the retained commits
    assert outputs["trips_clean"]["hudi/ran"] is True and outputs["trips_clean"]["hudi/files_deleted"] >= 1
    assert run(hudi_maintenance_job(config, ["savepoint"], name="savepoint"))["trips_savepoint"]["hudi/ran"] is True
    table = HudiTable(path)
    assert len(table.savepoints()) == 1 and not any(s.log_files for s in table.file_slices())
    assert table.read().num_rows == 10


def test_health_check_and_cli_stats_name_the_same_pending_services(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    options = {**OPTIONS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    for ts in range(1, 4):
        write_hudi(path, batch(range(10), ts), options)
    table = HudiTable(path)
    compaction = table.schedule_compaction({"hoodie.compact.inline.max.delta.commits": "1"})
    assert compaction is not None
    results = run_checks(path, max_small_file_ratio=1.0)
    assert results["table_health"].passed  # pending services are no failed writes
    assert results["table_health"].metadata["pending_table_services"].value == f"compaction@{compaction}"
    assert [(s["instant"], s["action"]) for s in table_stats(HudiTable(path))["pending_services"]] == [
        (compaction, "compaction")
    ]


def test_table_state_sensor_requests_maintenance_for_pending_plans_and_failed_writes(tmp_path: Path) -> None:
    from hudi_dagster import hudi_table_state_sensor  # noqa: PLC0415

    path = str(tmp_path / "trips")
    sensor = hudi_table_state_sensor(name="trips_state", table_path=path, job=downstream)
    write(path, range(5))
    write(path, range(3), ts=2)
    assert evaluate(sensor, None)[2] == "no pending table services and no failed writes"
    planned = HudiTable(path).schedule_compaction()
    assert planned is not None
    [(run_key, tags)], _, _ = evaluate(sensor, None)
    assert tags["hudi/pending_services"] == f"compaction@{planned}" and tags["hudi/failed_writes"] == ""
    assert evaluate(sensor, None)[0][0][0] == run_key  # the same state: the same run key, one run

    code = f"from tests.hudi_dagster.test_sensors_checks import write; write({path!r}, range(9), ts=5)"
    env = {**os.environ, "HUDI_CRASH_AT": "write.after_first_file"}
    crashed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, timeout=120, check=False)
    assert crashed.returncode == -signal.SIGKILL
    [failed] = [i.requested_time for i in HudiTable(path).timeline.pending() if i.requested_time != planned]
    [(_, tags)], _, _ = evaluate(sensor, None)
    assert tags["hudi/failed_writes"] == failed


def test_io_manager_assets_get_checks_on_request_and_orphans_fail_them(tmp_path: Path) -> None:
    from hudi_dagster import HudiPyArrowIOManager, io_manager_checks  # noqa: PLC0415

    @dg.asset(metadata={"record_key": "id"})
    def fares() -> pa.Table:
        return pa.table({"id": ["a", "b"], "fare": [1.0, 2.0]})

    manager = HudiPyArrowIOManager(root_uri=str(tmp_path))
    checks = io_manager_checks([fares], str(tmp_path))
    result = dg.materialize([fares, *checks], resources={"io_manager": manager})
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert set(evaluations) == {"record_key_unique", "schema_drift", "table_health", "storage_consistent"}
    assert all(e.passed for e in evaluations.values()), {k: e.metadata for k, e in evaluations.items()}
    stray = tmp_path / "fares" / "ffffffff-0000-0000-0000-000000000000-0_0-0-0_20250101000000000.parquet"
    stray.write_bytes((tmp_path / "fares").glob("*.parquet").__next__().read_bytes())  # a file no commit wrote
    selection = dg.AssetSelection.checks(*checks[3].check_keys)
    again = dg.materialize([fares, *checks], resources={"io_manager": manager}, selection=selection)
    [storage] = again.get_asset_check_evaluations()
    assert not storage.passed and storage.metadata["orphan_files"].value == 1


def test_the_example_shows_storage_and_its_maintenance_launchpad_asks_for_no_io_manager_config(tmp_path: Path) -> None:
    """The launchpad's default config of the example's maintenance job, as the UI computes it: the
    IO manager of the Definitions is not the job's (its ops output nothing)."""
    from dagster._core.snap import JobSnap  # noqa: PLC0415
    from dagster_graphql.schema.run_config import default_values_yaml_from_type_snap  # noqa: PLC0415

    from pipelines.lakehouse import build_definitions  # noqa: PLC0415

    definitions = build_definitions(tmp_path)
    job = definitions.get_repository_def().get_job("bronze_maintenance")
    for name in ("bronze_rides", "silver_rides", "gold_city_daily", "bronze_rides_mirror"):
        spec = next(iter(definitions.resolve_assets_def(name).specs))
        assert str(spec.metadata["dagster/uri"]).endswith(name)  # the overview's Storage field
    snap = JobSnap.from_job_def(job)
    root = snap.config_schema_snapshot.get_config_snap(snap.mode_def_snaps[0].root_config_key)
    assert default_values_yaml_from_type_snap(snap.config_schema_snapshot, root).strip() == "{}"


def test_partition_aware_sensor_requests_the_dagster_partitions_a_commit_touched(tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    daily = dg.DailyPartitionsDefinition(start_date="2025-01-01", end_date="2025-01-10")
    options = {
        **OPTIONS,
        "hoodie.datasource.write.partitionpath.field": "day",
        "hoodie.datasource.write.hive_style_partitioning": "true",
    }

    def rows(days: list[str], ts: int = 1) -> pa.Table:
        return pa.table(
            {"id": [f"k{d}" for d in days], "ts": [ts] * len(days), "city": ["sf"] * len(days), "day": days}
        )

    first = write_hudi(path, rows(["2025-01-01", "2025-01-02"]), options)

    @dg.asset(partitions_def=daily)
    def by_day() -> None:
        pass

    job = dg.define_asset_job("by_day_job", [by_day])
    sensor = hudi_commit_sensor(name="trips_days", table_path=path, job=job, partitions_def=daily)
    definitions = dg.Definitions(assets=[by_day], jobs=[job], sensors=[sensor])
    with dg.instance_for_test() as instance:

        def tick_after(cursor: str) -> Any:
            context = dg.build_sensor_context(instance=instance, cursor=cursor, definitions=definitions)
            return sensor.evaluate_tick(context)

        assert tick_after(first.completion_time).skip_message is not None  # nothing new
        second = write_hudi(path, rows(["2025-01-02", "2025-01-03", "2031-01-01"], ts=2), options)
        tick = tick_after(first.completion_time)
    assert sorted(r.partition_key for r in tick.run_requests or []) == ["2025-01-02", "2025-01-03"]  # 2031: no key
    assert tick.cursor == second.completion_time
