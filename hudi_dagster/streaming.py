"""A Dagster face for continuous ingestion: an asset that runs a bounded Structured Streaming job
from a Hudi table into another (`trigger(availableNow=True)`), resuming from its Spark checkpoint.

Each run processes whatever the source committed since the last run, in micro-batches (one commit
each, exactly once across restarts: `hudi_core.spark.write_stream`), then stops. A run that found
nothing new records an observation instead of a materialization.
"""

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import dagster as dg

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_dagster import metadata as md
from hudi_dagster.config import HudiTableConfig, WriteMode
from hudi_dagster.factories import AssetSettings, pool_for
from hudi_dagster.resource import spark_session_of

StreamTransform = Callable[[dg.AssetExecutionContext, Any], Any]


def _commits(path: str) -> list[str]:
    if not table_exists(path):
        return []
    return [i.requested_time for i in HudiTable(path).timeline.completed_data_instants()]


def hudi_streaming_asset(
    *,
    name: str,
    source: dg.AssetKey | str,
    source_path: str,
    target: HudiTableConfig,
    checkpoint_location: str,
    transform: StreamTransform | None = None,
    mode: WriteMode = WriteMode.UPSERT,
    read_options: dict[str, str] | None = None,
    key_prefix: Sequence[str] | None = None,
    group_name: str | None = None,
    settings: AssetSettings | None = None,
) -> dg.AssetsDefinition:
    """An asset streaming `source_path`'s new commits into `target` until caught up (needs the
    `spark` resource).

    Args:
        checkpoint_location: Spark's checkpoint of the query (keep it with the target table).
        transform: `(context, streaming DataFrame) -> streaming DataFrame` applied before writing.
        read_options: options of `spark.readStream.format("hudi")` (start offset, rate limits, CDC).
    """
    key = dg.AssetKey([*(key_prefix or []), name])
    upstream = dg.AssetKey.from_coercible(source)
    chosen = settings or AssetSettings()

    @chosen.window_asset(
        key=key,
        deps=[upstream],
        pool=pool_for(target),
        group_name=group_name,
        description=f"Streams {upstream.to_user_string()}'s new commits into {target.path} (available-now)",
        metadata={
            "dagster/uri": target.path,
            md.SOURCE_KEY: source_path,
            "hudi/checkpoint_location": checkpoint_location,
        },
        kinds={"hudi", "spark"},
        spark=True,
    )
    def _stream(context: dg.AssetExecutionContext) -> Iterator[dg.MaterializeResult[Any] | dg.AssetObservation]:
        from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark is the `spark` extra

        session = spark_session_of(context.resources.spark)
        before = _commits(target.path)
        frame = session.readStream.format("hudi").options(**(read_options or {})).load(source_path)
        if transform is not None:
            frame = transform(context, frame)
        options = md.with_run_id(context, target.write_options(mode))
        query = hudi_spark.write_stream(
            frame, target.path, options, checkpoint_location, trigger={"availableNow": True}, query_name=name
        )
        query.awaitTermination()
        written = [c for c in _commits(target.path) if c not in set(before)]
        context.log.info(f"{len(written)} micro-batch commit(s) into {target.path}")
        if not written:
            yield dg.AssetObservation(asset_key=key, metadata={"hudi/new_commits": 0, md.SOURCE_KEY: source_path})
            return
        rows = md.table_row_count(target.path)
        table = HudiTable(target.path)
        yield dg.MaterializeResult(
            metadata={
                "dagster/uri": dg.MetadataValue.path(target.path),
                "dagster/table_name": key.to_user_string(),
                "dagster/column_schema": md.column_schema(table.schema),
                "dagster/row_count": rows,
                md.COMMIT_INSTANT_KEY: written[-1],
                "hudi/micro_batch_commits": len(written),
            },
            data_version=dg.DataVersion(written[-1]),
        )

    return _stream
