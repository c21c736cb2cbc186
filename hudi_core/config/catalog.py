"""Catalog of every Apache Hudi 1.0.2 option key, so that no key Hudi knows is reported as unknown.

The family modules (`config/table.py`, `config/read.py`, `config/write.py`, ...) declare the options
this library implements, typed and validated. This module lists all of Hudi 1.0.2's keys with
Hudi's documented default and what this library does without a declaration, and
:func:`register_catalog` adds every key not already declared to the registry. A family declaration
always wins (about 180 catalog keys are declared today), so a key moves to IMPLEMENTED by being
declared in its family module, and its entry here says so (declared, with the declaration's
status, keeping Hudi's default);
`tests/hudi_core/config/test_catalog.py` checks that entries and declarations agree.

Source: the Hudi 1.0.2 configuration reference generated from Hudi's config classes,
`website/versioned_docs/version-1.0.2/configurations.md` (apache/hudi, stored at commit
77319a470269d4889fd911b8509cc9581d12bd8f, "last_modified_at: 2025-05-02"), every section read in
full. Defaults are recorded as that page prints them: a string, `""` for an empty default and
None for "(N/A)". The page lists a few keys in two sections with different defaults; a comment
at the entry gives the other value. Keys of the Flink SQL connector and of Kafka Connect that are not
spelled `hoodie.*` (`path`, `write.operation`, `bootstrap.servers`, ...) are left out: they are
engine table options, never Hudi writer options. `_LEGACY` and `_DELTASTREAMER` add the older
spellings Hudi still accepts as alternatives of a documented key (`hoodie.cleaner.*`,
`hoodie.deltastreamer.*`, `hoodie.datasource.view.type`, ...).

Status rules:

* IGNORED (accepted, warned about once): the writer and reader are correct without it. Parallelism,
  shuffle and executor tuning; Spark/Flink/JVM memory, spill maps, buffers and caches; metrics and
  reporters; commit callbacks; the embedded timeline server and remote file-system views;
  consistency guards and retries; metastore/catalog sync (Hive, Glue, BigQuery, DataHub,
  `hoodie.meta.sync.*`); Spark SQL-only, structured-streaming and row-writer switches; and the
  variants of implemented services this library does not offer (asynchronous services, early
  conflict detection, DynamoDB and Hive-metastore locks, ...), marked "not implemented yet".
* UNSUPPORTED (rejected with an error): a feature this library does not implement whose absence
  would silently change the data, the layout or the query results. Bootstrap, the HBase index,
  resizing consistent-hashing buckets, secondary and expression indexes, ORC base files, Hudi Streamer /
  DeltaStreamer / Kafka Connect options, pre-commit validators, partition TTL, Java class names
  (payloads, strategies, partitioners) that cannot run here, and table, key-generator and read
  semantics not implemented yet.

When in doubt, a key that changes what is stored or returned is UNSUPPORTED and a tuning or
operations knob is IGNORED.
"""

from __future__ import annotations

from typing import Final

from hudi_core.config import ConfigOption, OptionStatus, lookup, parse_str, register

CatalogEntry = tuple[str, str | None, OptionStatus, str]
"""(key, Hudi 1.0.2 default or None, status, reason)."""

_D: Final = OptionStatus.IMPLEMENTED
_I: Final = OptionStatus.IGNORED
_U: Final = OptionStatus.UNSUPPORTED

# A declaration in a family module stands for these keys (with its own status and reason); the entry
# records Hudi's default and the declaration's status.
_DECLARED: Final = "declared, typed and validated in its family module"

# ---- reasons: IGNORED -----------------------------------------------------------------------------
_LATER: Final = "not implemented yet; writes and reads are correct without it"
_PERF: Final = "parallelism or performance tuning of the Java engines; no effect on the data written"
_MEM: Final = "memory, spill-map or buffer sizing of the Java engines; no effect here"
_SIZING: Final = "file or block sizing hint; no effect on the data's contents"
_SPARK: Final = "Spark engine setting (caching, storage levels, file index); no effect here"
_SPARK_PARQUET: Final = "Spark Parquet writer setting; standard Parquet is always written"
_SQL: Final = "Spark SQL-only behaviour; no effect outside Spark SQL"
_STREAMING: Final = "Spark structured-streaming tuning of the Java sink and source; no effect on the data here"
_ROW_WRITER: Final = "Spark row-writer switch; no effect here"
_SYNC: Final = "metastore/catalog sync (Hive, Glue, BigQuery, DataHub) is out of scope; sync separately"
_AWS: Final = "AWS credentials and endpoints of sync and lock providers; not used"
_METRICS: Final = "metrics reporting is not implemented"
_CALLBACK: Final = "commit and client-init callbacks are not implemented"
_TIMELINE_SERVER: Final = "no embedded timeline server or remote file-system view; storage is listed directly"
_GUARD: Final = "storage consistency-guard or retry setting; not needed here"
_METASERVER_CONN: Final = "Hudi metaserver connection setting; the metaserver is not used"
_INTERNAL: Final = "internal flag of the Java engines; no effect here"
_TABLE_NAME_ALIAS: Final = "Spark datasource spelling of the table name; pass hoodie.table.name"
_BASE_PATH: Final = "the table path is passed to the reader and writer directly"
_BLOOM_ALWAYS: Final = "bloom filters are always written to base file footers"
_ENCODING: Final = "Parquet encoding choice of the Java writer; no effect on the data"
_HFILE: Final = "HFile sizing (HFile is only used inside the metadata table); not implemented yet"
_JAVA_IO: Final = "Java storage/IO implementation class; this library has its own storage layer"
_JAVA_NAMING: Final = "Java file-id prefix provider; file ids are random UUIDs here"
_JAVA_SIZING: Final = "Java sizing/statistics class; this library uses its own"
_VALIDATION: Final = "write schemas are always validated against the table schema"
_SERVICES: Final = (
    "a switch for all table services at once is not implemented; each service has its own inline or automatic "
    "option (hoodie.clean.automatic, hoodie.compact.inline, ...)"
)
_MARKERS: Final = "marker-file placement of the Java writer; not implemented yet"
_UPGRADE_CHECK: Final = "check for tables upgraded from before Hudi 0.12; not applicable"
_LOGGING: Final = "log-masking setting of the Hudi Streamer; no effect here"

# ---- reasons: UNSUPPORTED -------------------------------------------------------------------------
_LATER_DATA: Final = "not implemented yet; ignoring it would change the data, layout or query results"
_JAVA: Final = "takes Java class names, which cannot run here"
_ORDERING_FIELD: Final = "not implemented yet; set hoodie.datasource.write.precombine.field"
_BOOTSTRAP: Final = "bootstrapping existing tables is not supported"
_HBASE: Final = "the HBase index is not supported"
_CONSISTENT_HASHING: Final = "resizing consistent-hashing buckets (by clustering) is not supported"
_SECONDARY: Final = "secondary and expression indexes are not supported"
_ORC: Final = "ORC base files are not supported; base files are Parquet"
_BASE_FORMAT: Final = "only Parquet base files are written (see hoodie.table.base.file.format)"
_MULTI_FORMAT: Final = "tables mixing base file formats are not supported"
_TIMESTAMP_TYPE: Final = "not implemented yet; timestamps are written as TIMESTAMP_MICROS"
_STREAMER: Final = "Hudi Streamer (DeltaStreamer) source or ingestion option; not supported"
_KAFKA_CONNECT: Final = "Kafka Connect sink option; not supported"
_ERROR_TABLE: Final = "the Hudi Streamer error table is not supported"
_TTL: Final = "partition TTL management (deleting expired partitions) is not supported"
_LAYOUT: Final = "the storage layout follows the index type; custom layouts are not supported"
_VALIDATORS: Final = "pre-commit validators run Spark SQL and are not supported"
_TVF: Final = "Spark table-valued functions (file-system and timeline relations) are not supported"
_READ_PATHS: Final = "reading an explicit list of file paths is not supported"
_MERGE_TYPE: Final = "not implemented yet; snapshot reads always merge log records (payload_combine)"
_METASERVER: Final = "the Hudi metaserver (timeline kept outside storage) is not supported"
_AUTO_COMMIT: Final = "not implemented yet; every successful write commits"

