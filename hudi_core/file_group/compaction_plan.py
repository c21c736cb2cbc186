"""Compaction plans (`HoodieCompactionPlan`): one operation per file slice to compact.

Shared by the data table's compaction and log compaction and by the metadata table's compaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hudi_core.file_group import FileSlice

PLAN_VERSION = 2
_MB = 1024 * 1024


@dataclass(frozen=True)
class CompactionOperation:
    """One slice a compaction plan rewrites (`HoodieCompactionOperation`)."""

    partition_path: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    metrics: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def for_slice(cls, file_slice: FileSlice, max_file_size: int) -> CompactionOperation:
        log_size = sum(s for s in file_slice.log_file_sizes if s >= 0)
        base_size = file_slice.base_file_size
        read_mb = (base_size + log_size) // _MB
        write_mb = (base_size if base_size > 0 else max_file_size) // _MB
        metrics = {  # Hudi's HashMap order, kept so plans compare byte for byte
            "TOTAL_LOG_FILES": float(len(file_slice.log_files)),
            "TOTAL_IO_MB": float(read_mb + write_mb),
            "TOTAL_IO_READ_MB": float(read_mb),
            "TOTAL_LOG_FILES_SIZE": float(log_size),
            "TOTAL_IO_WRITE_MB": float(write_mb),
        }
        return cls(
            file_slice.partition_path,
            file_slice.file_id,
            file_slice.base_instant,
            file_slice.base_file,
            file_slice.log_files,
            metrics,
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "baseInstantTime": self.base_instant,
            "deltaFilePaths": list(self.log_files),
            "dataFilePath": self.base_file,
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "metrics": dict(self.metrics),
            "bootstrapFilePath": None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionOperation:
        return cls(
            partition_path=record.get("partitionPath") or "",
            file_id=str(record["fileId"]),
            base_instant=record.get("baseInstantTime") or "",
            base_file=record.get("dataFilePath") or None,
            log_files=tuple(record.get("deltaFilePaths") or ()),
            metrics=dict(record.get("metrics") or {}),
        )

    def file_slice(self) -> FileSlice:
        return FileSlice(self.partition_path, self.file_id, self.base_instant, self.base_file, self.log_files)

    @property
    def log_size(self) -> float:
        return float(self.metrics.get("TOTAL_LOG_FILES_SIZE", 0.0))

    @property
    def io_mb(self) -> float:
        return float(self.metrics.get("TOTAL_IO_MB", 0.0))


def plan_record(operations: Sequence[CompactionOperation], strategy: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "operations": [op.to_record() for op in operations],
        "extraMetadata": {},
        "version": PLAN_VERSION,
        "strategy": strategy,
        "preserveHoodieMetadata": strategy is not None,
        "missingSchedulePartitions": [],
    }
