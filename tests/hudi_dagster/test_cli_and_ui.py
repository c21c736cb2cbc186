"""The example lakehouse from the command line and the UI: definitions validate, two partition
runs launched at once serialize on the `hudi:bronze_rides` pool, the webserver's GraphQL API shows
bronze's materialization metadata, and the README demo runs end to end."""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster import DagsterEventType, DagsterInstance

from hudi_core import HudiTable
from hudi_core.engine.spark.connect import ConnectServer
from pipelines.lakehouse import SPARK_CONF
from tests.loopback import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
DAGSTER = [sys.executable, "-m", "dagster"]
BRONZE_POOL = "hudi:bronze_rides"  # pipelines/lakehouse.py
POOL_LIMIT = "concurrency:\n  pools:\n    default_limit: 1\ntelemetry:\n  enabled: false\n"


@pytest.fixture(scope="module")
def lakehouse_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The example's environment; its runs share one Spark Connect server (`HUDI_SPARK_REMOTE`),
    as the README suggests for runs in separate processes, instead of starting Spark each."""
    home = tmp_path_factory.mktemp("dagster_home")
    (home / "dagster.yaml").write_text(POOL_LIMIT)
    with ConnectServer(master="local[2]", conf=SPARK_CONF) as server:
        yield {
            **os.environ,
            "DAGSTER_HOME": str(home),
            "HUDI_LAKEHOUSE_ROOT": str(tmp_path_factory.mktemp("lakehouse")),
            "HUDI_DEMO_ROWS": "4000",
            "HUDI_SPARK_REMOTE": server.url,
        }


def test_definitions_validate(lakehouse_env: dict[str, str]) -> None:
    done = subprocess.run(
        [*DAGSTER, "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT,
        env=lakehouse_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Validation successful" in done.stderr + done.stdout


@pytest.fixture(scope="module")
def partition_runs(lakehouse_env: dict[str, str]) -> list[str]:
    """Two `dagster asset materialize` runs of bronze partitions, launched at the same moment.

    The pool's limit is set first, as the README says: Dagster creates a pool's default limit on its
    first use, and two runs claiming a slot at that moment could both get one (our writer then
    refuses the second with ConcurrentWriteError)."""
    with DagsterInstance.from_config(lakehouse_env["DAGSTER_HOME"]) as instance:
        instance.event_log_storage.set_concurrency_slots(BRONZE_POOL, 1)
    launched = [
        subprocess.Popen(
            [
                *DAGSTER,
                "asset",
                "materialize",
                "-m",
                "pipelines.definitions",
                "--select",
                "bronze_rides",
                "--partition",
                day,
            ],
            cwd=ROOT,
            env=lakehouse_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for day in ("2025-01-02", "2025-01-03")
    ]
    for process in launched:
        output, _ = process.communicate(timeout=400)
        assert process.returncode == 0, output[-3000:]
    with DagsterInstance.from_config(lakehouse_env["DAGSTER_HOME"]) as instance:
        return [run.run_id for run in instance.get_runs()]


def test_two_partition_runs_serialize_on_the_table_pool(
    partition_runs: list[str], lakehouse_env: dict[str, str]
) -> None:
    assert len(partition_runs) == 2
    windows = []
    with DagsterInstance.from_config(lakehouse_env["DAGSTER_HOME"]) as instance:
        for run_id in partition_runs:
            started = instance.all_logs(run_id, of_type=DagsterEventType.STEP_START)
            finished = instance.all_logs(run_id, of_type=DagsterEventType.STEP_SUCCESS)
            windows.append((started[0].timestamp, finished[0].timestamp))
    (_first_start, first_end), (second_start, _second_end) = sorted(windows)
    assert first_end <= second_start, f"bronze steps overlapped: {windows}"
    bronze = HudiTable(str(Path(lakehouse_env["HUDI_LAKEHOUSE_ROOT"]) / "bronze_rides"))
    assert sorted(bronze.read(columns=["ride_date"]).column("ride_date").unique().to_pylist()) == [
        "2025-01-02",
        "2025-01-03",
    ]


@pytest.fixture(scope="module")
def webserver(partition_runs: list[str], lakehouse_env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "dagster_webserver", "-h", "127.0.0.1", "-p", str(port), "-w", "workspace.yaml"],
        cwd=ROOT,
        env=lakehouse_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/graphql"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2).read()
                break
            except OSError:
                assert process.poll() is None, "dagster-webserver exited"
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(30)


QUERY = """
{ assetOrError(assetKey: {path: ["bronze_rides"]}) {
    ... on Asset { assetMaterializations(limit: 1) {
        partition
        tags { key value }
        metadataEntries { label
          ... on TextMetadataEntry { text }
          ... on IntMetadataEntry { intValue }
          ... on PathMetadataEntry { path }
          ... on TableSchemaMetadataEntry { schema { columns { name } } } } } } } }