_DOCUMENTED: Final[tuple[CatalogEntry, ...]] = (
    # ---- Hudi Table Config (hoodie.properties) -----------------------------------------------------
    ("hoodie.bootstrap.base.path", None, _U, _DECLARED),
    # Table config prints (N/A); Payload Configurations print this default.
    ("hoodie.compaction.payload.class", "org.apache.hudi.common.model.DefaultHoodieRecordPayload", _D, _DECLARED),
    ("hoodie.database.name", None, _D, _DECLARED),
    ("hoodie.record.merge.mode", None, _D, _DECLARED),
    ("hoodie.record.merge.strategy.id", None, _D, _DECLARED),
    ("hoodie.table.checksum", None, _D, _DECLARED),
    ("hoodie.table.create.schema", None, _D, _DECLARED),
    ("hoodie.table.index.defs.path", None, _D, _DECLARED),
    ("hoodie.table.keygenerator.class", None, _D, _DECLARED),
    ("hoodie.table.keygenerator.type", None, _D, _DECLARED),
    ("hoodie.table.metadata.partitions", None, _D, _DECLARED),
    ("hoodie.table.metadata.partitions.inflight", None, _D, _DECLARED),
    ("hoodie.table.name", None, _D, _DECLARED),
    ("hoodie.table.partition.fields", None, _D, _DECLARED),
    ("hoodie.table.precombine.field", None, _D, _DECLARED),
    ("hoodie.table.recordkey.fields", None, _D, _DECLARED),
    ("hoodie.table.secondary.indexes.metadata", None, _U, _SECONDARY),
    # Table property (N/A); Write Configurations print 2 for the writer's TIMELINE_LAYOUT_VERSION_NUM.
    ("hoodie.timeline.layout.version", None, _D, _DECLARED),
    ("hoodie.archivelog.folder", "archived", _D, _DECLARED),
    (
        "hoodie.bootstrap.index.class",
        "org.apache.hudi.common.bootstrap.index.hfile.HFileBootstrapIndex",
        _U,
        _BOOTSTRAP,
    ),
    ("hoodie.bootstrap.index.enable", "true", _U, _BOOTSTRAP),
    ("hoodie.bootstrap.index.type", "HFILE", _U, _BOOTSTRAP),
    ("hoodie.datasource.write.hive_style_partitioning", "false", _D, _DECLARED),
    ("hoodie.partition.metafile.use.base.format", "false", _D, _DECLARED),
    ("hoodie.populate.meta.fields", "true", _D, _DECLARED),
    ("hoodie.table.base.file.format", "PARQUET", _D, _DECLARED),
    ("hoodie.table.cdc.enabled", "false", _D, _DECLARED),
    ("hoodie.table.cdc.supplemental.logging.mode", "DATA_BEFORE_AFTER", _D, _DECLARED),
    ("hoodie.table.initial.version", "EIGHT", _D, _DECLARED),
    ("hoodie.table.log.file.format", "HOODIE_LOG", _D, _DECLARED),
    ("hoodie.table.multiple.base.file.formats.enable", "false", _U, _MULTI_FORMAT),
    ("hoodie.table.timeline.timezone", "LOCAL", _D, _DECLARED),
    ("hoodie.table.type", "COPY_ON_WRITE", _D, _DECLARED),
    ("hoodie.table.version", "EIGHT", _D, _DECLARED),
    ("hoodie.timeline.history.path", "history", _D, _DECLARED),
    ("hoodie.timeline.path", "timeline", _D, _DECLARED),
    ("hoodie.datasource.write.drop.partition.columns", "false", _D, _DECLARED),
    ("hoodie.datasource.write.partitionpath.urlencode", "false", _D, _DECLARED),
    # ---- Spark Datasource Configs: Read Options ----------------------------------------------------
    ("hoodie.datasource.read.begin.instanttime", None, _D, _DECLARED),
    ("hoodie.datasource.read.end.instanttime", None, _D, _DECLARED),
    ("hoodie.datasource.read.incr.table.version", None, _U, _LATER_DATA),
    ("hoodie.datasource.read.streaming.table.version", None, _I, _STREAMING),
    ("hoodie.datasource.write.precombine.field", None, _D, _DECLARED),
    ("hoodie.datasource.query.type", "snapshot", _D, _DECLARED),
    ("as.of.instant", None, _D, _DECLARED),
    ("hoodie.datasource.read.paths", None, _U, _READ_PATHS),
    ("hoodie.datasource.merge.type", "payload_combine", _U, _MERGE_TYPE),
    ("hoodie.datasource.query.incremental.format", "latest_state", _D, _DECLARED),
    ("hoodie.datasource.read.create.filesystem.relation", "false", _U, _TVF),
    ("hoodie.datasource.read.extract.partition.values.from.path", "false", _I, _DECLARED),
    ("hoodie.datasource.read.file.index.listing.mode", "lazy", _I, _PERF),
    ("hoodie.datasource.read.file.index.listing.partition-path-prefix.analysis.enabled", "true", _I, _PERF),
    ("hoodie.datasource.read.incr.fallback.fulltablescan.enable", "true", _D, _DECLARED),
    ("hoodie.datasource.read.incr.filters", "", _U, _LATER_DATA),
    ("hoodie.datasource.read.incr.path.glob", "", _U, _DECLARED),
    ("hoodie.datasource.read.incr.skip_cluster", "false", _U, _LATER_DATA),
    ("hoodie.datasource.read.incr.skip_compact", "false", _U, _LATER_DATA),
    ("hoodie.datasource.read.schema.use.end.instanttime", "false", _U, _LATER_DATA),
    ("hoodie.datasource.read.table.valued.function.filesystem.relation.subpath", "", _U, _TVF),
    ("hoodie.datasource.read.table.valued.function.timeline.relation", "false", _U, _TVF),
    ("hoodie.datasource.read.table.valued.function.timeline.relation.archived", "false", _U, _TVF),
    ("hoodie.datasource.streaming.startOffset", "earliest", _D, _DECLARED),
    ("hoodie.enable.data.skipping", "true", _I, _PERF),
    ("hoodie.file.index.enable", "true", _I, _SPARK),
    ("hoodie.read.timeline.holes.resolution.policy", "FAIL", _U, _LATER_DATA),
    ("hoodie.schema.on.read.enable", "false", _U, _DECLARED),
    # ---- Spark Datasource Configs: Write Options ---------------------------------------------------
    ("hoodie.datasource.hive_sync.mode", None, _D, _DECLARED),
    ("hoodie.datasource.write.partitionpath.field", None, _D, _DECLARED),
    ("hoodie.datasource.write.recordkey.field", None, _D, _DECLARED),
    ("hoodie.datasource.write.secondarykey.column", None, _U, _SECONDARY),
    ("hoodie.write.record.merge.mode", None, _D, _DECLARED),
    ("hoodie.clustering.async.enabled", "false", _I, _LATER),
    ("hoodie.clustering.inline", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.enable", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.jdbcurl", "jdbc:hive2://localhost:10000", _I, _SYNC),
    ("hoodie.datasource.hive_sync.metastore.uris", "thrift://localhost:9083", _D, _DECLARED),
    ("hoodie.datasource.meta.sync.enable", "false", _D, _DECLARED),
    ("hoodie.datasource.write.operation", "upsert", _D, _DECLARED),
    ("hoodie.datasource.write.table.type", "COPY_ON_WRITE", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.serde_properties", None, _D, _DECLARED),
    ("hoodie.datasource.hive_sync.table_properties", None, _D, _DECLARED),
    ("hoodie.datasource.overwrite.mode", None, _U, _LATER_DATA),
    ("hoodie.datasource.write.partitions.to.delete", None, _D, _DECLARED),
    ("hoodie.datasource.write.payload.class", None, _D, _DECLARED),
    ("hoodie.datasource.write.table.name", None, _I, _TABLE_NAME_ALIAS),
    ("hoodie.write.record.merge.custom.implementation.classes", None, _U, _JAVA),
    ("hoodie.write.record.merge.strategy.id", None, _U, _LATER_DATA),
    ("hoodie.datasource.compaction.async.enable", "true", _I, _LATER),
    ("hoodie.datasource.hive_sync.auto_create_database", "true", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.base_file_format", "PARQUET", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.batch_num", "1000", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.bucket_sync", "false", _I, _SYNC),
    ("hoodie.datasource.hive_sync.create_managed_table", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.database", "default", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.ignore_exceptions", "false", _D, _DECLARED),
    (
        "hoodie.datasource.hive_sync.partition_extractor_class",
        "org.apache.hudi.hive.MultiPartKeysValueExtractor",
        _D,
        _DECLARED,
    ),
    ("hoodie.datasource.hive_sync.partition_fields", "", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.password", "hive", _I, _SYNC),
    ("hoodie.datasource.hive_sync.skip_ro_suffix", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.support_timestamp", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.sync_as_datasource", "true", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.sync_comment", "false", _I, _SYNC),
    ("hoodie.datasource.hive_sync.table", "unknown", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.use_jdbc", "true", _I, _DECLARED),
    ("hoodie.datasource.hive_sync.use_pre_apache_input_format", "false", _I, _SYNC),
    ("hoodie.datasource.hive_sync.username", "hive", _I, _SYNC),
    ("hoodie.datasource.insert.dup.policy", "none", _D, _DECLARED),
    ("hoodie.datasource.meta_sync.condition.sync", "false", _I, _SYNC),
    ("hoodie.datasource.write.commitmeta.key.prefix", "_", _D, _DECLARED),
    ("hoodie.datasource.write.insert.drop.duplicates", "false", _U, _LATER_DATA),
    # Write Configurations print (N/A) for the same key.
    ("hoodie.datasource.write.keygenerator.class", "org.apache.hudi.keygen.SimpleKeyGenerator", _D, _DECLARED),
    ("hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled", "false", _U, _LATER_DATA),
    ("hoodie.datasource.write.reconcile.schema", "false", _U, _LATER_DATA),
    ("hoodie.datasource.write.row.writer.enable", "true", _I, _ROW_WRITER),
    ("hoodie.datasource.write.streaming.checkpoint.identifier", "default_single_writer", _D, _DECLARED),
    ("hoodie.datasource.write.streaming.disable.compaction", "false", _I, _STREAMING),
    ("hoodie.datasource.write.streaming.ignore.failed.batch", "false", _I, _STREAMING),
    ("hoodie.datasource.write.streaming.retry.count", "3", _I, _STREAMING),
    ("hoodie.datasource.write.streaming.retry.interval.ms", "2000", _I, _STREAMING),
    ("hoodie.meta.sync.client.tool.class", "org.apache.hudi.hive.HiveSyncTool", _D, _DECLARED),
    ("hoodie.spark.sql.insert.into.operation", "insert", _I, _SQL),
    ("hoodie.spark.sql.merge.into.partial.updates", "true", _I, _SQL),
    ("hoodie.spark.sql.optimized.writes.enable", "true", _I, _SQL),
    ("hoodie.sql.bulk.insert.enable", "false", _I, _SQL),
    ("hoodie.sql.insert.mode", "upsert", _I, _SQL),
    (
        "hoodie.streamer.source.kafka.value.deserializer.class",
        "io.confluent.kafka.serializers.KafkaAvroDeserializer",
        _U,
        _STREAMER,
    ),
    ("hoodie.write.set.null.for.missing.columns", "false", _U, _LATER_DATA),
    # ---- PreCommit Validator Configurations --------------------------------------------------------
    ("hoodie.precommit.validators", "", _U, _JAVA),
    ("hoodie.precommit.validators.equality.sql.queries", "", _U, _VALIDATORS),
    ("hoodie.precommit.validators.inequality.sql.queries", "", _U, _VALIDATORS),
    ("hoodie.precommit.validators.single.value.sql.queries", "", _U, _VALIDATORS),
    # ---- Flink Sql Configs: the Flink options spelled as hoodie.* keys -----------------------------
    # Flink options print "" and 4 buckets; the Index Configs (the Spark and Java writers) print these.
    ("hoodie.bucket.index.hash.field", None, _D, _DECLARED),
    ("hoodie.bucket.index.num.buckets", "256", _D, _DECLARED),
    ("hoodie.datasource.write.keygenerator.type", "SIMPLE", _D, _DECLARED),
    ("hoodie.index.bucket.engine", "SIMPLE", _D, _DECLARED),
    ("hoodie.write.table.version", "8", _D, _DECLARED),
    # ---- Write Client Configs: Common Configurations -----------------------------------------------
    ("hoodie.base.path", None, _I, _BASE_PATH),
    ("hoodie.memory.compaction.max.size", None, _I, _MEM),
    ("hoodie.common.diskmap.compression.enabled", "true", _I, _MEM),
    ("hoodie.common.spillable.diskmap.type", "BITCASK", _I, _MEM),
    ("hoodie.file.index.cache.spillable.mem", "524288000", _I, _MEM),
    ("hoodie.file.index.cache.use.spillable.map", "false", _I, _MEM),
    ("hoodie.fs.atomic_creation.support", "", _I, _LATER),
    ("hoodie.memory.dfs.buffer.max.size", "16777216", _I, _MEM),
    # ---- Memory Configurations ---------------------------------------------------------------------
    ("hoodie.memory.spillable.map.path", None, _I, _MEM),
    ("hoodie.memory.compaction.fraction", "0.6", _I, _MEM),
    ("hoodie.memory.merge.fraction", "0.6", _I, _MEM),
    ("hoodie.memory.merge.max.size", "1073741824", _I, _MEM),
    ("hoodie.memory.writestatus.failure.fraction", "0.1", _I, _SPARK),
    # ---- Metadata Configs --------------------------------------------------------------------------
    ("hoodie.index.name", None, _U, _SECONDARY),
    ("hoodie.metadata.index.drop", None, _U, _SECONDARY),
    ("hoodie.expression.index.type", "COLUMN_STATS", _U, _SECONDARY),
    ("hoodie.metadata.enable", "true", _D, _DECLARED),
    ("hoodie.metadata.index.bloom.filter.enable", "false", _D, _DECLARED),
    ("hoodie.metadata.index.column.stats.enable", "false", _D, _DECLARED),
    ("hoodie.metadata.index.expression.enable", "false", _U, _SECONDARY),
    ("hoodie.metadata.index.partition.stats.enable", "false", _D, _DECLARED),
    ("hoodie.metadata.index.secondary.enable", "true", _U, _SECONDARY),
    ("hoodie.metadata.index.bloom.filter.column.list", None, _I, _LATER),
    ("hoodie.metadata.index.column.stats.column.list", None, _D, _DECLARED),
    ("hoodie.metadata.index.column.stats.processing.mode.override", None, _I, _LATER),
    ("hoodie.metadata.index.expression.column", None, _U, _SECONDARY),
    ("hoodie.metadata.index.expression.options", None, _U, _SECONDARY),
    ("hoodie.metadata.index.secondary.column", None, _U, _SECONDARY),
    ("_hoodie.metadata.ignore.spurious.deletes", "true", _I, _INTERNAL),
    ("hoodie.file.listing.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.auto.initialize", "true", _I, _LATER),
    ("hoodie.metadata.compact.max.delta.commits", "10", _D, _DECLARED),
    ("hoodie.metadata.dir.filter.regex", "", _I, _LATER),
    ("hoodie.metadata.index.async", "false", _I, _LATER),
    ("hoodie.metadata.index.bloom.filter.file.group.count", "4", _D, _DECLARED),
    ("hoodie.metadata.index.bloom.filter.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.index.check.timeout.seconds", "900", _I, _LATER),
    ("hoodie.metadata.index.column.stats.file.group.count", "2", _D, _DECLARED),
    ("hoodie.metadata.index.column.stats.inMemory.projection.threshold", "100000", _I, _LATER),
    ("hoodie.metadata.index.column.stats.max.columns.to.index", "32", _D, _DECLARED),
    ("hoodie.metadata.index.column.stats.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.index.expression.file.group.count", "2", _I, _LATER),
    ("hoodie.metadata.index.expression.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.index.partition.stats.file.group.count", "1", _D, _DECLARED),
    ("hoodie.metadata.index.partition.stats.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.index.secondary.parallelism", "200", _I, _PERF),
    ("hoodie.metadata.log.compaction.blocks.threshold", "5", _I, _LATER),
    ("hoodie.metadata.log.compaction.enable", "false", _I, _LATER),
    ("hoodie.metadata.max.deltacommits.when_pending", "1000", _I, _LATER),
    ("hoodie.metadata.max.init.parallelism", "100000", _I, _PERF),
    ("hoodie.metadata.max.logfile.size", "2147483648", _I, _LATER),
    ("hoodie.metadata.max.reader.buffer.size", "10485760", _I, _MEM),
    ("hoodie.metadata.max.reader.memory", "1073741824", _I, _MEM),
    ("hoodie.metadata.metrics.enable", "false", _I, _METRICS),
    ("hoodie.metadata.optimized.log.blocks.scan.enable", "false", _I, _LATER),
    ("hoodie.metadata.record.index.enable", "false", _D, _DECLARED),
    ("hoodie.metadata.record.index.growth.factor", "2.0", _I, _LATER),
    ("hoodie.metadata.record.index.max.filegroup.count", "10000", _D, _DECLARED),
    ("hoodie.metadata.record.index.max.filegroup.size", "1073741824", _D, _DECLARED),
    ("hoodie.metadata.record.index.min.filegroup.count", "10", _D, _DECLARED),
    ("hoodie.metadata.spillable.map.path", "", _I, _MEM),
    # ---- Metaserver Configs ------------------------------------------------------------------------
    ("hoodie.metaserver.connect.retries", "3", _I, _METASERVER_CONN),
    ("hoodie.metaserver.connect.retry.delay", "1", _I, _METASERVER_CONN),
    ("hoodie.metaserver.enabled", "false", _U, _METASERVER),
    ("hoodie.metaserver.uris", "thrift://localhost:9090", _I, _METASERVER_CONN),
    # ---- Storage Configs ---------------------------------------------------------------------------
    ("hoodie.parquet.compression.codec", "gzip", _D, _DECLARED),
    ("hoodie.parquet.max.file.size", "125829120", _D, _DECLARED),
    ("hoodie.logfile.data.block.format", None, _D, _DECLARED),
    ("hoodie.parquet.writelegacyformat.enabled", None, _I, _SPARK_PARQUET),
    ("hoodie.avro.write.support.class", "org.apache.hudi.avro.HoodieAvroWriteSupport", _U, _JAVA),
    ("hoodie.bloom.index.filter.dynamic.max.entries", "100000", _D, _DECLARED),
    ("hoodie.bloom.index.filter.type", "DYNAMIC_V0", _D, _DECLARED),
    ("hoodie.hfile.block.size", "1048576", _I, _HFILE),
    ("hoodie.hfile.compression.algorithm", "GZ", _I, _HFILE),
    ("hoodie.hfile.max.file.size", "125829120", _I, _HFILE),
    ("hoodie.index.bloom.fpp", "0.000000001", _D, _DECLARED),
    ("hoodie.index.bloom.num_entries", "60000", _D, _DECLARED),
    ("hoodie.io.factory.class", "org.apache.hudi.io.hadoop.HoodieHadoopIOFactory", _I, _JAVA_IO),
    ("hoodie.logfile.data.block.max.size", "268435456", _I, _SIZING),
    ("hoodie.logfile.max.size", "1073741824", _D, _DECLARED),
    ("hoodie.logfile.to.parquet.compression.ratio", "0.35", _I, _SIZING),
    ("hoodie.orc.block.size", "125829120", _U, _ORC),
    ("hoodie.orc.compression.codec", "ZLIB", _U, _ORC),
    ("hoodie.orc.max.file.size", "125829120", _U, _ORC),
    ("hoodie.orc.stripe.size", "67108864", _U, _ORC),
    ("hoodie.parquet.block.size", "125829120", _D, _DECLARED),
    ("hoodie.parquet.bloom.filter.enabled", "true", _I, _BLOOM_ALWAYS),
    ("hoodie.parquet.compression.ratio", "0.1", _I, _SIZING),
    ("hoodie.parquet.dictionary.enabled", "true", _I, _ENCODING),
    ("hoodie.parquet.field_id.write.enabled", "true", _I, _SPARK_PARQUET),
    ("hoodie.parquet.outputtimestamptype", "TIMESTAMP_MICROS", _U, _TIMESTAMP_TYPE),
    ("hoodie.parquet.page.size", "1048576", _D, _DECLARED),
    (
        "hoodie.parquet.spark.row.write.support.class",
        "org.apache.hudi.io.storage.row.HoodieRowParquetWriteSupport",
        _I,
        _ROW_WRITER,
    ),
    ("hoodie.storage.class", "org.apache.hudi.storage.hadoop.HoodieHadoopStorage", _I, _JAVA_IO),
    # ---- Consistency Guard Configurations ----------------------------------------------------------
    ("_hoodie.optimistic.consistency.guard.enable", "false", _I, _GUARD),
    ("hoodie.consistency.check.enabled", "false", _I, _GUARD),
    # Write Configurations print 2000, 7 and 300000 for the next three keys (HoodieWriteConfig).
    ("hoodie.consistency.check.initial_interval_ms", "400", _I, _GUARD),
    ("hoodie.consistency.check.max_checks", "6", _I, _GUARD),
    ("hoodie.consistency.check.max_interval_ms", "20000", _I, _GUARD),
    ("hoodie.optimistic.consistency.guard.sleep_time_ms", "500", _I, _GUARD),
    # ---- FileSystem Guard Configurations -----------------------------------------------------------
    ("hoodie.filesystem.operation.retry.enable", "false", _I, _GUARD),
    ("hoodie.filesystem.operation.retry.exceptions", "", _I, _GUARD),
    ("hoodie.filesystem.operation.retry.initial_interval_ms", "100", _I, _GUARD),
    ("hoodie.filesystem.operation.retry.max_interval_ms", "2000", _I, _GUARD),
    ("hoodie.filesystem.operation.retry.max_numbers", "4", _I, _GUARD),
    # ---- File System View Storage Configurations ---------------------------------------------------
    ("hoodie.filesystem.remote.backup.view.enable", "true", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.incr.timeline.sync.enable", "false", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.host", "localhost", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.port", "26754", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.retry.enable", "false", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.retry.exceptions", "", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.retry.initial_interval_ms", "100", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.retry.max_interval_ms", "2000", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.retry.max_numbers", "3", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.remote.timeout.secs", "300", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.rocksdb.base.path", "/tmp/hoodie_timeline_rocksdb", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.secondary.type", "MEMORY", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.bootstrap.base.file.mem.fraction", "0.05", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.clustering.mem.fraction", "0.02", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.compaction.mem.fraction", "0.1", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.dir", "/tmp/", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.log.compaction.mem.fraction", "0.02", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.mem", "104857600", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.spillable.replaced.mem.fraction", "0.05", _I, _TIMELINE_SERVER),
    ("hoodie.filesystem.view.type", "MEMORY", _I, _TIMELINE_SERVER),
    # ---- Archival Configs --------------------------------------------------------------------------
    ("hoodie.keep.max.commits", "30", _D, _DECLARED),
    ("hoodie.keep.min.commits", "20", _D, _DECLARED),
    ("hoodie.archive.async", "false", _I, _LATER),
    ("hoodie.archive.automatic", "true", _D, _DECLARED),
    ("hoodie.archive.beyond.savepoint", "false", _D, _DECLARED),
    ("hoodie.archive.delete.parallelism", "100", _I, _PERF),
    ("hoodie.commits.archival.batch", "10", _I, _LATER),
    ("hoodie.timeline.compaction.batch.size", "10", _D, _DECLARED),
    # ---- Bootstrap Configs -------------------------------------------------------------------------
    ("hoodie.bootstrap.data.queries.only", "false", _U, _BOOTSTRAP),
    (
        "hoodie.bootstrap.full.input.provider",
        "org.apache.hudi.bootstrap.SparkParquetBootstrapDataProvider",
        _U,
        _BOOTSTRAP,
    ),
    (
        "hoodie.bootstrap.mode.selector",
        "org.apache.hudi.client.bootstrap.selector.MetadataOnlyBootstrapModeSelector",
        _U,
        _BOOTSTRAP,
    ),
    ("hoodie.bootstrap.mode.selector.regex", ".*", _U, _BOOTSTRAP),
    ("hoodie.bootstrap.mode.selector.regex.mode", "METADATA_ONLY", _U, _BOOTSTRAP),
    ("hoodie.bootstrap.parallelism", "1500", _I, _PERF),
    (
        "hoodie.bootstrap.partitionpath.translator.class",
        "org.apache.hudi.client.bootstrap.translator.IdentityBootstrapPartitionPathTranslator",
        _U,
        _BOOTSTRAP,
    ),
    # ---- Clean Configs -----------------------------------------------------------------------------
    ("hoodie.clean.async.enabled", "false", _I, _DECLARED),
    ("hoodie.clean.commits.retained", "10", _D, _DECLARED),
    ("hoodie.clean.automatic", "true", _D, _DECLARED),
    ("hoodie.clean.delete.bootstrap.base.file", "false", _U, _BOOTSTRAP),
    ("hoodie.clean.failed.writes.policy", "EAGER", _D, _DECLARED),
    ("hoodie.clean.fileversions.retained", "3", _D, _DECLARED),
    ("hoodie.clean.hours.retained", "24", _D, _DECLARED),
    ("hoodie.clean.incremental.enabled", "true", _I, _DECLARED),
    ("hoodie.clean.multiple.enabled", "false", _I, _LATER),
    ("hoodie.clean.parallelism", "200", _I, _PERF),
    ("hoodie.clean.policy", "KEEP_LATEST_COMMITS", _D, _DECLARED),
    ("hoodie.clean.trigger.max.commits", "1", _D, _DECLARED),
    ("hoodie.clean.trigger.strategy", "NUM_COMMITS", _D, _DECLARED),
    # ---- Clustering Configs ------------------------------------------------------------------------
    ("hoodie.clustering.plan.strategy.small.file.limit", "314572800", _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.target.file.max.bytes", "1073741824", _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.cluster.begin.partition", None, _I, _LATER),
    ("hoodie.clustering.plan.strategy.cluster.end.partition", None, _I, _LATER),
    ("hoodie.clustering.plan.strategy.partition.regex.pattern", None, _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.partition.selected", None, _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.sort.columns", None, _D, _DECLARED),
    ("hoodie.clustering.async.max.commits", "4", _I, _LATER),
    (
        "hoodie.clustering.execution.strategy.class",
        "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
        _U,
        _JAVA,
    ),
    ("hoodie.clustering.group.read.parallelism", "20", _I, _PERF),
    ("hoodie.clustering.inline.max.commits", "4", _D, _DECLARED),
    ("hoodie.clustering.max.parallelism", "15", _I, _PERF),
    ("hoodie.clustering.plan.partition.filter.mode", "NONE", _I, _LATER),
    (
        "hoodie.clustering.plan.strategy.class",
        "org.apache.hudi.client.clustering.plan.strategy.SparkSizeBasedClusteringPlanStrategy",
        _U,
        _JAVA,
    ),
    ("hoodie.clustering.plan.strategy.daybased.lookback.partitions", "2", _I, _LATER),
    ("hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions", "0", _I, _LATER),
    ("hoodie.clustering.plan.strategy.max.bytes.per.group", "2147483648", _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.max.num.groups", "30", _D, _DECLARED),
    ("hoodie.clustering.plan.strategy.single.group.clustering.enabled", "true", _D, _DECLARED),
    ("hoodie.clustering.rollback.pending.replacecommit.on.conflict", "false", _I, _LATER),
    ("hoodie.clustering.schedule.inline", "false", _D, _DECLARED),
    (
        "hoodie.clustering.updates.strategy",
        "org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy",
        _D,
        _DECLARED,
    ),
    ("hoodie.layout.optimize.build.curve.sample.size", "200000", _I, _LATER),
    ("hoodie.layout.optimize.curve.build.method", "DIRECT", _D, _DECLARED),
    ("hoodie.layout.optimize.data.skipping.enable", "true", _I, _LATER),
    ("hoodie.layout.optimize.enable", "false", _I, _LATER),
    ("hoodie.layout.optimize.strategy", "LINEAR", _D, _DECLARED),
    # ---- Compaction Configs ------------------------------------------------------------------------
    ("hoodie.compact.inline", "false", _D, _DECLARED),
    ("hoodie.compact.inline.max.delta.commits", "5", _D, _DECLARED),
    ("hoodie.compaction.partition.path.regex", None, _I, _LATER),
    ("hoodie.compact.inline.max.delta.seconds", "3600", _D, _DECLARED),
    ("hoodie.compact.inline.trigger.strategy", "NUM_COMMITS", _D, _DECLARED),
    ("hoodie.compact.schedule.inline", "false", _D, _DECLARED),
    ("hoodie.compaction.daybased.target.partitions", "10", _I, _LATER),
    ("hoodie.compaction.logfile.num.threshold", "0", _D, _DECLARED),
    ("hoodie.compaction.logfile.size.threshold", "0", _D, _DECLARED),
    (
        "hoodie.compaction.plan.generator",
        "org.apache.hudi.table.action.compact.plan.generators.HoodieCompactionPlanGenerator",
        _U,
        _JAVA,
    ),
    (
        "hoodie.compaction.strategy",
        "org.apache.hudi.table.action.compact.strategy.LogFileSizeBasedCompactionStrategy",
        _D,
        _DECLARED,
    ),
    ("hoodie.compaction.target.io", "512000", _D, _DECLARED),
    ("hoodie.copyonwrite.insert.auto.split", "true", _I, _LATER),
    ("hoodie.copyonwrite.insert.split.size", "500000", _I, _LATER),
    ("hoodie.copyonwrite.record.size.estimate", "1024", _D, _DECLARED),
    ("hoodie.log.compaction.blocks.threshold", "5", _D, _DECLARED),
    ("hoodie.log.compaction.enable", "false", _D, _DECLARED),
    ("hoodie.log.compaction.inline", "false", _D, _DECLARED),
    ("hoodie.parquet.small.file.limit", "104857600", _D, _DECLARED),
    ("hoodie.record.size.estimation.threshold", "1.0", _I, _LATER),
    # ---- Error table Configs -----------------------------------------------------------------------
    ("hoodie.errortable.base.path", None, _U, _ERROR_TABLE),
    ("hoodie.errortable.target.table.name", None, _U, _ERROR_TABLE),
    ("hoodie.errortable.write.class", None, _U, _ERROR_TABLE),
    ("hoodie.errortable.enable", "false", _U, _ERROR_TABLE),
    ("hoodie.errortable.insert.shuffle.parallelism", "200", _I, _PERF),
    ("hoodie.errortable.source.rdd.persist", "false", _U, _ERROR_TABLE),
    ("hoodie.errortable.upsert.shuffle.parallelism", "200", _I, _PERF),
    ("hoodie.errortable.validate.recordcreation.enable", "true", _U, _ERROR_TABLE),
    ("hoodie.errortable.validate.targetschema.enable", "false", _U, _ERROR_TABLE),
    ("hoodie.errortable.write.failure.strategy", "ROLLBACK_COMMIT", _U, _ERROR_TABLE),
    ("hoodie.errortable.write.union.enable", "false", _U, _ERROR_TABLE),
    # ---- Layout Configs ----------------------------------------------------------------------------
    ("hoodie.storage.layout.partitioner.class", None, _U, _LAYOUT),
    ("hoodie.storage.layout.type", "DEFAULT", _U, _LAYOUT),
    # ---- TTL management Configs --------------------------------------------------------------------
    ("hoodie.partition.ttl.strategy.class", None, _U, _TTL),
    ("hoodie.partition.ttl.strategy.partition.selected", None, _U, _TTL),
    ("hoodie.partition.ttl.inline", "false", _U, _TTL),
    ("hoodie.partition.ttl.management.strategy.type", "KEEP_BY_TIME", _U, _TTL),
    ("hoodie.partition.ttl.strategy.days.retain", "-1", _U, _TTL),
    ("hoodie.partition.ttl.strategy.max.delete.partitions", "1000", _U, _TTL),
    # ---- Write Configurations ----------------------------------------------------------------------
    ("hoodie.fail.job.on.duplicate.data.file.detection", "false", _I, _LATER),
    ("hoodie.instant_state.timeline_server_based.enabled", "false", _I, _TIMELINE_SERVER),
    ("hoodie.instant_state.timeline_server_based.force_refresh.request.number", "100", _I, _TIMELINE_SERVER),
    ("hoodie.write.auto.upgrade", "true", _D, _DECLARED),
    ("hoodie.write.concurrency.mode", "SINGLE_WRITER", _D, _DECLARED),
    ("hoodie.avro.schema", None, _U, _LATER_DATA),
    ("hoodie.bulkinsert.user.defined.partitioner.class", None, _U, _JAVA),
    ("hoodie.bulkinsert.user.defined.partitioner.sort.columns", None, _I, _LATER),
    ("hoodie.internal.schema", None, _U, _LATER_DATA),
    ("hoodie.write.schema", None, _U, _LATER_DATA),
    ("_.hoodie.allow.multi.write.on.same.instant", "false", _I, _INTERNAL),
    ("_hoodie.record.size.estimator.max.commits", "5", _I, _SIZING),
    ("hoodie.allow.empty.commit", "true", _I, _LATER),
    ("hoodie.allow.operation.metadata.field", "false", _U, _LATER_DATA),
    ("hoodie.auto.adjust.lock.configs", "false", _I, _LATER),
    ("hoodie.auto.commit", "true", _U, _AUTO_COMMIT),
    ("hoodie.avro.schema.external.transformation", "false", _U, _LATER_DATA),
    ("hoodie.avro.schema.validate", "false", _I, _VALIDATION),
    ("hoodie.base.file.format", "PARQUET", _U, _BASE_FORMAT),
    ("hoodie.bulkinsert.shuffle.parallelism", "0", _I, _PERF),
    ("hoodie.bulkinsert.sort.mode", "NONE", _I, _LATER),
    ("hoodie.bulkinsert.sort.suffix.record_key", "false", _I, _LATER),
    ("hoodie.cdc.file.group.iterator.memory.spill.bytes", "104857600", _I, _MEM),
    ("hoodie.client.heartbeat.interval_in_ms", "60000", _D, _DECLARED),
    ("hoodie.client.heartbeat.tolerable.misses", "2", _D, _DECLARED),
    ("hoodie.client.init.callback.classes", "", _I, _CALLBACK),
    ("hoodie.combine.before.delete", "true", _D, _DECLARED),
    ("hoodie.combine.before.insert", "false", _D, _DECLARED),
    ("hoodie.combine.before.upsert", "true", _D, _DECLARED),
    ("hoodie.datasource.write.schema.allow.auto.evolution.column.drop", "false", _U, _LATER_DATA),
    ("hoodie.delete.shuffle.parallelism", "0", _I, _PERF),
    ("hoodie.embed.timeline.server", "true", _I, _TIMELINE_SERVER),
    ("hoodie.embed.timeline.server.async", "false", _I, _TIMELINE_SERVER),
    ("hoodie.embed.timeline.server.gzip", "true", _I, _TIMELINE_SERVER),
    ("hoodie.embed.timeline.server.port", "0", _I, _TIMELINE_SERVER),
    ("hoodie.embed.timeline.server.reuse.enabled", "false", _I, _TIMELINE_SERVER),
    ("hoodie.embed.timeline.server.threads", "-1", _I, _TIMELINE_SERVER),
    ("hoodie.fail.on.timeline.archiving", "true", _I, _LATER),
    ("hoodie.fail.writes.on.inline.table.service.exception", "true", _I, _LATER),
    ("hoodie.fileid.prefix.provider.class", "org.apache.hudi.table.RandomFileIdPrefixProvider", _I, _JAVA_NAMING),
    ("hoodie.finalize.write.parallelism", "200", _I, _PERF),
    ("hoodie.insert.shuffle.parallelism", "0", _I, _PERF),
    ("hoodie.markers.delete.parallelism", "100", _I, _PERF),
    ("hoodie.markers.timeline_server_based.batch.interval_ms", "50", _I, _TIMELINE_SERVER),
    ("hoodie.markers.timeline_server_based.batch.num_threads", "20", _I, _TIMELINE_SERVER),
    ("hoodie.merge.allow.duplicate.on.inserts", "true", _U, _LATER_DATA),
    ("hoodie.merge.data.validation.enabled", "false", _I, _LATER),
    ("hoodie.merge.small.file.group.candidates.limit", "1", _I, _SIZING),
    ("hoodie.record.size.estimator.average.metadata.size", "0", _I, _SIZING),
    ("hoodie.record.size.estimator.class", "org.apache.hudi.estimator.AverageRecordSizeEstimator", _I, _JAVA_SIZING),
    ("hoodie.release.resource.on.completion.enable", "true", _I, _SPARK),
    ("hoodie.rollback.instant.backup.dir", ".rollback_backup", _I, _LATER),
    ("hoodie.rollback.instant.backup.enabled", "false", _I, _LATER),
    ("hoodie.rollback.parallelism", "100", _I, _PERF),
    ("hoodie.rollback.using.markers", "true", _I, _LATER),
    ("hoodie.sensitive.config.keys", "ssl,tls,sasl,auth,credentials", _I, _LOGGING),
    ("hoodie.skip.default.partition.validation", "false", _I, _UPGRADE_CHECK),
    ("hoodie.table.services.enabled", "true", _I, _SERVICES),
    ("hoodie.table.services.incremental.enabled", "true", _I, _SERVICES),
    ("hoodie.upsert.shuffle.parallelism", "0", _I, _PERF),
    ("hoodie.write.buffer.limit.bytes", "4194304", _I, _MEM),
    ("hoodie.write.buffer.record.cache.limit", "131072", _I, _MEM),
    ("hoodie.write.buffer.record.sampling.rate", "64", _I, _MEM),
    ("hoodie.write.concurrency.async.conflict.detector.initial_delay_ms", "0", _I, _LATER),
    ("hoodie.write.concurrency.async.conflict.detector.period_ms", "30000", _I, _LATER),
    ("hoodie.write.concurrency.early.conflict.check.commit.conflict", "false", _I, _LATER),
    ("hoodie.write.concurrency.early.conflict.detection.enable", "false", _I, _LATER),
    ("hoodie.write.concurrency.early.conflict.detection.strategy", "", _I, _LATER),
    ("hoodie.write.concurrency.schema.conflict.resolution.enable", "true", _I, _LATER),
    ("hoodie.write.executor.disruptor.buffer.limit.bytes", "1024", _I, _PERF),
    ("hoodie.write.executor.disruptor.wait.strategy", "BLOCKING_WAIT", _I, _PERF),
    ("hoodie.write.executor.type", "SIMPLE", _I, _PERF),
    ("hoodie.write.markers.type", "TIMELINE_SERVER_BASED", _I, _MARKERS),
    ("hoodie.write.num.retries.on.conflict.failures", "0", _D, _DECLARED),
    ("hoodie.write.partial.update.schema", "", _U, _LATER_DATA),
    ("hoodie.write.record.positions", "true", _I, _LATER),
    ("hoodie.write.status.storage.level", "MEMORY_AND_DISK_SER", _I, _SPARK),
    ("hoodie.write.tagged.record.storage.level", "MEMORY_AND_DISK_SER", _I, _SPARK),
    ("hoodie.writestatus.class", "org.apache.hudi.client.WriteStatus", _I, _JAVA_SIZING),
    # ---- Commit Callback Configs (HTTP, Kafka, Pulsar) ---------------------------------------------
    ("hoodie.write.commit.callback.http.custom.headers", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.http.url", None, _I, _CALLBACK),
    (
        "hoodie.write.commit.callback.class",
        "org.apache.hudi.callback.impl.HoodieWriteCommitHttpCallback",
        _I,
        _CALLBACK,
    ),
    ("hoodie.write.commit.callback.http.api.key", "hudi_write_commit_http_callback", _I, _CALLBACK),
    ("hoodie.write.commit.callback.http.timeout.seconds", "30", _I, _CALLBACK),
    ("hoodie.write.commit.callback.on", "false", _I, _CALLBACK),
    ("hoodie.write.commit.callback.kafka.bootstrap.servers", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.kafka.partition", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.kafka.topic", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.kafka.acks", "all", _I, _CALLBACK),
    ("hoodie.write.commit.callback.kafka.retries", "3", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.broker.service.url", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.topic", None, _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.connection-timeout", "10s", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.keepalive-interval", "30s", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.operation-timeout", "30s", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.producer.block-if-queue-full", "true", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.producer.pending-queue-size", "1000", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.producer.pending-total-size", "50000", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.producer.route-mode", "RoundRobinPartition", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.producer.send-timeout", "30s", _I, _CALLBACK),
    ("hoodie.write.commit.callback.pulsar.request-timeout", "60s", _I, _CALLBACK),
    # ---- Lock Configs (common, DynamoDB) -----------------------------------------------------------
    ("hoodie.write.lock.heartbeat_interval_ms", "60000", _I, _LATER),
    ("hoodie.write.lock.filesystem.path", None, _D, _DECLARED),
    ("hoodie.write.lock.hivemetastore.database", None, _I, _LATER),
    ("hoodie.write.lock.hivemetastore.table", None, _I, _LATER),
    ("hoodie.write.lock.hivemetastore.uris", None, _I, _LATER),
    ("hoodie.write.lock.provider", None, _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.base_path", None, _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.port", None, _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.url", None, _D, _DECLARED),
    ("hoodie.write.lock.client.num_retries", "50", _I, _LATER),
    ("hoodie.write.lock.client.wait_time_ms_between_retry", "5000", _I, _LATER),
    (
        "hoodie.write.lock.conflict.resolution.strategy",
        "org.apache.hudi.client.transaction.SimpleConcurrentFileWritesConflictResolutionStrategy",
        _D,
        _DECLARED,
    ),
    ("hoodie.write.lock.filesystem.expire", "0", _D, _DECLARED),
    ("hoodie.write.lock.max_wait_time_ms_between_retry", "16000", _I, _LATER),
    ("hoodie.write.lock.num_retries", "15", _D, _DECLARED),
    ("hoodie.write.lock.wait_time_ms", "60000", _D, _DECLARED),
    ("hoodie.write.lock.wait_time_ms_between_retry", "1000", _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.connection_timeout_ms", "15000", _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.lock_key", "", _D, _DECLARED),
    ("hoodie.write.lock.zookeeper.session_timeout_ms", "60000", _D, _DECLARED),
    ("hoodie.write.lock.dynamodb.endpoint_url", None, _I, _LATER),
    ("hoodie.write.lock.dynamodb.billing_mode", "PAY_PER_REQUEST", _I, _LATER),
    ("hoodie.write.lock.dynamodb.partition_key", "", _I, _LATER),
    ("hoodie.write.lock.dynamodb.read_capacity", "20", _I, _LATER),
    ("hoodie.write.lock.dynamodb.region", "us-east-1", _I, _LATER),
    ("hoodie.write.lock.dynamodb.table", "hudi_locks", _I, _LATER),
    ("hoodie.write.lock.dynamodb.table_creation_timeout", "120000", _I, _LATER),
    ("hoodie.write.lock.dynamodb.write_capacity", "10", _I, _LATER),
    # ---- Key Generator Configs (timestamp-based key generator) -------------------------------------
    ("hoodie.keygen.timebased.timestamp.type", None, _D, _DECLARED),
    ("hoodie.keygen.datetime.parser.class", "org.apache.hudi.keygen.parser.HoodieDateTimeParser", _U, _JAVA),
    ("hoodie.keygen.timebased.input.dateformat", "", _D, _DECLARED),
    ("hoodie.keygen.timebased.input.dateformat.list.delimiter.regex", ",", _D, _DECLARED),
    ("hoodie.keygen.timebased.input.timezone", "UTC", _D, _DECLARED),
    ("hoodie.keygen.timebased.output.dateformat", "", _D, _DECLARED),
    ("hoodie.keygen.timebased.output.timezone", "UTC", _D, _DECLARED),
    ("hoodie.keygen.timebased.timestamp.scalar.time.unit", "SECONDS", _D, _DECLARED),
    ("hoodie.keygen.timebased.timezone", "UTC", _D, _DECLARED),
    # ---- Index Configs -----------------------------------------------------------------------------
    ("hoodie.expression.index.function", None, _U, _SECONDARY),
    ("hoodie.index.type", None, _D, _DECLARED),
    ("hoodie.bucket.index.query.pruning", "true", _I, _PERF),
    ("hoodie.bucket.index.max.num.buckets", None, _U, _CONSISTENT_HASHING),
    ("hoodie.bucket.index.min.num.buckets", None, _U, _CONSISTENT_HASHING),
    ("hoodie.bloom.index.bucketized.checking", "true", _I, _PERF),
    ("hoodie.bloom.index.fileid.key.sorting.enable", "false", _I, _PERF),
    ("hoodie.bloom.index.input.storage.level", "MEMORY_AND_DISK_SER", _I, _SPARK),
    ("hoodie.bloom.index.keys.per.bucket", "10000000", _I, _PERF),
    ("hoodie.bloom.index.parallelism", "0", _I, _PERF),
    ("hoodie.bloom.index.prune.by.ranges", "true", _D, _DECLARED),
    ("hoodie.bloom.index.update.partition.path", "true", _D, _DECLARED),
    ("hoodie.bloom.index.use.caching", "true", _I, _SPARK),
    ("hoodie.bloom.index.use.metadata", "false", _I, _PERF),
    ("hoodie.bloom.index.use.treebased.filter", "true", _I, _PERF),
    ("hoodie.bucket.index.merge.threshold", "0.2", _U, _CONSISTENT_HASHING),
    ("hoodie.bucket.index.split.threshold", "2.0", _U, _CONSISTENT_HASHING),
    ("hoodie.global.index.reconcile.parallelism", "60", _I, _PERF),
    ("hoodie.global.simple.index.parallelism", "0", _I, _PERF),
    ("hoodie.index.class", "", _U, _JAVA),
    ("hoodie.record.index.input.storage.level", "MEMORY_AND_DISK_SER", _I, _SPARK),
    ("hoodie.record.index.update.partition.path", "false", _U, _LATER_DATA),
    ("hoodie.record.index.use.caching", "true", _I, _SPARK),
    ("hoodie.simple.index.input.storage.level", "MEMORY_AND_DISK_SER", _I, _SPARK),
    ("hoodie.simple.index.parallelism", "0", _I, _PERF),
    ("hoodie.simple.index.update.partition.path", "true", _D, _DECLARED),
    ("hoodie.simple.index.use.caching", "true", _I, _SPARK),
    # ---- HBase Index Configs -----------------------------------------------------------------------
    ("hoodie.index.hbase.kerberos.user.keytab", None, _U, _HBASE),
    ("hoodie.index.hbase.kerberos.user.principal", None, _U, _HBASE),
    ("hoodie.index.hbase.master.kerberos.principal", None, _U, _HBASE),
    ("hoodie.index.hbase.max.qps.fraction", None, _U, _HBASE),
    ("hoodie.index.hbase.min.qps.fraction", None, _U, _HBASE),
    ("hoodie.index.hbase.regionserver.kerberos.principal", None, _U, _HBASE),
    ("hoodie.index.hbase.sleep.ms.for.get.batch", None, _U, _HBASE),
    ("hoodie.index.hbase.sleep.ms.for.put.batch", None, _U, _HBASE),
    ("hoodie.index.hbase.table", None, _U, _HBASE),
    ("hoodie.index.hbase.zknode.path", None, _U, _HBASE),
    ("hoodie.index.hbase.zkport", None, _U, _HBASE),
    ("hoodie.index.hbase.zkquorum", None, _U, _HBASE),
    ("hoodie.hbase.index.update.partition.path", "false", _U, _HBASE),
    ("hoodie.index.hbase.bucket.number", "8", _U, _HBASE),
    ("hoodie.index.hbase.desired_puts_time_in_secs", "600", _U, _HBASE),
    ("hoodie.index.hbase.dynamic_qps", "false", _U, _HBASE),
    ("hoodie.index.hbase.get.batch.size", "100", _U, _HBASE),
    ("hoodie.index.hbase.max.qps.per.region.server", "1000", _U, _HBASE),
    ("hoodie.index.hbase.put.batch.size", "100", _U, _HBASE),
    ("hoodie.index.hbase.put.batch.size.autocompute", "false", _U, _HBASE),
    (
        "hoodie.index.hbase.qps.allocator.class",
        "org.apache.hudi.index.hbase.DefaultHBaseQPSResourceAllocator",
        _U,
        _HBASE,
    ),
    ("hoodie.index.hbase.qps.fraction", "0.5", _U, _HBASE),
    ("hoodie.index.hbase.rollback.sync", "false", _U, _HBASE),
    ("hoodie.index.hbase.security.authentication", "simple", _U, _HBASE),
    ("hoodie.index.hbase.zk.connection_timeout_ms", "15000", _U, _HBASE),
    ("hoodie.index.hbase.zk.session_timeout_ms", "60000", _U, _HBASE),
    ("hoodie.index.hbase.zkpath.qps_root", "/QPS_ROOT", _U, _HBASE),
    # ---- Reader Configs ----------------------------------------------------------------------------
    ("_hoodie.hfile.use.native.reader", "true", _I, _INTERNAL),
    ("hoodie.compaction.lazy.block.read", "true", _I, _PERF),
    ("hoodie.compaction.reverse.log.read", "false", _I, _PERF),
    ("hoodie.file.group.reader.enabled", "true", _I, _INTERNAL),
    ("hoodie.merge.use.record.positions", "true", _I, _PERF),
    ("hoodie.optimized.log.blocks.scan.enable", "false", _I, _LATER),
    # ---- Metastore and Catalog Sync Configs: common ------------------------------------------------
    ("hoodie.datasource.meta.sync.base.path", "", _I, _SYNC),
    ("hoodie.meta.sync.decode_partition", "false", _D, _DECLARED),
    ("hoodie.meta.sync.incremental", "true", _D, _DECLARED),
    ("hoodie.meta.sync.metadata_file_listing", "true", _I, _SYNC),
    ("hoodie.meta.sync.no_partition_metadata", "false", _I, _SYNC),
    ("hoodie.meta.sync.sync_snapshot_with_table_name", "true", _D, _DECLARED),
    ("hoodie.meta_sync.spark.version", "", _I, _SYNC),
    # ---- Glue catalog sync based client Configurations ---------------------------------------------
    ("hoodie.datasource.meta.sync.glue.partition_index_fields", "", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.partition_index_fields.enable", "false", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.all_partitions_read_parallelism", "1", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.changed_partitions_read_parallelism", "1", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.metadata_file_listing", "false", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.partition_change_parallelism", "1", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.recreate_table_on_error", "false", _I, _SYNC),
    ("hoodie.datasource.meta.sync.glue.skip_table_archive", "true", _I, _SYNC),
    # ---- BigQuery Sync Configs ---------------------------------------------------------------------
    ("hoodie.gcp.bigquery.sync.big_lake_connection_id", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.billing.project.id", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.dataset_location", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.project_id", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.source_uri", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.source_uri_prefix", None, _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.dataset_name", "", _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.partition_fields", "", _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.require_partition_filter", "false", _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.table_name", "", _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.use_bq_manifest_file", "false", _I, _SYNC),
    ("hoodie.gcp.bigquery.sync.use_file_listing_from_metadata", "true", _I, _SYNC),
    # ---- Hive Sync Configs (keys not listed above) -------------------------------------------------
    ("hoodie.datasource.hive_sync.bucket_sync_spec", "", _I, _SYNC),
    ("hoodie.datasource.hive_sync.filter_pushdown_enabled", "false", _I, _SYNC),
    ("hoodie.datasource.hive_sync.filter_pushdown_max_size", "1000", _I, _SYNC),
    ("hoodie.datasource.hive_sync.omit_metadata_fields", "false", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.recreate_table_on_error", "false", _I, _SYNC),
    ("hoodie.datasource.hive_sync.schema_string_length_thresh", "4000", _D, _DECLARED),
    ("hoodie.datasource.hive_sync.table.strategy", "ALL", _D, _DECLARED),
    ("hoodie.meta_sync.global.replicate.timestamp", None, _I, _SYNC),
    # ---- DataHub Sync Configs ----------------------------------------------------------------------
    ("hoodie.meta.sync.datahub.domain.identifier", None, _I, _SYNC),
    ("hoodie.meta.sync.datahub.emitter.server", None, _I, _SYNC),
    ("hoodie.meta.sync.datahub.emitter.supplier.class", None, _I, _SYNC),
    ("hoodie.meta.sync.datahub.emitter.token", None, _I, _SYNC),
    ("hoodie.meta.sync.datahub.dataplatform.name", "hudi", _I, _SYNC),
    ("hoodie.meta.sync.datahub.dataset.env", "DEV", _I, _SYNC),
    (
        "hoodie.meta.sync.datahub.dataset.identifier.class",
        "org.apache.hudi.sync.datahub.config.HoodieDataHubDatasetIdentifier",
        _I,
        _SYNC,
    ),
    ("hoodie.meta.sync.datahub.sync.suppress.exceptions", "true", _I, _SYNC),
    # ---- Metrics Configs ---------------------------------------------------------------------------
    ("hoodie.metrics.cloudwatch.maxDatumsPerRequest", "20", _I, _METRICS),
    ("hoodie.metrics.cloudwatch.metric.prefix", "", _I, _METRICS),
    ("hoodie.metrics.cloudwatch.namespace", "Hudi", _I, _METRICS),
    ("hoodie.metrics.cloudwatch.report.period.seconds", "60", _I, _METRICS),
    ("hoodie.metrics.on", "false", _I, _METRICS),
    ("hoodie.metrics.reporter.type", "GRAPHITE", _I, _METRICS),
    ("hoodie.metricscompaction.log.blocks.on", "false", _I, _METRICS),
    ("hoodie.metrics.executor.enable", None, _I, _METRICS),
    ("hoodie.metrics.configs.properties", "", _I, _METRICS),
    ("hoodie.metrics.lock.enable", "false", _I, _METRICS),
    ("hoodie.metrics.reporter.class", "", _I, _METRICS),
    ("hoodie.metrics.reporter.metricsname.prefix", "", _I, _METRICS),
    ("hoodie.metrics.datadog.api.key", None, _I, _METRICS),
    ("hoodie.metrics.datadog.api.key.supplier", None, _I, _METRICS),
    ("hoodie.metrics.datadog.api.site", None, _I, _METRICS),
    ("hoodie.metrics.datadog.metric.host", None, _I, _METRICS),
    ("hoodie.metrics.datadog.metric.prefix", None, _I, _METRICS),
    ("hoodie.metrics.datadog.metric.tags", None, _I, _METRICS),
    ("hoodie.metrics.datadog.api.key.skip.validation", "false", _I, _METRICS),
    ("hoodie.metrics.datadog.api.timeout.seconds", "3", _I, _METRICS),
    ("hoodie.metrics.datadog.report.period.seconds", "30", _I, _METRICS),
    ("hoodie.metrics.graphite.metric.prefix", None, _I, _METRICS),
    ("hoodie.metrics.graphite.host", "localhost", _I, _METRICS),
    ("hoodie.metrics.graphite.port", "4756", _I, _METRICS),
    ("hoodie.metrics.graphite.report.period.seconds", "30", _I, _METRICS),
    ("hoodie.metrics.jmx.host", "localhost", _I, _METRICS),
    ("hoodie.metrics.jmx.port", "9889", _I, _METRICS),
    ("hoodie.metrics.m3.env", "production", _I, _METRICS),
    ("hoodie.metrics.m3.host", "localhost", _I, _METRICS),
    ("hoodie.metrics.m3.port", "9052", _I, _METRICS),
    ("hoodie.metrics.m3.service", "hoodie", _I, _METRICS),
    ("hoodie.metrics.m3.tags", "", _I, _METRICS),
    ("hoodie.metrics.prometheus.port", "9090", _I, _METRICS),
    ("hoodie.metrics.pushgateway.delete.on.shutdown", "true", _I, _METRICS),
    ("hoodie.metrics.pushgateway.host", "localhost", _I, _METRICS),
    ("hoodie.metrics.pushgateway.job.name", "", _I, _METRICS),
    ("hoodie.metrics.pushgateway.port", "9091", _I, _METRICS),
    ("hoodie.metrics.pushgateway.random.job.name.suffix", "true", _I, _METRICS),
    ("hoodie.metrics.pushgateway.report.labels", "", _I, _METRICS),
    ("hoodie.metrics.pushgateway.report.period.seconds", "30", _I, _METRICS),
    # ---- Record Payload Config ---------------------------------------------------------------------
    ("hoodie.payload.ordering.field", None, _U, _ORDERING_FIELD),
    ("hoodie.payload.event.time.field", "ts", _I, _LATER),
    # ---- Kafka Connect Configs (hoodie.* keys) -----------------------------------------------------
    ("hoodie.kafka.allow.commit.on.errors", "true", _U, _KAFKA_CONNECT),
    ("hoodie.kafka.commit.interval.secs", "60", _U, _KAFKA_CONNECT),
    ("hoodie.kafka.compaction.async.enable", "true", _U, _KAFKA_CONNECT),
    ("hoodie.kafka.control.topic", "hudi-control-topic", _U, _KAFKA_CONNECT),
    ("hoodie.kafka.coordinator.write.timeout.secs", "300", _U, _KAFKA_CONNECT),
    ("hoodie.meta.sync.classes", "org.apache.hudi.hive.HiveSyncTool", _I, _SYNC),
    ("hoodie.meta.sync.enable", "false", _I, _SYNC),
    ("hoodie.schemaprovider.class", "org.apache.hudi.schema.FilebasedSchemaProvider", _U, _STREAMER),
    # ---- Amazon Web Services Configs ---------------------------------------------------------------
    ("hoodie.aws.access.key", None, _I, _AWS),
    ("hoodie.aws.glue.endpoint", None, _D, _DECLARED),
    ("hoodie.aws.glue.region", None, _D, _DECLARED),
    ("hoodie.aws.role.arn", None, _I, _AWS),
    ("hoodie.aws.role.external.id", None, _I, _AWS),
    ("hoodie.aws.secret.key", None, _I, _AWS),
    ("hoodie.aws.session.token", None, _I, _AWS),
    ("hoodie.aws.role.session.name", "hoodie", _I, _AWS),
    # ---- Hudi Streamer Configs (streamer, sources, schema providers) -------------------------------
    ("hoodie.streamer.source.kafka.topic", None, _U, _STREAMER),
    ("hoodie.streamer.checkpoint.provider.path", None, _U, _STREAMER),
    ("hoodie.streamer.ingestion.tablesToBeIngested", None, _U, _STREAMER),
    ("hoodie.streamer.transformer.class", None, _U, _STREAMER),
    ("hoodie.streamer.checkpoint.force.skip", "false", _U, _STREAMER),
    ("hoodie.streamer.ingestion.targetBasePath", "", _U, _STREAMER),
    ("hoodie.streamer.row.throw.explicit.exceptions", "false", _U, _STREAMER),
    ("hoodie.streamer.sample.writes.enabled", "false", _U, _STREAMER),
    ("hoodie.streamer.sample.writes.size", "5000", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.append.offsets", "false", _U, _STREAMER),
    ("hoodie.streamer.source.sanitize.invalid.char.mask", "__", _U, _STREAMER),
    ("hoodie.streamer.source.sanitize.invalid.schema.field.names", "false", _U, _STREAMER),
    ("hoodie.streamer.transformer.sql", None, _U, _STREAMER),
    ("hoodie.streamer.transformer.sql.file", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.datasource.options", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.ignore.relpath.prefix", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.ignore.relpath.substring", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.partition.fields.from.path", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.partition.max.size", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.select.file.extension", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.select.relative.path.regex", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.select.relpath.prefix", None, _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.check.file.exists", "false", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.datafile.format", "parquet", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.reader.coalesce.aliases", "true", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.data.reader.comma.separated.path.format", "false", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.meta.ack", "true", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.meta.batch.size", "10", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.meta.max.fetch.time.per.sync.secs", "60", _U, _STREAMER),
    ("hoodie.streamer.source.cloud.meta.max.num.messages.per.sync", "1000", _U, _STREAMER),
    ("hoodie.streamer.source.dfs.root", None, _U, _STREAMER),
    ("hoodie.streamer.source.input.selector", None, _U, _STREAMER),
    ("hoodie.streamer.source.dfs.datepartitioned.selector.currentdate", None, _U, _STREAMER),
    ("hoodie.streamer.source.dfs.datepartitioned.date.format", "yyyy-MM-dd", _U, _STREAMER),
    ("hoodie.streamer.source.dfs.datepartitioned.selector.depth", "0", _U, _STREAMER),
    ("hoodie.streamer.source.dfs.datepartitioned.selector.lookback.days", "2", _U, _STREAMER),
    ("hoodie.streamer.source.dfs.datepartitioned.selector.parallelism", "20", _I, _PERF),
    ("hoodie.streamer.source.gcs.project.id", None, _U, _STREAMER),
    ("hoodie.streamer.source.gcs.subscription.id", None, _U, _STREAMER),
    ("hoodie.streamer.source.incrpull.root", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.path", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.data.datasource.options", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.missing.checkpoint.strategy", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.partition.extractor.class", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.partition.fields", None, _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.drop.all.meta.fields.from.source", "false", _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.file.format", "parquet", _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.num_instants", "5", _U, _STREAMER),
    ("hoodie.streamer.source.hoodieincr.read_latest_on_missing_ckpt", "false", _U, _STREAMER),
    ("hoodie.streamer.jdbc.driver.class", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.extra.options.", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.incr.fallback.to.full.fetch", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.incr.pull", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.password", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.password.file", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.storage.level", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.table.incr.column.name", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.table.name", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.url", None, _U, _STREAMER),
    ("hoodie.streamer.jdbc.user", None, _U, _STREAMER),
    ("hoodie.streamer.source.json.kafka.post.processor.maxwell.database.regex", None, _U, _STREAMER),
    ("hoodie.streamer.source.json.kafka.post.processor.maxwell.table.regex", None, _U, _STREAMER),
    ("hoodie.streamer.source.json.kafka.processor.class", None, _U, _STREAMER),
    (
        "hoodie.streamer.source.json.kafka.post.processor.maxwell.precombine.field.format",
        "yyyy-MM-dd HH:mm:ss",
        _U,
        _STREAMER,
    ),
    ("hoodie.streamer.source.json.kafka.post.processor.maxwell.precombine.field.type", "DATE_STRING", _U, _STREAMER),
    (
        "hoodie.streamer.source.kafka.proto.value.deserializer.class",
        "org.apache.kafka.common.serialization.ByteArrayDeserializer",
        _U,
        _STREAMER,
    ),
    ("hoodie.streamer.source.kafka.value.deserializer.schema", None, _U, _STREAMER),
    ("hoodie.streamer.kafka.source.maxEvents", "5000000", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.checkpoint.type", "string", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.enable.commit.offset", "false", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.enable.failOnDataLoss", "false", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.fetch_partition.time.out", "300000", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.minPartitions", "0", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.offset.skip.buffer.minutes", "-1", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.retry.exceptions", "", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.retry.initial_interval_ms", "100", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.retry.max_count", "4", _U, _STREAMER),
    ("hoodie.streamer.source.kafka.retry.max_interval_ms", "2000", _U, _STREAMER),
    ("hoodie.streamer.source.parquet.dfs.merge_schema.enable", "false", _U, _STREAMER),
    ("hoodie.streamer.source.pulsar.topic", None, _U, _STREAMER),
    ("hoodie.streamer.source.pulsar.endpoint.admin.url", "http://localhost:8080", _U, _STREAMER),
    ("hoodie.streamer.source.pulsar.endpoint.service.url", "pulsar://localhost:6650", _U, _STREAMER),
    ("hoodie.streamer.source.pulsar.maxRecords", "5000000", _U, _STREAMER),
    ("hoodie.streamer.source.pulsar.offset.autoResetStrategy", "LATEST", _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.ignore.key.prefix", None, _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.ignore.key.substring", None, _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.key.prefix", None, _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.spark.datasource.options", None, _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.check.file.exists", "false", _U, _STREAMER),
    ("hoodie.streamer.source.s3incr.fs.prefix", "s3", _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.url", None, _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.region", None, _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.fs", "s3", _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.long.poll.wait", "20", _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.max.messages.per.batch", "5", _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.max.messages.per.request", "10", _U, _STREAMER),
    ("hoodie.streamer.s3.source.queue.visibility.timeout", "30", _U, _STREAMER),
    ("hoodie.streamer.source.sql.file", None, _U, _STREAMER),
    ("hoodie.streamer.source.sql.checkpoint.emit", "false", _U, _STREAMER),
    ("hoodie.streamer.source.sql.sql.query", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.targetUrl", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.url", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.baseUrl", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.schemaconverter", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.sourceUrlSuffix", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.targetUrlSuffix", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.registry.urlSuffix", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.file", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.target.schema.file", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.hive.table", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.target.schema.hive.table", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.hive.database", "default", _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.target.schema.hive.database", "default", _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.connection.url", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.dbtable", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.driver.type", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.nullable", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.password", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.timeout", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.source.schema.jdbc.username", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.proto.class.name", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.proto.flatten.wrappers", "false", _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.proto.max.recursion.depth", "5", _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.proto.timestamps.as.records", "false", _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.add.column.default", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.add.column.doc", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.add.column.name", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.add.column.type", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.delete.columns", None, _U, _STREAMER),
    ("hoodie.streamer.schemaprovider.schema_post_processor.add.column.nullable", "true", _U, _STREAMER),
)


def _old(old: str, new: str, default: str | None, status: OptionStatus, reason: str) -> CatalogEntry:
    return (old, default, status, f"older spelling of {new}; {reason}")


_PASS_NEW: Final = "pass the new key instead"

# Older spellings Hudi reads as alternatives of a documented key. Seen as `withAlternatives` in Hudi's
# HoodieClusteringConfig, DataSourceOptions, HoodieWriteConfig, HoodieTableConfig and
# TimestampKeyGeneratorConfig. The clean keys are the names HoodieCleanConfig used up to 0.15, which
# 1.0 renamed to `hoodie.clean.*`; users still pass them. The `hoodie.deltastreamer.*` spellings follow.
_LEGACY: Final[tuple[CatalogEntry, ...]] = (
    _old("hoodie.cleaner.commits.retained", "hoodie.clean.commits.retained", "10", _D, _DECLARED),
    _old("hoodie.cleaner.hours.retained", "hoodie.clean.hours.retained", "24", _D, _DECLARED),
    _old("hoodie.cleaner.fileversions.retained", "hoodie.clean.fileversions.retained", "3", _D, _DECLARED),
    _old("hoodie.cleaner.policy", "hoodie.clean.policy", "KEEP_LATEST_COMMITS", _D, _DECLARED),
    _old("hoodie.cleaner.incremental.mode", "hoodie.clean.incremental.enabled", "true", _I, _DECLARED),
    _old("hoodie.cleaner.parallelism", "hoodie.clean.parallelism", "200", _I, _PERF),
    _old(
        "hoodie.cleaner.delete.bootstrap.base.file", "hoodie.clean.delete.bootstrap.base.file", "false", _U, _BOOTSTRAP
    ),
    _old("hoodie.cleaner.policy.failed.writes", "hoodie.clean.failed.writes.policy", "EAGER", _D, _DECLARED),
    _old("hoodie.clean.async", "hoodie.clean.async.enabled", "false", _I, _DECLARED),
    _old("hoodie.clean.max.commits", "hoodie.clean.trigger.max.commits", "1", _D, _DECLARED),
    _old("hoodie.clean.allow.multiple", "hoodie.clean.multiple.enabled", "false", _I, _LATER),
    _old("hoodie.datasource.clustering.async.enable", "hoodie.clustering.async.enabled", "false", _I, _LATER),
    _old("hoodie.datasource.clustering.inline.enable", "hoodie.clustering.inline", "false", _D, _DECLARED),
    _old("hoodie.datasource.view.type", "hoodie.datasource.query.type", "snapshot", _U, _PASS_NEW),
    _old("hoodie.datasource.write.storage.type", "hoodie.datasource.write.table.type", "COPY_ON_WRITE", _D, _DECLARED),
    _old(
        "hoodie.datasource.write.record.merger.impls",
        "hoodie.write.record.merge.custom.implementation.classes",
        None,
        _U,
        _JAVA,
    ),
    _old(
        "hoodie.datasource.write.record.merger.strategy", "hoodie.write.record.merge.strategy.id", None, _U, _LATER_DATA
    ),
    _old("hoodie.compaction.record.merger.strategy", "hoodie.record.merge.strategy.id", None, _D, _DECLARED),
    *(
        _old(f"hoodie.deltastreamer.keygen.{name}", f"hoodie.keygen.{name}", default, _D, _DECLARED)
        for name, default in (
            ("timebased.timestamp.type", None),
            ("timebased.timestamp.scalar.time.unit", "SECONDS"),
            ("timebased.input.dateformat", ""),
            ("timebased.input.dateformat.list.delimiter.regex", ","),
            ("timebased.input.timezone", "UTC"),
            ("timebased.output.dateformat", ""),
            ("timebased.output.timezone", "UTC"),
            ("timebased.timezone", "UTC"),
        )
    ),
    _old(
        "hoodie.deltastreamer.keygen.datetime.parser.class",
        "hoodie.keygen.datetime.parser.class",
        "org.apache.hudi.keygen.parser.HoodieDateTimeParser",
        _U,
        _JAVA,
    ),
)

_STREAMER_PREFIX: Final = "hoodie.streamer."

# Hudi 0.14 renamed `hoodie.deltastreamer.*` to `hoodie.streamer.*` and kept the old prefix as an alternative.
_DELTASTREAMER: Final[tuple[CatalogEntry, ...]] = tuple(
    _old(f"hoodie.deltastreamer.{key.removeprefix(_STREAMER_PREFIX)}", key, default, _U, _STREAMER)
    for key, default, _status, _reason in _DOCUMENTED
    if key.startswith(_STREAMER_PREFIX)
)

CATALOG: Final[tuple[CatalogEntry, ...]] = (*_DOCUMENTED, *_LEGACY, *_DELTASTREAMER)
"""Every Hudi 1.0.2 key with its documented default, its status here and the reason."""


def register_catalog() -> int:
    """Registers every catalog key not registered yet; returns how many were added.

    Idempotent: a key already in the registry (declared by a family module, or by an earlier call)
    is left as it is, so family declarations always win. Entries marked declared are never
    registered here: their family module declares them. Never raises on a duplicate.
    """
    added = 0
    for key, default, status, reason in CATALOG:
        if reason.endswith(_DECLARED) or lookup(key) is not None:
            continue
        doc = reason if default is None else f"{reason} (Hudi 1.0.2 default: {default!r})"
        try:
            register(ConfigOption(key, parse_str, default, doc, status=status))
        except RuntimeError:  # registered concurrently by someone else: theirs wins
            continue
        added += 1
    return added
