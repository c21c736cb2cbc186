"""`spark.readStream.format("hudi").load(path)`: a table's commits as a stream.

An offset is `{"completion_time": t}`: the stream has delivered every data commit completed up to
`t` ("earliest": none yet). A micro-batch from `start` to `end` is the incremental query (start,
end] (a CDC query with `hoodie.datasource.query.type=incremental` and
`hoodie.datasource.query.incremental.format=cdc`), planned by the same planner as batch reads.
Spark records the offsets in the query's checkpoint, so a restarted query resumes after the last
micro-batch it committed and delivers each commit once. Completion times order commits as they
became visible, so a commit that started early and finished late is not skipped (on version-6
tables, ordered by instant time, the stream waits for pending writes; see
`hudi_core.table.checkpoint.commits_after`). Table services bring no new rows and are not
commits of the stream.

A stream whose next commits were archived reads them from the archived timeline; when the
cleaner already deleted the files they wrote, the micro-batch fails naming
`hoodie.datasource.read.incr.fallback.fulltablescan.enable`, which reads them from the latest
snapshot instead.

The reader object lives in one Python worker on the driver for the whole query (offsets,
planning); `read` runs in executor tasks and only reads the planned split.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow

from hudi_core.config import HudiConfigs
from hudi_core.config.read import HudiReadConfig, QueryType
from hudi_core.errors import HudiConfigError
from hudi_core.hudi_table import HudiTable
from hudi_core.spark import splits
from hudi_core.spark.splits import SplitSizing
from hudi_core.table.checkpoint import commits_after
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant, normalize_instant_time

EARLIEST = "earliest"
_OFFSET = "completion_time"
_STREAMING_OPTIONS = (
    HudiReadConfig.STREAMING_START_OFFSET.key,
    HudiReadConfig.STREAMING_MAX_COMMITS.key,
    HudiReadConfig.STREAMING_MAX_ROWS.key,
)


class HudiStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batches of the commits completed since the last offset (see the module docstring)."""

    def __init__(self, path: str, options: dict[str, str], schema: pa.Schema, sizing: SplitSizing) -> None:
        self._path = path
        self._sizing = sizing
        self._options = options
        self._schema = schema
        configs = HudiConfigs(options)
        query_type = configs.get(HudiReadConfig.QUERY_TYPE)
        if query_type not in (None, QueryType.SNAPSHOT, QueryType.INCREMENTAL):
            raise HudiConfigError(f"a streaming read is incremental; {HudiReadConfig.QUERY_TYPE.key}={query_type}")
        for window in (HudiReadConfig.BEGIN_INSTANT_TIME, HudiReadConfig.END_INSTANT_TIME):
            if configs.contains(window):
                raise HudiConfigError(
                    f"a streaming read sets its own window: use {HudiReadConfig.STREAMING_START_OFFSET.key} "
                    f"instead of {window.key}"
                )
        self._start = configs.value(HudiReadConfig.STREAMING_START_OFFSET)
        self._max_commits = configs.get(HudiReadConfig.STREAMING_MAX_COMMITS)
        self._max_rows = configs.get(HudiReadConfig.STREAMING_MAX_ROWS)
        self._until: str | None = None  # Trigger.AvailableNow: the offset of the data there was at its start
        if self._start.lower() not in (EARLIEST, "latest"):
            self._start = normalize_instant_time(self._start, HudiReadConfig.STREAMING_START_OFFSET.key)

    def initialOffset(self) -> dict[str, str]:  # noqa: N802 - PySpark's name
        if self._start.lower() == EARLIEST:
            return _offset(EARLIEST)
        if self._start.lower() == "latest":
            timeline = self._timeline()
            commits = commits_after(timeline, None)
            return _offset(timeline.completion_order_key(commits[-1]) if commits else EARLIEST)
        return _offset(self._start)

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802 - PySpark's name
        if self._max_commits is None and self._max_rows is None:
            return ReadAllAvailable()
        # PySpark passes only its own limits; the commit limit applies whenever a limit is passed.
        return ReadMaxRows(self._max_rows or 2**62)

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802 - PySpark's name
        timeline = self._timeline()
        commits = commits_after(timeline, None)
        self._until = timeline.completion_order_key(commits[-1]) if commits else EARLIEST

    def latestOffset(self, start: dict[str, str], limit: ReadLimit) -> dict[str, str]:  # noqa: N802 - PySpark's name
        timeline = self._timeline()
        commits = commits_after(timeline, _after(start))
        order = timeline.completion_order_key
        if self._until is not None:
            commits = [c for c in commits if self._until != EARLIEST and order(c) <= self._until]
        if not isinstance(limit, ReadAllAvailable):
            commits = self._admitted(timeline, commits, limit)
        return _offset(order(commits[-1])) if commits else start

    def _admitted(self, timeline: Timeline, commits: list[Instant], limit: ReadLimit) -> list[Instant]:
        """The first commits within the limits (always at least one, so a large commit still passes)."""
        if self._max_commits is not None:
            commits = commits[: self._max_commits]
        if not isinstance(limit, ReadMaxRows):
            return commits
        admitted: list[Instant] = []
        rows = 0
        for commit in commits:
            stats = timeline.commit_metadata(commit).write_stats()
            rows += sum(s.num_inserts + s.num_update_writes + s.num_deletes for s in stats)
            if admitted and rows > limit.max_rows:
                break
            admitted.append(commit)
        return admitted

    def partitions(self, start: dict[str, str], end: dict[str, str]) -> Sequence[InputPartition]:
        if start[_OFFSET] == end[_OFFSET]:
            return []
        options = {
            **{k: v for k, v in splits.hudi_read_options(self._options).items() if k not in _STREAMING_OPTIONS},
            HudiReadConfig.QUERY_TYPE.key: QueryType.INCREMENTAL.value,
            HudiReadConfig.BEGIN_INSTANT_TIME.key: start[_OFFSET],
            HudiReadConfig.END_INSTANT_TIME.key: end[_OFFSET],
        }
        planner = HudiTable(self._path).planner
        if planner.is_cdc_query(options):
            first, last = planner.cdc_window(options)
            return [splits.CommitSplit(c.requested_time) for c in splits.cdc_reader(planner).commits(first, last)]
        return splits.plan_splits(planner.plan(options=options), self._sizing)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        yield from splits.read_partition(self._path, partition, self._schema)

    def _timeline(self) -> Timeline:
        return HudiTable(self._path).planner.state().timeline


def _offset(completion_time: str) -> dict[str, str]:
    return {_OFFSET: completion_time}


def _after(offset: dict[str, str]) -> str | None:
    value = offset[_OFFSET]
    return None if value == EARLIEST else value