"""


def test_webserver_graphql_shows_bronze_materialization_metadata(webserver: str, lakehouse_env: dict[str, str]) -> None:
    request = urllib.request.Request(
        webserver, data=json.dumps({"query": QUERY}).encode(), headers={"Content-Type": "application/json"}
    )
    reply = json.loads(urllib.request.urlopen(request, timeout=60).read())
    materialization = reply["data"]["assetOrError"]["assetMaterializations"][0]
    entries = {e["label"]: e for e in materialization["metadataEntries"]}
    bronze = HudiTable(str(Path(lakehouse_env["HUDI_LAKEHOUSE_ROOT"]) / "bronze_rides"))
    latest = bronze.timeline.completed()[-1]
    assert entries["hudi/commit_instant"]["text"] == latest.requested_time
    assert entries["hudi/completion_time"]["text"] == latest.completion_time
    assert entries["dagster/row_count"]["intValue"] == 2000
    assert entries["hudi/rows_inserted"]["intValue"] == 1000
    assert entries["dagster/table_name"]["text"] == "bronze_rides"
    assert entries["dagster/uri"]["path"].endswith("bronze_rides")
    assert "ride_id" in [c["name"] for c in entries["dagster/column_schema"]["schema"]["columns"]]
    tags = {t["key"]: t["value"] for t in materialization["tags"]}
    assert tags["dagster/data_version"] == latest.requested_time


def test_readme_demo_runs_end_to_end(tmp_path: Path) -> None:
    env = {**os.environ, "HUDI_DEMO_ROWS": "4000"}
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.demo", "--root", str(tmp_path / "lakehouse")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert "dagster - DEBUG" not in done.stderr and "dagster - INFO" not in done.stderr  # short and readable
    lines = done.stdout.splitlines()
    summary = {
        line.split()[0]: line.split()
        for line in lines
        if line.startswith(("bronze_rides", "silver_rides", "gold_", "bronze_rides_mirror"))
    }
    assert summary["bronze_rides"][3] == "4000" and summary["bronze_rides_mirror"][3] == "4000"
    assert any("1 run request(s)" in line for line in lines)
    assert any(line.startswith("demo wall time") for line in lines)


def chromium() -> str:
    """The headless browser `scripts/dev.py test` provides (skipped without it unless required)."""
    found = os.environ.get("HUDI_CHROMIUM") or shutil.which("chromium")
    if found is None:
        if os.environ.get("HUDI_CHROMIUM_REQUIRED") == "1":
            pytest.fail("HUDI_CHROMIUM_REQUIRED=1 but no chromium found")
        pytest.skip("no chromium (scripts/dev.py test installs Debian's)")
    return found


def test_asset_page_in_a_browser_shows_columns_and_commit_fields(webserver: str, tmp_path: Path) -> None:
    """The asset page as a user sees it: headless Chromium renders the Dagster UI, whose overview
    lists the table's columns and the latest materialization's Hudi commit fields."""
    page = webserver.removesuffix("/graphql") + "/assets/bronze_rides"
    done = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=30000",
            "--window-size=1600,3000",
            "--dump-dom",
            page,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rendered = done.stdout
    assert "Columns" in rendered, rendered[-2000:]
    for field in ("ride_id", "hudi/commit_instant", "hudi/operation"):
        assert field in rendered, f"{field} not on the rendered asset page"
