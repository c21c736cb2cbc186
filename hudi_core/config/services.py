"""Table service options: compaction, log compaction, clustering, cleaning, archival.

Keys and defaults are Hudi 1.0.2's (`HoodieCompactionConfig`, `HoodieClusteringConfig`,
`HoodieCleanConfig`, `HoodieArchivalConfig`); 0.x spellings are accepted as aliases.
"""

from __future__ import annotations

import enum

from hudi_core.config import (
    HudiConfigs,
    OptionStatus,
    enum_parser,
    int_at_least,
    java_class_parser,
    one_of,
    option,
    parse_bool,
    parse_str,
    relation,
    warn_once,
)
from hudi_core.config.write import HudiIndexConfig
from hudi_core.errors import HudiConfigError


class LayoutStrategy(enum.Enum):
    LINEAR = "linear"
    ZORDER = "z-order"
    HILBERT = "hilbert"


def parse_layout_strategy(raw: str) -> LayoutStrategy:
    value = raw.strip().lower().replace("_", "-")
    aliases = {"zorder": "z-order", "z": "z-order"}
    try:
        return LayoutStrategy(aliases.get(value, value))
    except ValueError:
        raise HudiConfigError(f"unknown layout optimization strategy {raw!r}: use linear, z-order or hilbert") from None


class CompactionTrigger(enum.Enum):
    NUM_COMMITS = "NUM_COMMITS"
    NUM_COMMITS_AFTER_LAST_REQUEST = "NUM_COMMITS_AFTER_LAST_REQUEST"
    TIME_ELAPSED = "TIME_ELAPSED"
    NUM_OR_TIME = "NUM_OR_TIME"
    NUM_AND_TIME = "NUM_AND_TIME"


class CompactionStrategy(enum.Enum):
    """`hoodie.compaction.strategy` classes this build runs (by simple class name)."""

    LOG_FILE_SIZE_BASED = "LogFileSizeBasedCompactionStrategy"
    LOG_FILE_NUM_BASED = "LogFileNumBasedCompactionStrategy"
    BOUNDED_IO = "BoundedIOCompactionStrategy"
    UNBOUNDED = "UnBoundedCompactionStrategy"


_STRATEGY_PACKAGE = "org.apache.hudi.table.action.compact.strategy."


class CleaningPolicy(enum.Enum):
    KEEP_LATEST_COMMITS = "KEEP_LATEST_COMMITS"
    KEEP_LATEST_FILE_VERSIONS = "KEEP_LATEST_FILE_VERSIONS"
    KEEP_LATEST_BY_HOURS = "KEEP_LATEST_BY_HOURS"


def _parse_layout(raw: str) -> str:
    parse_layout_strategy(raw)  # refuses names that are not linear, z-order or hilbert
    return raw


_REJECT_UPDATES = "SparkRejectUpdateStrategy"


def _parse_updates_strategy(raw: str) -> str:
    if raw.strip().rsplit(".", 1)[-1] != _REJECT_UPDATES:
        raise ValueError(f"only org.apache.hudi.client.clustering.update.strategy.{_REJECT_UPDATES} is supported")
    return raw.strip()


class HudiCompactionConfig:
    """Compaction and log compaction of Merge-on-Read tables."""

    INLINE = option("hoodie.compact.inline", parse_bool, False, "Compact right after a write once the trigger is met.")
    SCHEDULE_INLINE = option(
        "hoodie.compact.schedule.inline",
        parse_bool,
        False,
        "Schedule (not run) a compaction right after a write once the trigger is met.",
    )
    MAX_DELTA_COMMITS = option(
        "hoodie.compact.inline.max.delta.commits",
        int_at_least(1),
        5,
        "Deltacommits since the last compaction that trigger one.",
    )
    MAX_DELTA_SECONDS = option(
        "hoodie.compact.inline.max.delta.seconds",
        int_at_least(1),
        3600,
        "Seconds since the last compaction that trigger one.",
    )
    TRIGGER_STRATEGY = option(
        "hoodie.compact.inline.trigger.strategy",
        enum_parser(CompactionTrigger),
        CompactionTrigger.NUM_COMMITS,
        "NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST, TIME_ELAPSED, NUM_OR_TIME or NUM_AND_TIME.",
    )
    STRATEGY = option(
        "hoodie.compaction.strategy",
        java_class_parser(CompactionStrategy, _STRATEGY_PACKAGE, "compaction strategy"),
        CompactionStrategy.LOG_FILE_SIZE_BASED,
        "Which slices a plan compacts: LogFileSizeBased (largest logs first, bounded IO), LogFileNumBased, "
        "BoundedIO or UnBounded.",
    )
    TARGET_IO_MB = option(
        "hoodie.compaction.target.io", int_at_least(1), 512000, "IO budget (MB) of one plan for bounded strategies."
    )
    LOG_FILE_SIZE_THRESHOLD = option(
        "hoodie.compaction.logfile.size.threshold",
        int_at_least(0),
        0,
        "LogFileSizeBased: only slices whose logs total at least this many bytes.",
    )
    LOG_FILE_NUM_THRESHOLD = option(
        "hoodie.compaction.logfile.num.threshold",
        int_at_least(0),
        0,
        "LogFileNumBased: only slices with at least this many log files.",
    )
    LOG_COMPACTION_ENABLE = option(
        "hoodie.log.compaction.enable", parse_bool, False, "Allow log compaction of Merge-on-Read slices."
    )
    LOG_COMPACTION_INLINE = option(
        "hoodie.log.compaction.inline", parse_bool, False, "Log-compact right after a write once the trigger is met."
    )
    LOG_COMPACTION_BLOCKS_THRESHOLD = option(
        "hoodie.log.compaction.blocks.threshold",
        int_at_least(1),
        5,
        "Log compaction only merges slices with at least this many log blocks.",
    )


