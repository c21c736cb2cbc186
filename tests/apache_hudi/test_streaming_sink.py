"""Streams handed over between Apache Hudi's Spark streaming sink and `hudi_core.spark.write_stream`.

Both record each micro-batch's id in its commit (`_hudi_streaming_sink_checkpoint`, per writer
identifier). Apache Hudi's sink writes batches 0 and 1; our stream over the same files, started
from a fresh Spark checkpoint, skips those two and commits batch 2; Apache Hudi's sink, again from
a fresh checkpoint over one more file, skips 0 to 2 and commits batch 3. Every reader sees each row
once, and the table's rows are the model's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable
from hudi_core import spark as hudi_spark
from hudi_core.config.write import SINK_CHECKPOINT_KEY
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.apache_hudi.tables import writer_options
from tests.model import canonical, table_rows

pytestmark = pytest.mark.apache_hudi

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("ts", pa.int64()), ("city", pa.string())])
COLUMNS = SCHEMA.names
IDENTIFIER = "trips_stream"


def _batch(number: int) -> pa.Table:
    ids = list(range(number * 10, number * 10 + 15))  # each batch updates 5 rows of the one before
    return pa.table(
        {
            "id": ids,
            "v": [f"b{number}-{i}" for i in ids],
            "ts": [number] * len(ids),
            "city": [["sf", "nyc"][i % 2] for i in ids],
        },
        schema=SCHEMA,
    )


def _model(batches: int) -> list[tuple[Any, ...]]:
    latest: dict[int, dict[str, Any]] = {}
    for number in range(batches):
        latest.update({row["id"]: row for row in _batch(number).to_pylist()})
    return canonical(table_rows(pa.Table.from_pylist(list(latest.values()), schema=SCHEMA), COLUMNS))


def _sink_batches(path: Path) -> list[dict[str, str]]:
    timeline = HudiTable(str(path)).timeline
    return [
        json.loads(timeline.commit_metadata(i).extra_metadata[SINK_CHECKPOINT_KEY])
        for i in timeline.completed_data_instants()
        if SINK_CHECKPOINT_KEY in timeline.commit_metadata(i).extra_metadata
    ]


def test_a_stream_moves_between_apache_hudis_sink_and_ours(
    apache_hudi: ApacheHudi, local_spark: Any, tmp_path: Path
) -> None:
    spark = local_spark  # the hand-over, not distribution: no cluster on the Apache Hudi worker
    source, path = tmp_path / "in", tmp_path / "table"
    source.mkdir()
    options = {
        **writer_options("streamed", "MERGE_ON_READ"),
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.datasource.write.streaming.checkpoint.identifier": IDENTIFIER,
        "hoodie.write.table.version": "8",
    }
    for number in range(2):
        pq.write_table(_batch(number), source / f"part-{number}.parquet")
    assert apache_hudi.write_stream(path, source, options, tmp_path / "apache-chk-1") == [0, 1]
    assert _sink_batches(path) == [{IDENTIFIER: "0"}, {IDENTIFIER: "1"}]

    pq.write_table(_batch(2), source / "part-2.parquet")
    schema = spark.read.parquet(str(source)).schema
    stream = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(source))
    ours = {k: v for k, v in options.items() if k != "hoodie.write.table.version"}
    query = hudi_spark.write_stream(stream, str(path), ours, str(tmp_path / "our-chk"), {"availableNow": True})
    query.awaitTermination()
    assert [p["batchId"] for p in query.recentProgress] == [0, 1, 2]
    assert _sink_batches(path) == [{IDENTIFIER: "0"}, {IDENTIFIER: "1"}, {IDENTIFIER: "2"}]
    assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == _model(3)

    pq.write_table(_batch(3), source / "part-3.parquet")
    assert apache_hudi.write_stream(path, source, options, tmp_path / "apache-chk-2") == [0, 1, 2, 3]
    assert _sink_batches(path)[-1] == {IDENTIFIER: "3"}
    assert len(_sink_batches(path)) == 4  # batches 0 to 2 were skipped, not written again
    expected = _model(4)
    assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == expected
    assert canonical(table_rows(apache_hudi.read(path), COLUMNS)) == expected
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected
