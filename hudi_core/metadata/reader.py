"""Reading the metadata table: merged records of one partition, by key, key prefix or all.

The metadata table is a Merge-on-Read table with HFile base files and HFILE_DATA log blocks. A
deltacommit of the metadata table shares its instant time with the data-table commit it records
and completes first, so a reader trusts only deltacommits whose data-table instant completed,
plus the metadata table's own instants (initialization at `0000000000000000x`, compactions);
anything else belongs to a data-table write that failed and will be rolled back.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hudi_core import metrics
from hudi_core.config.metadata import HudiMetadataConfig
from hudi_core.errors import MetadataTableError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.base_file.hfile import read_hfile_cells, read_hfile_info
from hudi_core.file_group.fs_view import latest_file_slices, visible_instants
from hudi_core.file_group.log_file.blocks import decode_delete_block
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import RawBlock
from hudi_core.file_group.log_file.scanner import BlockVisibility, scan_log_files
from hudi_core.keygen.partition_path import partition_path_problem
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.payload import merge
from hudi_core.metadata.record import (
    ALL_PARTITIONS_KEY,
    MetadataRecord,
    decode,
    listed_files,
    partition_name,
    partition_path,
)
from hudi_core.storage import Storage
from hudi_core.table.state import load_table_state
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Action, Instant

METADATA_DIR = ".hoodie/metadata"
INIT_INSTANT_PREFIX = "0000000000000"  # initialization instants: 00000000000000000, ...001, ...


def is_own_instant(instant: Instant) -> bool:
    """An instant of the metadata table itself rather than the record of a data-table instant."""
    return instant.requested_time.startswith(INIT_INSTANT_PREFIX) or instant.action is Action.COMMIT


@dataclass(frozen=True)
class KeyFilter:
    """Which keys of a partition to return: exact keys, key prefixes, or (both None) all."""

    keys: frozenset[str] | None = None
    prefixes: tuple[str, ...] | None = None

    def wants(self, key: str) -> bool:
        if self.keys is not None and key in self.keys:
            return True
        if self.prefixes is not None and key.startswith(self.prefixes):
            return True
        return self.keys is None and self.prefixes is None


class MetadataTableReader:
    """The merged view of a table's metadata table as the data timeline sees it."""

    def __init__(self, storage: Storage, data_timeline: Timeline) -> None:
        self.storage = storage.sub(METADATA_DIR)
        try:
            self.timeline = load_table_state(self.storage).timeline
        except Exception as e:
            raise MetadataTableError(f"cannot load the metadata table at {self.storage.base_uri}: {e}") from e
        data_done = {i.requested_time for i in data_timeline.completed()}
        data_start = data_timeline.first_active_write() if data_timeline.has_archive() else None
        self.valid = [
            i
            for i in self.timeline.completed()
            if i.action in (Action.DELTA_COMMIT, Action.COMMIT)
            and (
                is_own_instant(i)
                or i.requested_time in data_done
                or (data_start is not None and i.requested_time < data_start)
            )
        ]
        self._view = visible_instants(self.timeline, self.valid, None)
        self._blocks = BlockVisibility(frozenset(i.requested_time for i in self.valid))
        self._completion_order = {i.requested_time: i.completion_time or "" for i in self.valid}

    def file_slices(self, partition: MetadataPartition) -> list[FileSlice]:
        """The latest slice of every file group of one metadata-table partition."""
        if not self.storage.exists(partition.path):
            return []
        entries = self.storage.list_dir(partition.path)
        return latest_file_slices(partition.path, entries, self._view)

    def records(self, partition: MetadataPartition, wanted: KeyFilter = KeyFilter()) -> dict[str, MetadataRecord]:
        """Merged records of `partition` (only the keys `wanted`), by key."""
        merged: dict[str, MetadataRecord] = {}
        for file_slice in self.file_slices(partition):
            merged.update(self.slice_records(file_slice, wanted))
        return merged

    def slice_records(self, file_slice: FileSlice, wanted: KeyFilter) -> dict[str, MetadataRecord]:
        records: dict[str, MetadataRecord] = {}
        base = file_slice.base_file_path
        if base is not None:
            content = self.storage.read_bytes(base)
            metrics.add(metadata_files_read=1)
            schema = read_hfile_info(content, base).get(b"schema", b"").decode("utf-8")
            for key, value in _cells(content, base, wanted):
                records[key] = decode(value, schema)
        blocks = scan_log_files(self.storage, file_slice.log_file_paths, self._blocks, counted=False)
        metrics.add(metadata_files_read=len(file_slice.log_file_paths))
        # Deltacommits carry their data instant's requested time, but under optimistic concurrency
        # data instants complete out of that order; the metadata timeline completes them in data
        # completion order (under the table lock), so that order decides which update is newer.
        blocks.sort(key=lambda block: self._completion_order.get(block.instant_time or "", ""))
        for block in blocks:
            self._apply(block, records, wanted)
        return records

    @staticmethod
    def _apply(block: RawBlock, records: dict[str, MetadataRecord], wanted: KeyFilter) -> None:
        if block.block_type is BlockType.DELETE:
            for key in decode_delete_block(block).keys.to_pylist():
                records.pop(key, None)
            return
        if block.block_type is not BlockType.HFILE_DATA:
            raise MetadataTableError(
                f"{block.describe()}: unexpected {block.block_type.name} block in the metadata table"
            )
        schema = block.header.get(HeaderKey.SCHEMA, "")
        for key, value in _cells(bytes(block.content), block.describe(), wanted):
            newer = decode(value, schema)
            combined = merge(records.get(key), newer)
            if combined is None:
                records.pop(key, None)
            else:
                records[key] = combined

    # ---- files partition ------------------------------------------------------------------------

    def all_partitions(self) -> list[str]:
        """Every data-table partition path the `files` partition lists."""
        record = self.records(MetadataPartition.FILES, KeyFilter(frozenset([ALL_PARTITIONS_KEY])))
        return sorted(_listed_partition(name) for name in listed_files(record.get(ALL_PARTITIONS_KEY)))

    def partition_files(self, partitions: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
        """File name -> size of every listed file, by partition path (every listed partition when None)."""
        if partitions is None:
            records = self.records(MetadataPartition.FILES)
            names = set(listed_files(records.get(ALL_PARTITIONS_KEY)))
        else:
            names = {partition_name(p) for p in partitions}
            records = self.records(MetadataPartition.FILES, KeyFilter(keys=frozenset(names)))
        return {_listed_partition(name): _listed_names(name, records.get(name)) for name in sorted(names)}


# The listing is read like any input: an entry naming a path outside its partition folder is refused
# (MetadataTableError) rather than skipped, since the listing cannot be trusted for the rest.
_BYPASS = f"read with {HudiMetadataConfig.ENABLE.key}=false to list storage instead"


def _listed_partition(name: str) -> str:
    path = partition_path(name)
    problem = partition_path_problem(path)
    if problem is not None:
        raise MetadataTableError(f"the metadata table lists partition {name!r}, which has {problem}; {_BYPASS}")
    return path


def _listed_names(partition: str, record: MetadataRecord | None) -> dict[str, int]:
    files = listed_files(record)
    bad = next((name for name in files if name in ("", ".", "..") or "/" in name), None)
    if bad is not None:
        raise MetadataTableError(
            f"the metadata table lists {bad!r} in partition {partition!r}, which is no file name; {_BYPASS}"
        )
    return files


def _cells(content: bytes, where: str, wanted: KeyFilter) -> Iterator[tuple[str, bytes]]:
    """(key, value) of the HFile's cells that `wanted` selects (cells are sorted by key)."""
    cells = read_hfile_cells(content, where)
    if wanted.keys is None and wanted.prefixes is None:
        for row, value in cells:
            yield row.decode("utf-8"), value
        return
    rows = [row for row, _ in cells]
    for key in _wanted_rows(rows, wanted):
        yield key, cells[bisect.bisect_left(rows, key.encode("utf-8"))][1]


def _wanted_rows(rows: list[bytes], wanted: KeyFilter) -> list[str]:
    found: list[str] = []
    if wanted.keys is not None:
        for key in wanted.keys:
            encoded = key.encode("utf-8")
            at = bisect.bisect_left(rows, encoded)
            if at < len(rows) and rows[at] == encoded:
                found.append(key)
    for prefix in wanted.prefixes or ():
        encoded = prefix.encode("utf-8")
        at = bisect.bisect_left(rows, encoded)
        while at < len(rows) and rows[at].startswith(encoded):
            found.append(rows[at].decode("utf-8"))
            at += 1
    return found