class HudiClusteringConfig:
    """Clustering: rewriting small files into fewer, sorted ones."""

    INLINE = option(
        "hoodie.clustering.inline",
        parse_bool,
        False,
        "Cluster right after a write once triggered.",
        aliases=("hoodie.datasource.clustering.inline.enable",),
    )
    INLINE_MAX_COMMITS = option(
        "hoodie.clustering.inline.max.commits",
        int_at_least(1),
        4,
        "Commits since the last clustering that trigger one.",
    )
    SCHEDULE_INLINE = option(
        "hoodie.clustering.schedule.inline", parse_bool, False, "Schedule (not run) clustering after a write."
    )
    SMALL_FILE_LIMIT = option(
        "hoodie.clustering.plan.strategy.small.file.limit",
        int_at_least(0),
        314572800,
        "Base files smaller than this many bytes are clustered.",
    )
    MAX_BYTES_PER_GROUP = option(
        "hoodie.clustering.plan.strategy.max.bytes.per.group",
        int_at_least(1),
        2147483648,
        "Input bytes of one clustering group.",
    )
    TARGET_FILE_MAX_BYTES = option(
        "hoodie.clustering.plan.strategy.target.file.max.bytes",
        int_at_least(1),
        1073741824,
        "Size of the files clustering writes.",
    )
    MAX_NUM_GROUPS = option(
        "hoodie.clustering.plan.strategy.max.num.groups", int_at_least(1), 30, "Groups in one clustering plan."
    )
    SINGLE_GROUP = option(
        "hoodie.clustering.plan.strategy.single.group.clustering.enabled",
        parse_bool,
        True,
        "Also plan groups of a single file (to sort it).",
    )
    SORT_COLUMNS = option(
        "hoodie.clustering.plan.strategy.sort.columns",
        parse_str,
        None,
        "Columns the rewritten files are ordered by (comma separated).",
    )
    PARTITIONS_SELECTED = option(
        "hoodie.clustering.plan.strategy.partition.selected",
        parse_str,
        None,
        "Only these partitions (comma separated).",
    )
    PARTITION_REGEX = option(
        "hoodie.clustering.plan.strategy.partition.regex.pattern",
        parse_str,
        None,
        "Only partitions matching this regular expression.",
    )
    LAYOUT_STRATEGY = option(
        "hoodie.layout.optimize.strategy",
        _parse_layout,
        "LINEAR",
        "How rows are ordered by the sort columns: LINEAR, ZORDER (z-order) or HILBERT.",
    )
    CURVE_BUILD_METHOD = option(
        "hoodie.layout.optimize.curve.build.method",
        one_of("DIRECT", "SAMPLE"),
        "DIRECT",
        "Accepted (DIRECT or SAMPLE); curves are always built from value ranks here, like SAMPLE.",
    )
    PRESERVE_COMMIT_METADATA = option(
        "hoodie.clustering.preserve.commit.metadata",
        parse_bool,
        True,
        "Rewritten records keep their commit time and sequence number.",
    )
    UPDATES_STRATEGY = option(
        "hoodie.clustering.updates.strategy",
        _parse_updates_strategy,
        "org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy",
        "Updates to file groups under pending clustering are rejected (the only strategy here).",
    )


