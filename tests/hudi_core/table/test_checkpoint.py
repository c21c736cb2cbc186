"""Checkpoints stored with commits and found again by `latest_checkpoint`."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.config.write import SINK_CHECKPOINT_KEY
from hudi_core.errors import FileFormatError, HudiConfigError
from hudi_core.storage import Storage
from hudi_core.table.checkpoint import latest_sink_batch
from hudi_core.table.state import load_table_state
from hudi_core.timeline.commit_metadata import CHECKPOINT_IDENTIFIER_KEY, CHECKPOINT_KEY

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def _rows(*ids: int) -> pa.Table:
    return pa.table({"id": list(ids), "v": [str(i) for i in ids]}, schema=SCHEMA)


def test_latest_checkpoint_skips_commits_without_one(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "cp", ["id"])
    assert table.latest_checkpoint() is None
    first = table.insert(_rows(1), checkpoint="offset=10")
    table.upsert(_rows(2))  # another writer, no checkpoint
    assert table.latest_checkpoint() == "offset=10"
    table.upsert(_rows(3), checkpoint="offset=20", checkpoint_identifier="job-b")
    table.delete(_rows(1))
    assert table.latest_checkpoint() == "offset=20"
    assert table.latest_checkpoint("job-b") == "offset=20"
    assert table.latest_checkpoint("job-a") is None
    extra = table.timeline.commit_metadata(table.timeline.get(first.instant_time)).extra_metadata
    assert extra[CHECKPOINT_KEY] == "offset=10"
    assert CHECKPOINT_IDENTIFIER_KEY not in extra


def test_identifiers_keep_writers_apart(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "cp", ["id"])
    table.upsert(_rows(1), checkpoint="a1", checkpoint_identifier="a")
    table.upsert(_rows(2), checkpoint="b1", checkpoint_identifier="b")
    table.upsert(_rows(3), checkpoint="a2", checkpoint_identifier="a")
    assert table.latest_checkpoint("a") == "a2"
    assert table.latest_checkpoint("b") == "b1"
    assert table.latest_checkpoint() == "a2"


def test_write_hudi_and_the_identifier_option_store_checkpoints(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    options = {
        "hoodie.table.name": "cp",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.streaming.checkpoint.identifier": "stream-1",
    }
    write_hudi(path, _rows(1, 2), options, checkpoint="batch-7")
    assert HudiTable(path).latest_checkpoint("stream-1") == "batch-7"


def test_table_services_leave_the_checkpoint_alone(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "cp", ["id"], table_type="MERGE_ON_READ")
    table.insert(_rows(1, 2, 3), checkpoint="kafka:0:100")
    table.upsert(_rows(2), checkpoint="kafka:0:120")
    assert table.compact() is not None
    assert table.cluster() is not None
    table.upsert(_rows(3), checkpoint_identifier="another-job")  # no checkpoint: skipped
    assert table.clean({"hoodie.clean.commits.retained": "1"}) is not None
    assert table.latest_checkpoint() == "kafka:0:120"
    services = {i.action.value for i in table.timeline.completed()}
    assert {"commit", "replacecommit", "clean"} <= services


def test_options_under_the_commit_metadata_prefix_go_into_the_commit(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    options = {"hoodie.table.name": "cp", "hoodie.datasource.write.recordkey.field": "id", "_job_run": "r-1"}
    write_hudi(path, _rows(1), options)
    base = {k: v for k, v in options.items() if k != "_job_run"}
    write_hudi(path, _rows(2), {**base, "hoodie.datasource.write.commitmeta.key.prefix": "x_", "x_run": "r-2"})
    table = HudiTable(path)
    first, second = (table.timeline.commit_metadata(i).extra_metadata for i in table.timeline.completed_data_instants())
    assert first["_job_run"] == "r-1"
    assert second["x_run"] == "r-2"
    with pytest.raises(HudiConfigError, match="unknown option _job_run"):  # not under this write's prefix
        write_hudi(path, _rows(3), {**options, "hoodie.datasource.write.commitmeta.key.prefix": "x_"})
    with pytest.raises(HudiConfigError, match=r"commitmeta\.key\.prefix"):
        write_hudi(path, _rows(3), {**options, "hoodie.datasource.write.commitmeta.key.prefix": ""})


def test_the_last_sink_batch_of_each_streaming_writer(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    options = {"hoodie.table.name": "cp", "hoodie.datasource.write.recordkey.field": "id"}
    storage = Storage(path)
    write_hudi(path, _rows(1), {**options, SINK_CHECKPOINT_KEY: json.dumps({"a": "3"})})
    write_hudi(path, _rows(2), {**options, SINK_CHECKPOINT_KEY: json.dumps({"b": "7"})})
    write_hudi(path, _rows(3), options)  # another writer
    state = load_table_state(storage)
    assert (latest_sink_batch(storage, state, "a"), latest_sink_batch(storage, state, "b")) == (3, 7)
    assert latest_sink_batch(storage, state, "c") is None
    write_hudi(path, _rows(4), {**options, SINK_CHECKPOINT_KEY: "not json"})
    with pytest.raises(FileFormatError, match=SINK_CHECKPOINT_KEY):
        latest_sink_batch(storage, load_table_state(storage), "a")
