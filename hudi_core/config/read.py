"""Read options, under the names of Hudi's Spark datasource (`DataSourceReadOptions`)."""

from __future__ import annotations

import enum

from hudi_core.config import OptionStatus, enum_parser, int_at_least, option, parse_bool, parse_str


class QueryType(enum.Enum):
    SNAPSHOT = "snapshot"
    READ_OPTIMIZED = "read_optimized"
    INCREMENTAL = "incremental"


class IncrementalFormat(enum.Enum):
    LATEST_STATE = "latest_state"
    CDC = "cdc"


class HudiReadConfig:
    """Options a reader accepts in `HudiTable.read(options=...)` and `spark.read.format("hudi")`."""

    QUERY_TYPE = option(
        "hoodie.datasource.query.type",
        enum_parser(QueryType),
        QueryType.SNAPSHOT,
        "snapshot (default), read_optimized (base files only) or incremental.",
    )
    BEGIN_INSTANT_TIME = option(
        "hoodie.datasource.read.begin.instanttime",
        parse_str,
        None,
        "Incremental start (exclusive), compared with completion times on table v8+; 'earliest' allowed.",
    )
    END_INSTANT_TIME = option(
        "hoodie.datasource.read.end.instanttime",
        parse_str,
        None,
        "Incremental end (inclusive); defaults to the latest completed instant.",
    )
    AS_OF_INSTANT = option(
        "as.of.instant",
        parse_str,
        None,
        "Time travel: the table as of this instant (17/14 digits, 'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd').",
        aliases=("hoodie.datasource.read.as.of.instant",),
    )
    INCREMENTAL_FORMAT = option(
        "hoodie.datasource.query.incremental.format",
        enum_parser(IncrementalFormat),
        IncrementalFormat.LATEST_STATE,
        "latest_state (default) or cdc.",
    )
    INCREMENTAL_FALLBACK_FULL_SCAN = option(
        "hoodie.datasource.read.incr.fallback.fulltablescan.enable",
        parse_bool,
        False,
        "When instants of an incremental window were archived or cleaned, scan the table instead of failing. "
        "Default false: fail fast rather than silently scan the whole table (Hudi 1.1 defaults to true).",
    )
    EXTRACT_PARTITION_VALUES_FROM_PATH = option(
        "hoodie.datasource.read.extract.partition.values.from.path",
        parse_bool,
        False,
        "Partition columns are always read from the data files here.",
        status=OptionStatus.IGNORED,
    )
    INCREMENTAL_PATH_GLOB = option(
        "hoodie.datasource.read.incr.path.glob",
        parse_str,
        None,
        "Path globs for incremental reads are not implemented; use filters on partition columns.",
        status=OptionStatus.UNSUPPORTED,
    )
    STREAMING_START_OFFSET = option(
        "hoodie.datasource.streaming.startOffset",
        parse_str,
        "earliest",
        "Where a new streaming read starts: earliest, latest, or after a completion time (instant time on v6).",
    )
    STREAMING_MAX_COMMITS = option(
        "hoodie.datasource.streaming.max.commits.per.trigger",
        int_at_least(1),
        None,
        "Streaming reads: at most this many commits per micro-batch (default: all available).",
    )
    STREAMING_MAX_ROWS = option(
        "hoodie.datasource.streaming.max.rows.per.trigger",
        int_at_least(1),
        None,
        "Streaming reads: whole commits up to about this many changed rows per micro-batch (at least one commit).",
    )
