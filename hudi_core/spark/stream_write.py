"""Streaming writes: each micro-batch of a Structured Streaming query as one Hudi commit.

`write_stream(df, path, options, checkpoint_location=...)` runs every micro-batch through
`hudi_core.spark.write` on `foreachBatch` (any operation: upserts shuffle and look up keys on the
executors), and records the batch id in the commit's extraMetadata under
`_hudi_streaming_sink_checkpoint` as `{identifier: batch id}`, the way Apache Hudi's streaming sink
does (identifier: `hoodie.datasource.write.streaming.checkpoint.identifier`, default
`default_single_writer`). The batch id commits atomically with the data, so a micro-batch Spark
replays after a crash (committed to the table, not yet to the query's checkpoint) is skipped: each
batch is written exactly once. A stream Apache Hudi's sink wrote can be continued by this one, and
the other way round.

`df.writeStream.format("hudi")` (`HudiStreamSinkWriter`) refuses to start: PySpark builds one
streaming writer per query, with no step per micro-batch before its tasks run (a commit's instant
must exist before its files are written), and commits in a Python worker without a SparkSession,
so it could at best append each task's rows unshuffled. Use `write_stream`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.streaming.query import StreamingQuery

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.write import SINK_CHECKPOINT_KEY, HudiWriteConfig
from hudi_core.errors import HudiConfigError, TableNotFoundError
from hudi_core.spark.write import write
from hudi_core.storage import Storage
from hudi_core.table.checkpoint import latest_sink_batch
from hudi_core.table.state import load_table_state

logger = logging.getLogger(__name__)

DEFAULT_IDENTIFIER = "default_single_writer"  # Apache Hudi's default identifier


def write_stream(
    df: DataFrame,
    path: str,
    options: Mapping[str, str],
    checkpoint_location: str,
    trigger: Mapping[str, Any] | None = None,
    query_name: str | None = None,
) -> StreamingQuery:
    """Starts a streaming query writing each micro-batch of `df` to the table at `path`.

    Args:
        df: a streaming DataFrame (`spark.readStream...`).
        path: the table's base path.
        options: Hudi write options, as for `hudi_core.spark.write` (operation default upsert).
        checkpoint_location: where Spark keeps the query's offsets (`checkpointLocation`).
        trigger: keyword arguments of `DataStreamWriter.trigger` (`{"availableNow": True}`,
            `{"processingTime": "10 seconds"}`); default: micro-batches as fast as data comes.
        query_name: the query's name in the Spark UI.
    """
    if not df.isStreaming:
        raise HudiConfigError("write_stream needs a streaming DataFrame; write a batch DataFrame with write()")
    opts = dict(options)
    validate_options(opts)
    if SINK_CHECKPOINT_KEY in opts:
        raise HudiConfigError(f"{SINK_CHECKPOINT_KEY} is set by write_stream for each micro-batch")
    identifier = HudiConfigs(opts).get(HudiWriteConfig.CHECKPOINT_IDENTIFIER) or DEFAULT_IDENTIFIER

    def write_batch(batch: DataFrame, batch_id: int) -> None:
        write_micro_batch(batch, batch_id, path, opts, identifier)

    writer = df.writeStream.foreachBatch(write_batch).option("checkpointLocation", checkpoint_location)
    if trigger:
        writer = writer.trigger(**trigger)
    if query_name:
        writer = writer.queryName(query_name)
    return writer.start()


def write_micro_batch(batch: DataFrame, batch_id: int, path: str, options: dict[str, str], identifier: str) -> None:
    """Writes one micro-batch as one commit, unless the table already holds it."""
    committed = last_committed_batch(path, identifier)
    if committed is not None and committed >= batch_id:
        logger.warning(
            "skipping micro-batch %d of %s: the table already holds batch %d of writer %r",
            batch_id,
            path,
            committed,
            identifier,
        )
        return
    write(batch, path, {**options, SINK_CHECKPOINT_KEY: json.dumps({identifier: str(batch_id)})})


def last_committed_batch(path: str, identifier: str) -> int | None:
    """The last micro-batch the writer `identifier` committed to the table at `path` (None: none, or no table)."""
    storage = Storage(path)
    try:
        state = load_table_state(storage)
    except TableNotFoundError:
        return None
    return latest_sink_batch(storage, state, identifier)


class HudiStreamSinkWriter(DataSourceStreamArrowWriter):
    """`df.writeStream.format("hudi")`: refused, naming `write_stream` (see the module docstring)."""

    def __init__(self) -> None:
        raise HudiConfigError(
            'df.writeStream.format("hudi") is not supported (PySpark\'s streaming writer has no per-batch step '
            "before its tasks and no SparkSession to shuffle): use hudi_core.spark.write_stream(df, path, options, "
            "checkpoint_location=...), which commits each micro-batch exactly once with Apache Hudi's sink checkpoint"
        )

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:  # pragma: no cover - refused
        raise NotImplementedError
