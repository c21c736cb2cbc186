"""Listing a table's partitions from storage.

Without a metadata table, Hudi finds partitions by their `.hoodie_partition_metadata` file
(`FSUtils.getAllFoldersWithPartitionMetaFile`); non-partitioned tables keep it at the base path.
Partitions are never nested, so the walk stops descending once it finds one. Hidden folders
(`.hoodie`, `.temp`, ...) are skipped; stray files such as `.DS_Store`, `.crc` checksums or Spark
`_SUCCESS` markers are left for the file-name parsers to reject.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from hudi_core import metrics
from hudi_core.file_group import FileSlice
from hudi_core.file_group.fs_view import latest_file_slices, visible_instants
from hudi_core.file_group.naming import PARTITION_METAFILE_PREFIX
from hudi_core.storage import FileEntry, Storage
from hudi_core.timeline import Timeline


def list_partitions(storage: Storage) -> dict[str, list[FileEntry]]:
    """Every partition path (relative to the base path) with the entries it contains."""
    partitions: dict[str, list[FileEntry]] = {}
    pending = [""]
    while pending:
        directory = pending.pop()
        entries = storage.list_dir(directory)
        metrics.add(partitions_listed=1)
        if any(not e.is_dir and e.name.startswith(PARTITION_METAFILE_PREFIX) for e in entries):
            partitions[directory] = entries
            continue
        pending.extend(
            posixpath.join(directory, e.name) if directory else e.name
            for e in entries
            if e.is_dir and not e.name.startswith(".")
        )
    return dict(sorted(partitions.items()))


def latest_slices(
    storage: Storage, timeline: Timeline, partitions: Iterable[str] | None = None
) -> dict[str, list[FileSlice]]:
    """The latest file slice of every file group (of `partitions`, or of every partition) by partition."""
    view = visible_instants(timeline, timeline.completed_data_instants(), None)
    if partitions is None:
        listed = list_partitions(storage)
    else:
        listed = {p: storage.list_dir(p) for p in sorted(set(partitions))}
    return {partition: latest_file_slices(partition, entries, view) for partition, entries in listed.items()}
