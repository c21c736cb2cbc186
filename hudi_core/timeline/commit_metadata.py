"""Commit metadata of commit, deltacommit and replacecommit instants (spec notes §1.5).

`HoodieCommitMetadata` / `HoodieReplaceCommitMetadata` are read by field name, so both the Avro
records of layout 2 and the Jackson JSON of layout 1 map onto the same models.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hudi_core.config.write import SINK_CHECKPOINT_KEY, HudiWriteConfig
from hudi_core.errors import FileFormatError

# Where a write's checkpoint goes in extraMetadata (Hudi streamer's key) and whose it is (Spark
# streaming's identifier key): see hudi_core.table.checkpoint.
CHECKPOINT_KEY = "streamer.checkpoint.key.v2"
CHECKPOINT_IDENTIFIER_KEY = HudiWriteConfig.CHECKPOINT_IDENTIFIER.key  # Hudi records the option's key


def _int(value: Any) -> int:
    return int(value) if value is not None else 0


@dataclass(frozen=True, slots=True)
class WriteStat:
    """What one commit wrote to one file group.

    Attributes:
        file_id: the file group.
        path: the file written, relative to the base path.
        partition_path: the partition ("" when non-partitioned).
        prev_commit: the base instant of the slice updated, or None for a new file group.
        base_file: the base file of the slice (v6 log appends; "" on v8 log appends).
        log_files: log files of the write (v8: the file written; v6: all logs of the slice).
        cdc_stats: CDC log files written (relative path -> size).
    """

    file_id: str
    path: str
    partition_path: str
    prev_commit: str | None
    num_writes: int
    num_inserts: int
    num_update_writes: int
    num_deletes: int
    total_write_bytes: int
    file_size_in_bytes: int
    total_log_records: int
    base_file: str | None
    log_files: tuple[str, ...]
    cdc_stats: Mapping[str, int] | None
    prev_base_file: str | None = None
    log_version: int | None = None
    log_offset: int | None = None
    # Compaction figures (zero for other writes).
    total_log_blocks: int = 0
    total_updated_records_compacted: int = 0
    total_log_files_compacted: int = 0
    total_log_size_compacted: int = 0
    total_log_read_time_ms: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any], partition_path: str) -> WriteStat:
        """Reads one stat; `partition_path` is its map key, used when the stat has none."""
        prev = record.get("prevCommit")
        return cls(
            file_id=record.get("fileId") or "",
            path=record.get("path") or "",
            partition_path=record.get("partitionPath") or partition_path,
            prev_commit=None if prev in (None, "null") else str(prev),
            num_writes=_int(record.get("numWrites")),
            num_inserts=_int(record.get("numInserts")),
            num_update_writes=_int(record.get("numUpdateWrites")),
            num_deletes=_int(record.get("numDeletes")),
            total_write_bytes=_int(record.get("totalWriteBytes")),
            file_size_in_bytes=_int(record.get("fileSizeInBytes")),
            total_log_records=_int(record.get("totalLogRecords")),
            base_file=record.get("baseFile"),
            log_files=tuple(record.get("logFiles") or ()),
            cdc_stats=record.get("cdcStats"),
            prev_base_file=record.get("prevBaseFile"),
            log_version=record.get("logVersion"),
            log_offset=record.get("logOffset"),
            total_log_blocks=_int(record.get("totalLogBlocks")),
            total_updated_records_compacted=_int(record.get("totalUpdatedRecordsCompacted")),
            total_log_files_compacted=_int(record.get("totalLogFilesCompacted")),
            total_log_size_compacted=_int(record.get("totalLogSizeCompacted")),
            total_log_read_time_ms=_int(record.get("totalLogReadTimeMs")),
            extra=dict(record),
        )

    def to_record(self) -> dict[str, Any]:
        """The `HoodieWriteStat` record, with the values a Hudi 1.0 Spark writer puts in each field."""
        is_log = self.log_version is not None
        return {
            "fileId": self.file_id,
            "path": self.path,
            "prevCommit": self.prev_commit if self.prev_commit is not None else "null",
            "numWrites": self.num_writes,
            "numDeletes": self.num_deletes,
            "numUpdateWrites": self.num_update_writes,
            "totalWriteBytes": self.total_write_bytes,
            "totalWriteErrors": 0,
            "partitionPath": self.partition_path,
            "totalLogRecords": self.total_log_records,
            "totalLogFiles": None,
            "totalUpdatedRecordsCompacted": self.total_updated_records_compacted,
            "numInserts": self.num_inserts,
            "totalLogBlocks": self.total_log_blocks,
            "totalCorruptLogBlock": 0,
            "totalRollbackBlocks": 0,
            "fileSizeInBytes": self.file_size_in_bytes,
            "logVersion": self.log_version,
            "logOffset": self.log_offset,
            "baseFile": self.base_file if self.base_file is not None else ("" if is_log else None),
            "logFiles": list(self.log_files) if is_log else None,
            "cdcStats": dict(self.cdc_stats) if self.cdc_stats else None,
            "prevBaseFile": self.prev_base_file,
            "minEventTime": None,
            "maxEventTime": None,
            "runtimeStats": {"totalScanTime": self.total_log_read_time_ms, "totalCreateTime": 0, "totalUpsertTime": 0},
            "totalLogFilesCompacted": self.total_log_files_compacted,
            "totalLogReadTimeMs": self.total_log_read_time_ms,
            "totalLogSizeCompacted": self.total_log_size_compacted,
            "tempPath": None,
            "numUpdates": 0,
        }


@dataclass(frozen=True, slots=True)
class CommitMetadata:
    """`HoodieCommitMetadata`, plus `partitionToReplaceFileIds` of replace commits.

    Attributes:
        partition_to_write_stats: write stats per partition path.
        partition_to_replace_file_ids: file groups a replace commit logically deleted.
        extra_metadata: `extraMetadata` (the table schema under "schema", checkpoints, ...).
        operation_type: the `WriteOperationType` name (UPSERT, COMPACT, CLUSTER, ...).
        compacted: true for compaction commits.
    """

    partition_to_write_stats: Mapping[str, tuple[WriteStat, ...]]
    partition_to_replace_file_ids: Mapping[str, tuple[str, ...]]
    extra_metadata: Mapping[str, str]
    operation_type: str | None
    compacted: bool

    @classmethod
    def empty(cls) -> CommitMetadata:
        return cls({}, {}, {}, None, False)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any] | None, where: str) -> CommitMetadata:
        if record is None:
            return cls.empty()
        try:
            stats = {
                partition: tuple(WriteStat.from_dict(s, partition) for s in (entries or ()))
                for partition, entries in (record.get("partitionToWriteStats") or {}).items()
            }
            replaced = {
                partition: tuple(ids or ())
                for partition, ids in (record.get("partitionToReplaceFileIds") or {}).items()
            }
            extra = {str(k): str(v) for k, v in (record.get("extraMetadata") or {}).items() if v is not None}
        except (AttributeError, TypeError) as e:
            raise FileFormatError(f"{where}: malformed commit metadata: {e}") from e
        return cls(stats, replaced, extra, record.get("operationType"), bool(record.get("compacted")))

    @property
    def schema(self) -> str | None:
        """The table's Avro schema (without meta fields) as written by this commit."""
        return self.extra_metadata.get("schema") or None

    def checkpoint(self, identifier: str | None = None) -> str | None:
        """The checkpoint this commit stored (only if written under `identifier`, when given)."""
        checkpoint = self.extra_metadata.get(CHECKPOINT_KEY)
        if not checkpoint:
            return None
        if identifier is not None and self.extra_metadata.get(CHECKPOINT_IDENTIFIER_KEY) != identifier:
            return None
        return checkpoint

    def sink_batch(self, identifier: str) -> int | None:
        """The micro-batch id a streaming sink writing as `identifier` committed here, if any."""
        raw = self.extra_metadata.get(SINK_CHECKPOINT_KEY)
        if not raw:
            return None
        try:
            batches = json.loads(raw)
            return int(batches[identifier]) if isinstance(batches, dict) and identifier in batches else None
        except (ValueError, TypeError) as e:
            raise FileFormatError(f"malformed {SINK_CHECKPOINT_KEY} in commit metadata: {raw!r}") from e

    def write_stats(self) -> list[WriteStat]:
        return [stat for stats in self.partition_to_write_stats.values() for stat in stats]

    def touched_file_groups(self) -> set[tuple[str, str]]:
        """(partition path, file id) of every file group this commit wrote."""
        return {(s.partition_path, s.file_id) for s in self.write_stats()}


def written_paths(stats: Sequence[WriteStat]) -> set[str]:
    """Every data file the stats name: base and log files, and their CDC logs."""
    return {s.path for s in stats} | {path for s in stats for path in (s.cdc_stats or {})}


def commit_metadata_record(
    stats: Iterable[WriteStat],
    operation_type: str,
    extra_metadata: Mapping[str, str],
    replaced: Mapping[str, Sequence[str]] | None = None,
    compacted: bool = False,
) -> dict[str, Any]:
    """The `HoodieCommitMetadata` (or, with `replaced`, `HoodieReplaceCommitMetadata`) record."""
    by_partition: dict[str, list[dict[str, Any]]] = {}
    for stat in stats:
        by_partition.setdefault(stat.partition_path, []).append(stat.to_record())
    record: dict[str, Any] = {
        "partitionToWriteStats": by_partition,
        "compacted": compacted,
        "extraMetadata": dict(extra_metadata),
        "version": None,
        "operationType": operation_type,
    }
    if replaced is not None:
        record["partitionToReplaceFileIds"] = {p: list(ids) for p, ids in replaced.items()}
    return record
