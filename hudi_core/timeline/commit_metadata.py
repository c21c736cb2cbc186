"""Commit metadata of commit, deltacommit and replacecommit instants (spec notes §1.5).

`HoodieCommitMetadata` / `HoodieReplaceCommitMetadata` are read by field name, so both the Avro
records of layout 2 and the Jackson JSON of layout 1 map onto the same models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hudi_core.errors import FileFormatError


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
            extra=dict(record),
        )


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

    def write_stats(self) -> list[WriteStat]:
        return [stat for stats in self.partition_to_write_stats.values() for stat in stats]

    def touched_file_groups(self) -> set[tuple[str, str]]:
        """(partition path, file id) of every file group this commit wrote."""
        return {(s.partition_path, s.file_id) for s in self.write_stats()}
