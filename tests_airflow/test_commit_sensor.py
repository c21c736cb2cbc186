"""`HudiCommitSensor`: deferred to its trigger, it fires on a data commit another process makes
and not on that process's compaction; it resumes from a consumer's checkpoint."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hudi_core import HudiTable, write_hudi
from tests_airflow.conftest import TEST_DAGS
from tests_airflow.table_writer import COMPACT_NOW, OPTIONS
from tests_airflow.table_writer import rows as _rows


def _writer_process(path: Path, marker: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tests_airflow.table_writer", str(path), str(marker)])


def test_deferred_sensor_fires_on_a_data_commit_not_on_a_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airflow.dag_processing.dagbag import DagBag  # noqa: PLC0415

    from hudi_airflow.triggers import HudiCommitTrigger  # noqa: PLC0415

    path = tmp_path / "events"
    write_hudi(str(path), _rows(range(5), 10), OPTIONS)
    write_hudi(str(path), _rows(range(3), 20), OPTIONS)  # updates into logs: a compaction has work
    table = HudiTable(str(path))
    seen = table.timeline.completion_order_key(table.timeline.completed_data_instants()[-1])
    marker = tmp_path / "deferred"
    # The trigger reads the sensor's aws connection itself (its settings are harmless for a local table).
    connection = {"conn_type": "aws", "login": "key", "password": "secret", "extra": {"region_name": "eu-west-1"}}
    monkeypatch.setenv("AIRFLOW_CONN_HUDI_SENSOR_AWS", json.dumps(connection))

    original_run = HudiCommitTrigger.run

    async def run_and_mark(self: HudiCommitTrigger) -> Any:  # the writer starts once the task deferred
        assert self.aws_conn_id == "hudi_sensor_aws" and "secret" not in json.dumps(self.serialize()[1])
        marker.touch()
        async with asyncio.timeout(60):  # a writer that failed must not leave the test waiting
            async for event in original_run(self):
                yield event

    HudiCommitTrigger.run = run_and_mark  # type: ignore[method-assign]
    writer = _writer_process(path, marker)
    try:
        dag = DagBag(dag_folder=str(TEST_DAGS / "sensor_dag.py")).get_dag("hudi_sensor_deferred")
        run = dag.test(run_conf={"table_path": str(path), "after": seen})
    finally:
        HudiCommitTrigger.run = original_run  # type: ignore[method-assign]
        writer.wait(timeout=120)
    assert writer.returncode == 0
    assert run.state == "success"

    from airflow.models.xcom import XComModel  # noqa: PLC0415
    from airflow.utils.session import create_session  # noqa: PLC0415

    with create_session() as session:
        row = (
            session.query(XComModel)
            .filter(XComModel.dag_id == "hudi_sensor_deferred", XComModel.key == "return_value")
            .one()
        )
        window = XComModel.deserialize_value(row)
    table = HudiTable(str(path))
    timeline = table.timeline
    compaction = [i for i in timeline.completed_data_instants() if timeline.is_table_service(i)]
    upsert = timeline.completed_data_instants()[-1]
    assert len(compaction) == 1 and not timeline.is_table_service(upsert)
    assert window["commits"] == [upsert.requested_time]  # the compaction is not in the window
    assert window["start"] == seen and window["end"] == timeline.completion_order_key(upsert)


def test_sensor_pokes_from_a_consumers_checkpoint(tmp_path: Path) -> None:
    from hudi_airflow.sensors import HudiCommitSensor  # noqa: PLC0415

    source, consumer = str(tmp_path / "source"), str(tmp_path / "consumer")
    write_hudi(source, _rows(range(3), 1), OPTIONS)
    write_hudi(source, _rows(range(2), 2), OPTIONS)  # updates into logs: a compaction has work
    first_end = HudiTable(source).timeline.completion_order_key(
        HudiTable(source).timeline.completed_data_instants()[-1]
    )
    consumer_options = {**OPTIONS, "hoodie.table.name": "consumer"}
    write_hudi(consumer, _rows(range(3), 1), consumer_options, checkpoint=first_end, checkpoint_identifier="me")

    sensor = HudiCommitSensor(
        task_id="wait", table_path=source, consumer_table_path=consumer, checkpoint_identifier="me"
    )
    assert sensor.last_processed() == first_end
    assert not sensor.poke({}).is_done
    assert HudiTable(source).compact(options=COMPACT_NOW) is not None  # a service commit is not new data
    assert not sensor.poke({}).is_done
    write_hudi(source, _rows(range(2), 2), OPTIONS)
    found = sensor.poke({})
    window = found.xcom_value
    assert found.is_done and window is not None
    assert window["start"] == first_end and len(window["commits"]) == 1
