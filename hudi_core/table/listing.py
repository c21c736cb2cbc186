"""Listing a table's partitions and files: from the metadata table when the table keeps one,
otherwise from storage.

Without a metadata table, Hudi finds partitions by their `.hoodie_partition_metadata` file
(`FSUtils.getAllFoldersWithPartitionMetaFile`); non-partitioned tables keep it at the base path.
As in Hudi, the walk goes on below a partition (values `a` and `a/b` of one column nest one
partition in another) and skips folders whose name contains `.hoodie`, but no other hidden folder
(a partition value may start with a dot). Stray files such as `.DS_Store`, `.crc` checksums or
Spark `_SUCCESS` markers are left for the file-name parsers to reject.

With a metadata table whose `files` partition is in `hoodie.table.metadata.partitions`, the
`files` partition is the listing, as it is for Apache Hudi and hudi-rs (notes §5.4).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from hudi_core import metrics
from hudi_core.config.properties import PROPERTIES_FILE
from hudi_core.config.table import TableConfig
from hudi_core.file_group import FileSlice
from hudi_core.file_group.fs_view import latest_file_slices, visible_instants
from hudi_core.file_group.naming import PARTITION_METAFILE_PREFIX
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import METADATA_DIR, MetadataTableReader
from hudi_core.storage import FileEntry, Storage
from hudi_core.table.state import METAFOLDER, load_table_config
from hudi_core.timeline import Timeline


def list_partitions(storage: Storage) -> dict[str, list[FileEntry]]:
    """Every partition path (relative to the base path) with the entries it contains, from storage."""
    partitions: dict[str, list[FileEntry]] = {}
    pending = [""]
    while pending:
        directory = pending.pop()
        entries = storage.list_dir(directory)
        metrics.add(partitions_listed=1)
        if any(not e.is_dir and e.name.startswith(PARTITION_METAFILE_PREFIX) for e in entries):
            partitions[directory] = entries
        pending.extend(
            posixpath.join(directory, e.name) if directory else e.name
            for e in entries
            if e.is_dir and METAFOLDER not in e.name
        )
    return dict(sorted(partitions.items()))


def metadata_table_reader(
    storage: Storage, timeline: Timeline, config: TableConfig | None = None
) -> MetadataTableReader | None:
    """The table's metadata table when readers list through it (v8+, `files` published, present)."""
    config = config or load_table_config(storage)
    if config.version < 8 or MetadataPartition.FILES.path not in config.metadata_partitions:
        return None
    if not storage.exists(f"{METADATA_DIR}/{PROPERTIES_FILE}"):
        return None  # declared but missing (a table whose metadata table was not shipped): list storage
    return MetadataTableReader(storage, timeline)


def metadata_index_reader(
    storage: Storage, partition: MetadataPartition, timeline: Timeline
) -> MetadataTableReader | None:
    """The metadata table when it keeps `partition` in sync (for index lookups), else None.

    `timeline` is the writer's snapshot: entries of instants completed after it must not be seen,
    or a key moved by a concurrent clustering would point at a file group the writer cannot see
    yet, be taken for new and stored twice.
    """
    config = load_table_config(storage)
    if partition.path not in config.metadata_partitions:
        return None
    return metadata_table_reader(storage, timeline, config)


class FileListing:
    """Partitions and their files, listed once per planning."""

    def __init__(
        self, storage: Storage, timeline: Timeline, use_metadata: bool = True, config: TableConfig | None = None
    ) -> None:
        self.storage = storage
        self.metadata = metadata_table_reader(storage, timeline, config) if use_metadata else None
        self._listed: dict[str, list[FileEntry]] | None = None

    def partitions(self) -> list[str]:
        if self.metadata is not None:
            return self.metadata.all_partitions()
        return list(self._storage_listing())

    def files(self, partitions: Iterable[str]) -> dict[str, list[FileEntry]]:
        wanted = sorted(set(partitions))
        if self.metadata is not None:
            listed = self.metadata.partition_files(wanted)
            return {p: [FileEntry(name, size, False) for name, size in listed.get(p, {}).items()] for p in wanted}
        if self._listed is not None:
            return {p: self._listed[p] for p in wanted if p in self._listed}
        found: dict[str, list[FileEntry]] = {}
        for partition in wanted:
            if self.storage.exists(partition):
                found[partition] = self.storage.list_dir(partition)
                metrics.add(partitions_listed=1)
        return found

    def all_files(self) -> dict[str, list[FileEntry]]:
        if self.metadata is None:
            return self._storage_listing()
        return self.files(self.partitions())

    def _storage_listing(self) -> dict[str, list[FileEntry]]:
        if self._listed is None:
            self._listed = list_partitions(self.storage)
        return self._listed


def latest_slices(
    storage: Storage, timeline: Timeline, partitions: Iterable[str] | None = None
) -> dict[str, list[FileSlice]]:
    """The latest file slice of every file group (of `partitions`, or of every partition) by partition."""
    view = visible_instants(timeline, timeline.completed_data_instants(), None)
    listing = FileListing(storage, timeline)
    listed = listing.all_files() if partitions is None else listing.files(partitions)
    return {partition: latest_file_slices(partition, entries, view) for partition, entries in listed.items()}
