"""`df.write.format("hudi")`: bulk_insert and insert (append), insert_overwrite_table (overwrite).

A Python data source writer sees each task's rows unshuffled, so it can only write operations that
need no lookup of stored keys: every task writes its rows into new file groups. Upserts and deletes
through it would be wrong and are refused with an error naming `hudi_core.spark.write`.

Processes: the writer object is built in a Python worker on the driver host, which requests the
instant (under the table lock) before any task runs; tasks on executors write file groups with the
shared `write_file_group` and keep the instant's heartbeat fresh; `commit` runs in another driver
worker and completes the instant with the tasks' write stats, then runs the inline table services;
`abort` rolls the instant back. Nothing is held in memory across these processes: the instant, the
write context and the replaced file groups travel with the pickled writer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.write import HudiWriteConfig, InsertDupPolicy
from hudi_core.engine.spark.tasks import task_identity
from hudi_core.engine.spark.types import arrow_schema
from hudi_core.errors import HudiConfigError
from hudi_core.hudi_table import table_for_write
from hudi_core.lifecycle.heartbeat import touch_heartbeat
from hudi_core.lifecycle.markers import IOType
from hudi_core.schema.arrow_avro import table_avro_schema
from hudi_core.services.base import ServiceContext
from hudi_core.services.inline import run_inline_services
from hudi_core.storage import Storage
from hudi_core.sync import sync_after_commit
from hudi_core.table.listing import latest_slices
from hudi_core.timeline.commit_metadata import WriteStat
from hudi_core.write.client import WriteClient, current_data_schema, write_context
from hudi_core.write.decisions import sizing
from hudi_core.write.handles import FileGroupWrite, write_file_group
from hudi_core.write.operation import WriteOperation
from hudi_core.write.planner import new_file_id
from hudi_core.write.prepare import PARTITION, prepare_batch

APPEND_OPERATIONS = (WriteOperation.BULK_INSERT, WriteOperation.INSERT)


@dataclass
class StatsMessage(WriterCommitMessage):
    """What one task wrote: its write stats as JSON records."""

    stats: list[str]


class HudiSourceWriter(DataSourceArrowWriter):
    def __init__(self, options: dict[str, str], schema: StructType, overwrite: bool) -> None:
        path = options.get("path")
        if not path:
            raise HudiConfigError('df.write.format("hudi") needs a path: .save(path)')
        opts = {k: v for k, v in options.items() if k != "path"}
        validate_options(opts)
        configs = HudiConfigs(opts)
        if overwrite:
            operation = WriteOperation.INSERT_OVERWRITE_TABLE
        else:
            operation = configs.value(HudiWriteConfig.OPERATION)
            if operation not in APPEND_OPERATIONS:
                raise HudiConfigError(
                    f'df.write.format("hudi") cannot run {operation.value}: a data source writer gets unshuffled '
                    "rows, so updates and deletes would be wrong. Use hudi_core.spark.write(df, path, options), or "
                    f"set {HudiWriteConfig.OPERATION.key}=bulk_insert or insert (mode append), or mode overwrite."
                )
            if operation is WriteOperation.INSERT and configs.value(HudiWriteConfig.INSERT_DUP_POLICY) is not (
                InsertDupPolicy.NONE
            ):
                raise HudiConfigError(
                    f"{HudiWriteConfig.INSERT_DUP_POLICY.key} needs a lookup of stored keys: use hudi_core.spark.write"
                )
        incoming = arrow_schema(schema)
        with table_for_write(path, incoming, opts) as table:
            client = WriteClient(table.storage, opts)
            state = table.planner.state()
            settings = client.settings(state)
            self.replaced = (
                {
                    p: [s.file_id for s in group]
                    for p, group in latest_slices(table.storage, state.timeline).items()
                    if group
                }
                if overwrite
                else None
            )
            table_schema = current_data_schema(state.timeline, settings.config)
            sample = prepare_batch(
                incoming.empty_table(), operation, table_schema, settings.keygen, settings.ordering, False, False
            )
            self.inflight = client.start(operation)
        self.path = path
        self.options = opts
        self.operation = operation
        self.table_schema = table_schema
        self.schema = sample.schema
        self.keygen = settings.keygen
        self.ordering = settings.ordering
        self.records_per_file = sizing(configs, state.timeline, pad=False).records_per_file
        avro = table_avro_schema(sample.schema, settings.config.name)
        self.context = replace(
            write_context(table.storage, self.inflight.requested_time, sample.schema, avro, settings.config, configs),
            inflight_file=state.timeline.instant_path(self.inflight),
        )

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        storage = Storage(self.path)
        instant = self.inflight.requested_time
        touch_heartbeat(storage, instant)
        number, token = task_identity()
        batches = [b for b in iterator if b.num_rows]
        if not batches:
            return StatsMessage([])
        data = pa.Table.from_batches(batches)
        prepared = prepare_batch(data, self.operation, self.table_schema, self.keygen, self.ordering, False, False)
        rows = prepared.rows
        stats = []
        for partition in sorted(set(rows.column(PARTITION).to_pylist())):
            here = rows.filter(pc.equal(rows.column(PARTITION), partition))
            for start in range(0, here.num_rows, self.records_per_file):
                chunk = here.slice(start, self.records_per_file)
                group = FileGroupWrite(partition, new_file_id(), IOType.CREATE, number, chunk, token=token)
                stats.append(json.dumps(write_file_group(self.context, group).to_record()))
                touch_heartbeat(storage, instant)
        return StatsMessage(stats)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        stats = [
            WriteStat.from_dict(json.loads(record), "")
            for message in messages
            if isinstance(message, StatsMessage)
            for record in message.stats
        ]
        storage = Storage(self.path)
        client = WriteClient(storage, self.options)
        client.finish(self.operation, self.inflight, stats, self.schema, self.replaced)
        run_inline_services(ServiceContext(storage, self.options))
        sync_after_commit(storage, self.options, self.inflight.requested_time)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        WriteClient(Storage(self.path), self.options).abort(self.inflight, self.operation)