class HudiCleanConfig:
    """Cleaning: deleting file slices no query needs any more."""

    AUTOMATIC = option("hoodie.clean.automatic", parse_bool, True, "Clean right after every write.")
    POLICY = option(
        "hoodie.clean.policy",
        enum_parser(CleaningPolicy),
        CleaningPolicy.KEEP_LATEST_COMMITS,
        "KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS.",
        aliases=("hoodie.cleaner.policy",),
    )
    COMMITS_RETAINED = option(
        "hoodie.clean.commits.retained",
        int_at_least(1),
        10,
        "KEEP_LATEST_COMMITS: the last N commits stay readable (time travel, incremental).",
        aliases=("hoodie.cleaner.commits.retained",),
    )
    FILE_VERSIONS_RETAINED = option(
        "hoodie.clean.fileversions.retained",
        int_at_least(1),
        3,
        "KEEP_LATEST_FILE_VERSIONS: slices kept per file group.",
        aliases=("hoodie.cleaner.fileversions.retained",),
    )
    HOURS_RETAINED = option(
        "hoodie.clean.hours.retained",
        int_at_least(1),
        24,
        "KEEP_LATEST_BY_HOURS: commits of the last N hours stay readable.",
        aliases=("hoodie.cleaner.hours.retained",),
    )
    MAX_COMMITS = option(
        "hoodie.clean.trigger.max.commits",
        int_at_least(1),
        1,
        "Completed commits since the last clean before another one is planned.",
        aliases=("hoodie.clean.max.commits", "hoodie.cleaner.trigger.max.commits"),
    )
    TRIGGER_STRATEGY = option(
        "hoodie.clean.trigger.strategy",
        one_of("NUM_COMMITS"),
        "NUM_COMMITS",
        "NUM_COMMITS (the only strategy).",
        aliases=("hoodie.cleaner.trigger.strategy",),
    )
    INCREMENTAL = option(
        "hoodie.clean.incremental.enabled",
        parse_bool,
        True,
        "Accepted; every partition is examined (same result, more listing).",
        aliases=("hoodie.cleaner.incremental.mode",),
        status=OptionStatus.IGNORED,
    )
    ASYNC = option(
        "hoodie.clean.async.enabled",
        parse_bool,
        False,
        "Cleaning runs inline after the write here.",
        aliases=("hoodie.clean.async",),
        status=OptionStatus.IGNORED,
    )


class HudiArchivalConfig:
    """Archival of old instants into the LSM timeline history."""

    AUTOMATIC = option("hoodie.archive.automatic", parse_bool, True, "Archive right after every write.")
    MIN_COMMITS = option(
        "hoodie.keep.min.commits", int_at_least(1), 20, "Completed commits archival leaves on the active timeline."
    )
    MAX_COMMITS = option(
        "hoodie.keep.max.commits", int_at_least(1), 30, "Archival runs once more completed commits than this exist."
    )
    BEYOND_SAVEPOINT = option(
        "hoodie.archive.beyond.savepoint",
        parse_bool,
        False,
        "Archive past the earliest savepoint (savepointed commits themselves stay).",
    )
    LSM_COMPACTION_BATCH = option(
        "hoodie.timeline.compaction.batch.size",
        int_at_least(2),  # merging a single file into the next layer rewrites it for nothing
        10,
        "LSM history files of one layer merged into the next.",
    )


@relation
def _archival_outlasts_cleaning(configs: HudiConfigs) -> None:
    """Hudi's `HoodieWriteConfig.Builder.validate`: with KEEP_LATEST_COMMITS, archival keeps a range of
    commits (min below max). When `hoodie.keep.min.commits` is not above the commits the cleaner
    retains, Hudi only warns: its archiver (and this one) raises the minimum itself."""
    if configs.value(HudiCleanConfig.POLICY) is not CleaningPolicy.KEEP_LATEST_COMMITS:
        return
    low, high = configs.value(HudiArchivalConfig.MIN_COMMITS), configs.value(HudiArchivalConfig.MAX_COMMITS)
    retained = configs.value(HudiCleanConfig.COMMITS_RETAINED)
    if low <= retained:
        warn_once(
            f"{HudiArchivalConfig.MIN_COMMITS.key}={low}<={retained}",
            f"{HudiArchivalConfig.MIN_COMMITS.key}={low} is not greater than {HudiCleanConfig.COMMITS_RETAINED.key}="
            f"{retained}: archival keeps the commits the cleaner retains regardless",
        )
    if high <= low:
        raise HudiConfigError(
            f"{HudiArchivalConfig.MAX_COMMITS.key}={high} must be greater than "
            f"{HudiArchivalConfig.MIN_COMMITS.key}={low}"
        )


@relation
def _inline_compaction_runs_or_schedules(configs: HudiConfigs) -> None:
    """Hudi's `HoodieWriteConfig.Builder.validate`: a write either compacts inline or only schedules."""
    if configs.value(HudiCompactionConfig.INLINE) and configs.value(HudiCompactionConfig.SCHEDULE_INLINE):
        raise HudiConfigError(
            f"{HudiCompactionConfig.INLINE.key} and {HudiCompactionConfig.SCHEDULE_INLINE.key} cannot both be true: "
            "a write either compacts inline or only schedules the compaction"
        )


def refuse_bucket_index_clustering(configs: HudiConfigs, what: str) -> None:
    """Hudi refuses clustering under the simple bucket index (`HoodieSimpleBucketLayout` supports no
    CLUSTER operation): a bucket's file group must keep its bucket's id, which clustering replaces."""
    if configs.value(HudiIndexConfig.INDEX_TYPE) == "BUCKET":
        raise HudiConfigError(
            f"{what} is not supported with {HudiIndexConfig.INDEX_TYPE.key}=BUCKET: the bucket index's file "
            "groups are its buckets, which clustering would rewrite into file groups of no bucket"
        )


@relation
def _no_inline_clustering_under_the_bucket_index(configs: HudiConfigs) -> None:
    for inline in (HudiClusteringConfig.INLINE, HudiClusteringConfig.SCHEDULE_INLINE):
        if configs.value(inline):
            refuse_bucket_index_clustering(configs, f"{inline.key}=true")
