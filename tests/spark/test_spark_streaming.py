"""Structured Streaming on the standalone cluster: `spark.readStream.format("hudi")` delivers each commit
once across restarts, and `hudi_core.spark.write_stream` commits each micro-batch exactly once, also
when its driver (its own `local[1]` application) is killed mid-batch or between a commit and Spark's
checkpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable
from hudi_core.lifecycle.crash import ENV_VAR
from hudi_core.spark.stream_write import last_committed_batch
from tests.model import canonical, table_rows
from tests.spark import class_archive

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
MANUAL = {"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false", "hoodie.compact.inline": "false"}
WRITE_OPTIONS = {
    "hoodie.table.name": "sink",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table(
        {"id": ids, "v": [f"v{ts}-{i}" for i in ids], "ts": [ts] * len(ids), "p": [f"p{i % 3}" for i in ids]},
        schema=SCHEMA,
    )


def _collect_batches(spark: Any, path: Path, checkpoint: Path, out: Path, options: dict[str, str]) -> int:
    """Runs a streaming read of `path` to its end (Trigger.AvailableNow), each micro-batch's rows saved
    under `out`; the number of micro-batches that read rows."""
    stream = spark.readStream.format("hudi").options(**options).load(str(path))
    ran: list[int] = []

    def save(batch: Any, batch_id: int) -> None:
        if not batch.isEmpty():  # Spark runs a query's first micro-batch even when it has no data
            batch.write.mode("overwrite").parquet(str(out / f"batch-{batch_id}"))
            ran.append(batch_id)

    query = stream.writeStream.foreachBatch(save).option("checkpointLocation", str(checkpoint))
    query.trigger(availableNow=True).start().awaitTermination()
    return len(ran)


def _delivered(out: Path) -> pa.Table:
    return pa.concat_tables([pq.read_table(batch) for batch in sorted(out.glob("batch-*"))])


def test_a_streaming_read_restarted_from_its_checkpoint_sees_every_commit_once(spark: Any, tmp_path: Path) -> None:
    table_type = "MERGE_ON_READ"  # its logs merge in the read; a compaction runs between the two runs
    source = HudiTable.create(str(tmp_path / "src"), SCHEMA, "src", ["id"], ["p"], ["ts"], table_type, MANUAL)
    source.bulk_insert(_rows(list(range(60)), 1))
    source.upsert(_rows(list(range(40, 80)), 2))
    out, checkpoint = tmp_path / "out", tmp_path / "chk"
    one_commit_per_batch = {"hoodie.datasource.streaming.max.commits.per.trigger": "1"}
    assert _collect_batches(spark, tmp_path / "src", checkpoint, out, one_commit_per_batch) == 2

    source.upsert(_rows(list(range(70, 90)), 3))
    assert source.compact() is not None  # a table service: no commit of the stream
    assert _collect_batches(spark, tmp_path / "src", checkpoint, out, one_commit_per_batch) == 1
    assert _collect_batches(spark, tmp_path / "src", checkpoint, out, {}) == 0  # nothing new

    delivered = _delivered(out)
    timeline = source.timeline
    commits = [i for i in timeline.completed_data_instants() if not timeline.is_table_service(i)]
    expected = []
    start = "earliest"
    for commit in sorted(commits, key=timeline.completion_order_key):
        end = timeline.completion_order_key(commit)
        expected.append(source.read_incremental(start, end))
        start = end
    assert [len(t) for t in expected] == [60, 40, 20]
    assert canonical(table_rows(delivered, META + COLUMNS)) == canonical(
        table_rows(pa.concat_tables(expected), META + COLUMNS)
    )
    assert not [k for k, n in Counter(delivered.column("_hoodie_commit_seqno").to_pylist()).items() if n > 1]


def test_streaming_read_start_offsets_rate_limit_and_cdc(spark: Any, tmp_path: Path) -> None:
    options = {**MANUAL, "hoodie.table.cdc.enabled": "true"}
    source = HudiTable.create(str(tmp_path / "src"), SCHEMA, "src", ["id"], ["p"], ["ts"], "COPY_ON_WRITE", options)
    source.bulk_insert(_rows(list(range(30)), 1))
    first = source.timeline.completed_data_instants()[-1]
    source.upsert(_rows(list(range(20, 40)), 2))
    source.delete(_rows([0, 1], 3))

    latest = _collect_batches(
        spark, tmp_path / "src", tmp_path / "c1", tmp_path / "o1", {"hoodie.datasource.streaming.startOffset": "latest"}
    )
    assert latest == 0
    after_first = {"hoodie.datasource.streaming.startOffset": str(first.completion_time)}
    assert _collect_batches(spark, tmp_path / "src", tmp_path / "c2", tmp_path / "o2", after_first) == 1
    assert set(_delivered(tmp_path / "o2").column("id").to_pylist()) == set(range(20, 40))

    # 30, then 20 + 2 changed rows: the first commit alone, the next two together (the delete reads no rows).
    rows_limited = {"hoodie.datasource.streaming.max.rows.per.trigger": "25"}
    assert _collect_batches(spark, tmp_path / "src", tmp_path / "c3", tmp_path / "o3", rows_limited) == 2
    sizes = [pq.read_table(b).num_rows for b in sorted((tmp_path / "o3").glob("batch-*"))]
    assert sizes == [30, 20]

    cdc = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc"}
    assert _collect_batches(spark, tmp_path / "src", tmp_path / "c4", tmp_path / "o4", cdc) == 1
    changes = Counter(_delivered(tmp_path / "o4").column("op").to_pylist())
    assert changes == {"i": 40, "u": 10, "d": 2}


def test_a_streaming_read_whose_next_commits_were_cleaned_fails_clearly(spark: Any, tmp_path: Path) -> None:
    cleaning = {"hoodie.clean.commits.retained": "1", "hoodie.archive.automatic": "false"}
    source = HudiTable.create(str(tmp_path / "src"), SCHEMA, "src", ["id"], [], ["ts"], "COPY_ON_WRITE", cleaning)
    source.bulk_insert(_rows(list(range(10)), 1))
    first = source.timeline.completed_data_instants()[-1]
    for ts in range(2, 5):
        source.upsert(_rows([1, 2], ts))
    # One commit per micro-batch: the first window ends at a file version the cleaner deleted.
    start = {
        "hoodie.datasource.streaming.startOffset": str(first.completion_time),
        "hoodie.datasource.streaming.max.commits.per.trigger": "1",
    }
    with pytest.raises(Exception, match=r"hoodie\.datasource\.read\.incr\.fallback\.fulltablescan\.enable"):
        _collect_batches(spark, tmp_path / "src", tmp_path / "c1", tmp_path / "o1", start)
    fallback = {**start, "hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"}
    assert _collect_batches(spark, tmp_path / "src", tmp_path / "c2", tmp_path / "o2", fallback) >= 1
    delivered = _delivered(tmp_path / "o2")
    assert sorted(set(delivered.column("id").to_pylist())) == [1, 2]


def _source_files(folder: Path, batches: list[pa.Table]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, batch in enumerate(batches):
        pq.write_table(batch, folder / f"part-{number:03d}.parquet")


def _stream_job(source: Path, table: Path, checkpoint: Path, crash_at: str | None) -> int:
    """Runs `tests.spark.stream_job` as its own Spark application (`local[1]`: the driver is what
    is killed, so it needs no workers); its exit code."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop(ENV_VAR, None)
    if crash_at is not None:
        env[ENV_VAR] = crash_at
    options = json.dumps({**WRITE_OPTIONS, "hoodie.datasource.write.operation": "bulk_insert"})
    command = [sys.executable, "-m", "tests.spark.stream_job", "local[1]", str(source), str(table), str(checkpoint)]
    conf = json.dumps(class_archive.session_conf())
    done = subprocess.run(
        [*command, options, conf], check=False, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    if crash_at is None and done.returncode != 0:
        raise AssertionError(f"stream job failed:\n{done.stderr[-4000:]}")
    return done.returncode


def test_a_streaming_write_killed_and_restarted_writes_every_row_exactly_once(tmp_path: Path) -> None:
    batches = [_rows(list(range(n * 50, n * 50 + 50)), n) for n in range(3)]
    _source_files(tmp_path / "in", batches)
    table, checkpoint = tmp_path / "t", tmp_path / "chk"
    # bulk_insert never merges: a batch written twice would show every row twice.
    # Killed mid-batch (its instant inflight): the restart rolls it back and writes the batch again.
    assert _stream_job(tmp_path / "in", table, checkpoint, "write.after_inflight") == -9
    # Killed after the batch committed to the table, before Spark's checkpoint recorded it: the
    # restart replays the batch, and the sink checkpoint in the commit makes it skip.
    assert _stream_job(tmp_path / "in", table, checkpoint, "write.after_complete") == -9
    _stream_job(tmp_path / "in", table, checkpoint, None)
    written = HudiTable(str(table))
    rows = written.read()
    assert canonical(table_rows(rows, COLUMNS)) == canonical(table_rows(pa.concat_tables(batches), COLUMNS))
    timeline = written.timeline
    sink_batches = [
        timeline.commit_metadata(i).sink_batch("default_single_writer") for i in timeline.completed_data_instants()
    ]
    assert sink_batches == [0, 1, 2]
    assert last_committed_batch(str(table), "default_single_writer") == 2
    assert not [i for i in timeline.instants() if not i.is_completed]


def test_a_writestream_format_hudi_sink_names_write_stream(spark: Any, tmp_path: Path) -> None:
    _source_files(tmp_path / "in", [_rows([1, 2], 1)])
    schema = spark.read.parquet(str(tmp_path / "in")).schema
    stream = spark.readStream.schema(schema).parquet(str(tmp_path / "in"))
    with pytest.raises(Exception, match="write_stream"):
        writer = stream.writeStream.format("hudi").options(**WRITE_OPTIONS)
        writer.option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True).start(
            str(tmp_path / "t")
        ).awaitTermination()
    assert not (tmp_path / "t" / ".hoodie").exists()
