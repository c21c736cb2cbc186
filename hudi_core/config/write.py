"""Write options under the names of Hudi's Spark datasource and `HoodieWriteConfig`.

Defaults are Hudi 1.0.2's (`DataSourceWriteOptions`, `HoodieWriteConfig`, `HoodieStorageConfig`,
`HoodieCompactionConfig` file sizing), except where a doc string says otherwise.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Final

from hudi_core.config import (
    ConfigOption,
    OptionStatus,
    always_passed,
    enum_parser,
    fraction_between,
    ignore_prefix,
    int_at_least,
    one_of,
    option,
    parse_bool,
    parse_list,
    parse_str,
    pass_through,
)
from hudi_core.config.table import (
    KEY_GENERATOR_CLASSES,
    PAYLOAD_MERGE_MODES,
    KeyGeneratorType,
    RecordMergeMode,
    TableType,
    parse_table_type,
)


def _non_empty(raw: str) -> str:
    if not raw:
        raise ValueError("must not be empty (every option would go into the commit metadata)")
    return raw


CONSISTENT_HASHING: Final = "CONSISTENT_HASHING"  # the bucket index engine of hash rings

# Bloom filter type codes Hudi writes in Parquet footers (`BloomFilterTypeCode`).
BLOOM_FILTER_TYPES: Final = ("DYNAMIC_V0", "SIMPLE")


class WriteOperation(enum.Enum):
    """Write operations, named as `hoodie.datasource.write.operation` takes them (features §1.1)."""

    UPSERT = "upsert"
    INSERT = "insert"
    BULK_INSERT = "bulk_insert"
    DELETE = "delete"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE_PARTITION = "delete_partition"

    @property
    def operation_type(self) -> str:
        """The `WriteOperationType` name recorded in commit metadata."""
        return self.name

    @property
    def replaces_file_groups(self) -> bool:
        return self in (
            WriteOperation.INSERT_OVERWRITE,
            WriteOperation.INSERT_OVERWRITE_TABLE,
            WriteOperation.DELETE_PARTITION,
        )

    @property
    def looks_up_index(self) -> bool:
        return self in (WriteOperation.UPSERT, WriteOperation.DELETE)


class InsertDupPolicy(enum.Enum):
    NONE = "none"
    DROP = "drop"
    FAIL = "fail"


class LogBlockFormat(enum.Enum):
    AVRO = "avro"
    PARQUET = "parquet"


class FailedWritesCleanPolicy(enum.Enum):
    EAGER = "EAGER"
    LAZY = "LAZY"
    NEVER = "NEVER"


# Table versions this library writes. Version 9 (Apache Hudi 1.1+) keeps version 8's data files and
# timeline; it differs in hoodie.properties and in the metadata table's record schema.
WRITABLE_TABLE_VERSIONS = (8, 9)


def _parse_table_version(raw: str) -> int:
    version = int(raw)
    if version not in WRITABLE_TABLE_VERSIONS:
        raise ValueError("new tables are created at table version 8 (default) or 9")
    return version


# Base file codecs (Parquet's names as pyarrow takes them); Hudi's `uncompressed` is pyarrow's `none`.
PARQUET_CODECS = ("gzip", "snappy", "zstd", "none")
# Our default, where Apache Hudi's is gzip: as small files at a quarter of the write time (see
# parquet_writer); every reader of Hudi tables (Apache Hudi, hudi-rs, Spark, Trino, DuckDB) reads zstd.
DEFAULT_PARQUET_CODEC = "zstd"


def _parse_codec(raw: str) -> str:
    value = raw.strip().lower()
    value = "none" if value == "uncompressed" else value
    if value not in PARQUET_CODECS:
        raise ValueError(f"expected one of {', '.join(PARQUET_CODECS)} (or uncompressed)")
    return value


def _known(names: Mapping[str, object], noun: str, instead: str) -> Callable[[str], str]:
    """Parser of a Java class name option: one of `names` (those this build has an equivalent of)."""

    def parse(raw: str) -> str:
        name = raw.strip()
        if name not in names:
            raise ValueError(
                f"{noun} {name} has no hudi_core equivalent (supported: {', '.join(sorted(names))}){instead}"
            )
        return name

    return parse


# As Apache Hudi's `HoodieHeartbeatClient`: "Cannot set heartbeat lower than 1 second".
MIN_HEARTBEAT_INTERVAL_MS = 1000


class HudiWriteConfig:
    """Options of a write."""

    OPERATION = option(
        "hoodie.datasource.write.operation",
        enum_parser(WriteOperation),  # unknown values are errors (Hudi once silently fell back to upsert)
        WriteOperation.UPSERT,
        "upsert (default), insert, bulk_insert, delete, insert_overwrite, insert_overwrite_table, delete_partition.",
    )
    TABLE_TYPE = option(
        "hoodie.datasource.write.table.type",
        parse_table_type,
        TableType.COPY_ON_WRITE,
        "Table type of a table created by the write (COPY_ON_WRITE or MERGE_ON_READ).",
        aliases=("hoodie.datasource.write.storage.type",),
    )
    RECORD_KEY_FIELD = option(
        "hoodie.datasource.write.recordkey.field", parse_list, None, "Record key field(s), comma-separated."
    )
    PARTITION_PATH_FIELD = option(
        "hoodie.datasource.write.partitionpath.field",
        parse_str,
        None,
        "Partition field(s), comma-separated; `field:simple|timestamp` for the custom key generator.",
    )
    PRECOMBINE_FIELD = option(
        "hoodie.datasource.write.precombine.field",
        parse_str,
        None,
        "Ordering field: the greater value wins (Hudi 1.0 key; one field on table version 8).",
    )
    KEY_GENERATOR_CLASS = option(
        "hoodie.datasource.write.keygenerator.class",
        _known(KEY_GENERATOR_CLASSES, "key generator class", ""),
        None,
        "Java key generator class; mapped to our key generators (SimpleKeyGenerator, ...).",
    )
    KEY_GENERATOR_TYPE = option(
        "hoodie.datasource.write.keygenerator.type",
        enum_parser(KeyGeneratorType),
        None,
        "Key generator type: SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM.",
    )
    PAYLOAD_CLASS = option(
        "hoodie.datasource.write.payload.class",
        _known(PAYLOAD_MERGE_MODES, "payload class", "; use hoodie.write.record.merge.mode"),
        None,
        "Legacy payload class; known payloads map to merge modes as RFC-97 does.",
    )
    RECORD_MERGE_MODE = option(
        "hoodie.write.record.merge.mode",
        enum_parser(RecordMergeMode),
        None,
        "EVENT_TIME_ORDERING or COMMIT_TIME_ORDERING (default: event time with an ordering field).",
    )
    INSERT_DUP_POLICY = option(
        "hoodie.datasource.insert.dup.policy",
        enum_parser(InsertDupPolicy),
        InsertDupPolicy.NONE,
        "insert: none keeps duplicates, drop skips keys already stored, fail raises DuplicateKeyError.",
    )
    COMBINE_BEFORE_INSERT = option(
        "hoodie.combine.before.insert", parse_bool, False, "De-duplicate an insert batch by key first."
    )
    COMBINE_BEFORE_UPSERT = option(
        "hoodie.combine.before.upsert", parse_bool, True, "De-duplicate an upsert batch by key first."
    )
    COMBINE_BEFORE_DELETE = option(
        "hoodie.combine.before.delete", parse_bool, True, "De-duplicate a delete batch by key first."
    )
    PARTITIONS_TO_DELETE = option(
        "hoodie.datasource.write.partitions.to.delete",
        parse_list,
        None,
        "delete_partition: the partition paths to drop, comma-separated (`*` wildcards allowed).",
    )
    PARQUET_MAX_FILE_SIZE = option(
        "hoodie.parquet.max.file.size", int_at_least(1), 125829120, "Target base file size in bytes."
    )
    PARQUET_SMALL_FILE_LIMIT = option(
        "hoodie.parquet.small.file.limit",
        int_at_least(0),
        104857600,
        "Base files at most this size receive inserts; 0 turns padding off.",
    )
    RECORD_SIZE_ESTIMATE = option(
        "hoodie.copyonwrite.record.size.estimate",
        int_at_least(1),
        1024,
        "Record size used for file sizing until commits record actual sizes.",
    )
    PARQUET_COMPRESSION = option(
        "hoodie.parquet.compression.codec",
        _parse_codec,
        DEFAULT_PARQUET_CODEC,
        "Base file codec: zstd (our default, level 1), gzip (Apache Hudi's default, level 6), snappy, "
        "uncompressed (or none).",
    )
    PARQUET_BLOCK_SIZE = option(
        "hoodie.parquet.block.size", int_at_least(1), 125829120, "Parquet row group size (bytes)."
    )
    PARQUET_PAGE_SIZE = option("hoodie.parquet.page.size", int_at_least(1), 1048576, "Parquet page size (bytes).")
    LOG_BLOCK_FORMAT = option(
        "hoodie.logfile.data.block.format",
        enum_parser(LogBlockFormat),
        LogBlockFormat.AVRO,
        "Data block format of Merge-on-Read log files: avro (default) or parquet.",
    )
    LOG_FILE_MAX_SIZE = option(
        "hoodie.logfile.max.size", int_at_least(1), 1073741824, "Log files roll over past this size."
    )
    WRITE_TABLE_VERSION = option(
        "hoodie.write.table.version", _parse_table_version, 8, "Version of a table a write creates (8 or 9)."
    )
    AUTO_UPGRADE = option(
        "hoodie.write.auto.upgrade",
        parse_bool,
        True,
        "The first write to a version-6 table upgrades it to version 8 (false: the write is refused).",
    )
    COMMIT_METADATA_KEY_PREFIX = pass_through(
        option(
            "hoodie.datasource.write.commitmeta.key.prefix",
            _non_empty,
            "_",
            "Options whose keys begin with this prefix are stored in the commit's extraMetadata as given "
            "(Apache Hudi's streaming sink records its batch id so, under _hudi_streaming_sink_checkpoint).",
        )
    )
    CHECKPOINT_IDENTIFIER = option(
        "hoodie.datasource.write.streaming.checkpoint.identifier",
        parse_str,
        None,
        "Names the writer whose checkpoint a commit records.",
    )
    HEARTBEAT_INTERVAL_MS = option(
        "hoodie.client.heartbeat.interval_in_ms",
        int_at_least(MIN_HEARTBEAT_INTERVAL_MS),
        60000,
        "How often a writer refreshes its heartbeat.",
    )
    HEARTBEAT_TOLERABLE_MISSES = option(
        "hoodie.client.heartbeat.tolerable.misses",
        int_at_least(1),  # 0 would let any writer roll back a live writer's instant at once
        2,
        "Missed heartbeats after which a writer counts as dead and its instant may be rolled back.",
    )
    FAILED_WRITES_CLEAN_POLICY = option(
        "hoodie.clean.failed.writes.policy",
        enum_parser(FailedWritesCleanPolicy),
        FailedWritesCleanPolicy.EAGER,
        "When failed writes are rolled back: EAGER (by the next writer, once the heartbeat expired) or LAZY "
        "(required by optimistic concurrency: by writers and clean, only once the heartbeat expired).",
        aliases=("hoodie.cleaner.policy.failed.writes",),
    )
    SCHEMA_ON_READ = option(
        "hoodie.schema.on.read.enable",
        parse_bool,
        False,
        "Schema-on-read evolution (column renames and drops) is not supported.",
        status=OptionStatus.UNSUPPORTED,
    )


class HudiIndexConfig:
    """Index options (`HoodieIndexConfig`)."""

    INDEX_TYPE: ConfigOption[str] = option(
        "hoodie.index.type",
        one_of("SIMPLE", "BLOOM", "BUCKET", "GLOBAL_SIMPLE", "GLOBAL_BLOOM", "RECORD_INDEX"),
        "SIMPLE",
        "SIMPLE (default), BLOOM, BUCKET, GLOBAL_SIMPLE, GLOBAL_BLOOM or RECORD_INDEX (metadata table).",
    )
    BUCKET_ENGINE = option(
        "hoodie.index.bucket.engine",
        one_of("SIMPLE", CONSISTENT_HASHING),
        "SIMPLE",
        "Bucket index engine: SIMPLE (bucket = hash % buckets) or CONSISTENT_HASHING (a hash ring per "
        "partition, Merge-on-Read only; resizing the rings is Apache Hudi's clustering).",
    )
    BUCKET_NUM = option("hoodie.bucket.index.num.buckets", int_at_least(1), 256, "Buckets per partition.")
    BUCKET_HASH_FIELD = option(
        "hoodie.bucket.index.hash.field", parse_str, None, "Fields hashed to a bucket (default: the record key)."
    )
    SIMPLE_UPDATE_PARTITION_PATH = option(
        "hoodie.simple.index.update.partition.path",
        parse_bool,
        True,
        "GLOBAL_SIMPLE: a record whose partition changed moves (delete in the old, insert in the new).",
    )
    BLOOM_UPDATE_PARTITION_PATH = option(
        "hoodie.bloom.index.update.partition.path",
        parse_bool,
        True,
        "GLOBAL_BLOOM: a record whose partition changed moves (delete in the old, insert in the new).",
    )
    BLOOM_FILTER_TYPE = option(
        "hoodie.bloom.index.filter.type",
        one_of(*BLOOM_FILTER_TYPES),
        "DYNAMIC_V0",
        "Bloom filter written to base file footers: DYNAMIC_V0 or SIMPLE.",
    )
    BLOOM_NUM_ENTRIES = option("hoodie.index.bloom.num_entries", int_at_least(1), 60000, "Bloom filter entries.")
    BLOOM_FPP = option(
        "hoodie.index.bloom.fpp", fraction_between(0.0, 1.0), 0.000000001, "Bloom filter false-positive rate."
    )
    BLOOM_DYNAMIC_MAX_ENTRIES = option(
        "hoodie.bloom.index.filter.dynamic.max.entries", int_at_least(1), 100000, "DYNAMIC_V0 filter growth limit."
    )
    BLOOM_PRUNE_BY_RANGES = option(
        "hoodie.bloom.index.prune.by.ranges", parse_bool, True, "Skip files whose key range excludes a key."
    )


class HudiKeyGenConfig:
    """Timestamp-based key generator options (`TimestampBasedAvroKeyGenerator`)."""

    TIMESTAMP_TYPE = option(
        "hoodie.keygen.timebased.timestamp.type",
        one_of("UNIX_TIMESTAMP", "EPOCHMILLISECONDS", "EPOCHMICROSECONDS", "DATE_STRING", "SCALAR", "MIXED"),
        None,
        "UNIX_TIMESTAMP, EPOCHMILLISECONDS, EPOCHMICROSECONDS, DATE_STRING or SCALAR.",
        aliases=("hoodie.deltastreamer.keygen.timebased.timestamp.type",),
    )
    INPUT_DATE_FORMAT = option(
        "hoodie.keygen.timebased.input.dateformat",
        parse_str,
        "",
        "Java date pattern(s) of DATE_STRING input.",
        aliases=("hoodie.deltastreamer.keygen.timebased.input.dateformat",),
    )
    OUTPUT_DATE_FORMAT = option(
        "hoodie.keygen.timebased.output.dateformat",
        parse_str,
        "",
        "Java date pattern of the partition path.",
        aliases=("hoodie.deltastreamer.keygen.timebased.output.dateformat",),
    )
    TIMEZONE = option(
        "hoodie.keygen.timebased.timezone",
        parse_str,
        "UTC",
        "Time zone of input and output.",
        aliases=("hoodie.deltastreamer.keygen.timebased.timezone",),
    )
    OUTPUT_TIMEZONE = option(
        "hoodie.keygen.timebased.output.timezone",
        parse_str,
        "UTC",
        "Time zone of the output format.",
        aliases=("hoodie.deltastreamer.keygen.timebased.output.timezone",),
    )
    INPUT_TIMEZONE = option(
        "hoodie.keygen.timebased.input.timezone",
        parse_str,
        "UTC",
        "Time zone of the input.",
        aliases=("hoodie.deltastreamer.keygen.timebased.input.timezone",),
    )
    SCALAR_UNIT = option(
        "hoodie.keygen.timebased.timestamp.scalar.time.unit",
        one_of("NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS"),
        "SECONDS",
        "Unit of SCALAR input.",
        aliases=("hoodie.deltastreamer.keygen.timebased.timestamp.scalar.time.unit",),
    )
    INPUT_DATE_FORMAT_DELIMITER = option(
        "hoodie.keygen.timebased.input.dateformat.list.delimiter.regex",
        parse_str,
        ",",
        "Separator of several input date patterns.",
        aliases=("hoodie.deltastreamer.keygen.timebased.input.dateformat.list.delimiter.regex",),
    )


ignore_prefix("hoodie.datasource.hive_sync.", "Hive/Glue catalog sync is out of scope")
ignore_prefix("hoodie.datasource.meta.sync.", "catalog sync is out of scope")
ignore_prefix("hoodie.meta.sync.", "catalog sync is out of scope")


# Where Spark streaming sinks record the last micro-batch they committed, {identifier: batch id}; in
# the commit's extraMetadata whatever hoodie.datasource.write.commitmeta.key.prefix is.
SINK_CHECKPOINT_KEY = always_passed("_hudi_streaming_sink_checkpoint")
