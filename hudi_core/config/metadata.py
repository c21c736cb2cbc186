"""Metadata-table options (`HoodieMetadataConfig`), with Hudi 1.0's defaults."""

from __future__ import annotations

from hudi_core.config import ConfigOption, int_at_least, option, parse_bool, parse_list


class HudiMetadataConfig:
    ENABLE = option(
        "hoodie.metadata.enable",
        parse_bool,
        True,
        "Maintain the metadata table under .hoodie/metadata and list files through it. A writer with "
        "false deletes an existing metadata table, so no reader trusts a listing it stopped updating.",
    )
    COLUMN_STATS_ENABLE = option(
        "hoodie.metadata.index.column.stats.enable",
        parse_bool,
        False,
        "Keep per-file column statistics (`column_stats`); filtered reads skip files by them.",
    )
    COLUMN_STATS_COLUMNS: ConfigOption[list[str]] = option(
        "hoodie.metadata.index.column.stats.column.list",
        parse_list,
        [],
        "Columns whose statistics are kept (default: the meta columns and the first data columns).",
    )
    COLUMN_STATS_MAX_COLUMNS = option(
        "hoodie.metadata.index.column.stats.max.columns.to.index",
        int_at_least(1),
        32,
        "How many data columns get statistics when no column list is given.",
    )
    COLUMN_STATS_FILE_GROUPS = option(
        "hoodie.metadata.index.column.stats.file.group.count",
        int_at_least(1),
        2,
        "File groups of the column_stats partition.",
    )
    PARTITION_STATS_ENABLE = option(
        "hoodie.metadata.index.partition.stats.enable",
        parse_bool,
        False,
        "Keep per-partition column ranges (`partition_stats`); filtered reads skip partitions by them.",
    )
    PARTITION_STATS_FILE_GROUPS = option(
        "hoodie.metadata.index.partition.stats.file.group.count",
        int_at_least(1),
        1,
        "File groups of the partition_stats partition.",
    )
    BLOOM_FILTER_ENABLE = option(
        "hoodie.metadata.index.bloom.filter.enable",
        parse_bool,
        False,
        "Keep each base file's bloom filter (`bloom_filters`); the BLOOM index reads them instead of footers.",
    )
    BLOOM_FILTER_FILE_GROUPS = option(
        "hoodie.metadata.index.bloom.filter.file.group.count",
        int_at_least(1),
        4,
        "File groups of the bloom_filters partition.",
    )
    RECORD_INDEX_ENABLE = option(
        "hoodie.metadata.record.index.enable",
        parse_bool,
        False,
        "Keep record key -> file group (`record_index`), used by hoodie.index.type=RECORD_INDEX.",
    )
    RECORD_INDEX_MIN_FILE_GROUPS = option(
        "hoodie.metadata.record.index.min.filegroup.count",
        int_at_least(1),
        10,
        "Fewest file groups of the record_index partition.",
    )
    RECORD_INDEX_MAX_FILE_GROUPS = option(
        "hoodie.metadata.record.index.max.filegroup.count",
        int_at_least(1),
        10000,
        "Most file groups of the record_index partition.",
    )
    RECORD_INDEX_MAX_FILE_GROUP_SIZE = option(
        "hoodie.metadata.record.index.max.filegroup.size",
        int_at_least(1),
        1024 * 1024 * 1024,
        "Bytes of index entries per record_index file group when sizing it.",
    )
    COMPACT_MAX_DELTA_COMMITS = option(
        "hoodie.metadata.compact.max.delta.commits",
        int_at_least(1),
        10,
        "Compact the metadata table after this many deltacommits.",
    )
    CLEANER_COMMITS_RETAINED = option(
        "hoodie.metadata.cleaner.commits.retained",
        int_at_least(1),
        3,
        "Older metadata-table file slices are deleted once this many compactions are newer.",
    )
