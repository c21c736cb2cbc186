"""The sync's entry points other than a write: `hudi-core sync` (a subprocess, as users run it) and
the Dagster op (a real in-process job run), against the real metastore."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import dagster as dg
import pyarrow as pa

from hudi_core import HudiTable
from hudi_dagster.config import HudiTableConfig
from hudi_dagster.sync import hudi_sync_op
from tests.catalog.hive_metastore import HiveMetastoreServer
from tests.catalog.metastore_client import MetastoreClient

SCHEMA = pa.schema([("id", pa.int64()), ("ts", pa.int64()), ("dt", pa.string())])


def _table(path: Path) -> HudiTable:
    table = HudiTable.create(
        str(path),
        SCHEMA,
        "events",
        ["id"],
        ["dt"],
        ["ts"],
        options={"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    table.upsert(pa.table({"id": [1, 2], "ts": [1, 1], "dt": ["2026-02-01", "2026-02-02"]}))
    return table


def _hudi_core(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hudi_core.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_sync_command_registers_the_table_and_reports_what_it_did(
    tmp_path: Path, hive_metastore: HiveMetastoreServer
) -> None:
    table = _table(tmp_path / "events")
    database = f"cli_{uuid.uuid4().hex[:8]}"
    options = [
        "-o",
        f"hoodie.datasource.hive_sync.metastore.uris={hive_metastore.uri}",
        "-o",
        f"hoodie.datasource.hive_sync.database={database}",
    ]
    run = _hudi_core("--json", "sync", table.base_uri, *options)
    assert run.returncode == 0, run.stderr
    (entry,) = json.loads(run.stdout)
    (synced,) = entry["tables"]
    assert entry["tool"] == "HiveSyncTool"
    assert (synced["table"], synced["created"]) == (f"{database}.events", True)
    assert synced["partitions_added"] == ["2026-02-01", "2026-02-02"]
    text = _hudi_core("sync", table.base_uri, *options)
    assert text.stdout.strip() == (
        f"HiveSyncTool: {database}.events: no change; synced to {table.timeline.completed()[-1].requested_time}"
    )
    refused = _hudi_core("sync", table.base_uri, "-o", "hoodie.datasource.hive_sync.mode=jdbc")
    assert refused.returncode == 2
    assert "use hms" in refused.stderr
    down = _hudi_core("sync", table.base_uri, "-o", "hoodie.datasource.hive_sync.metastore.uris=thrift://127.0.0.1:9")
    assert down.returncode == 2
    assert down.stderr.startswith("error: no Hive metastore answered at thrift://127.0.0.1:9")


def test_the_dagster_op_syncs_and_reports_it_as_metadata(tmp_path: Path, hive_metastore: HiveMetastoreServer) -> None:
    table = _table(tmp_path / "events")
    database = f"dagster_{uuid.uuid4().hex[:8]}"
    config = HudiTableConfig(
        path=table.base_uri,
        hudi_options={
            "hoodie.datasource.hive_sync.metastore.uris": hive_metastore.uri,
            "hoodie.datasource.hive_sync.database": database,
        },
    )
    sync = hudi_sync_op(config, table_asset="events")

    @dg.job
    def register() -> None:
        sync()

    result = register.execute_in_process()
    assert result.success
    (materialization,) = [e for e in result.all_events if e.event_type_value == "STEP_OUTPUT"]
    metadata = {k: v.value for k, v in materialization.event_specific_data.metadata.items()}  # type: ignore[union-attr]
    assert metadata[f"hudi/sync/HiveSyncTool/{database}.events/created"] is True
    assert metadata[f"hudi/sync/HiveSyncTool/{database}.events/partitions_added"] == 2
    observations = [e for e in result.all_events if e.event_type_value == "ASSET_OBSERVATION"]
    assert len(observations) == 1
    with MetastoreClient(hive_metastore.uri) as metastore:
        assert sorted(metastore.partitions(database, "events")) == [("2026-02-01",), ("2026-02-02",)]
