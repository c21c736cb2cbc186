"""Orphan files: data files on storage that no committed instant wrote and no pending one may still commit.

A rolled-back or cleaned-up write leaves none; a writer that died before its rollback leaves its
files until the next writer rolls it back. Files of pending instants are not orphans (their writer
may be alive), and neither are files that only older, not yet cleaned slices reference.
"""

from __future__ import annotations

import posixpath

from hudi_core.file_group.fs_view import visible_instants
from hudi_core.file_group.naming import PARTITION_METAFILE_PREFIX, parse_base_file_name, parse_log_file_name
from hudi_core.storage import Storage
from hudi_core.table.listing import list_partitions
from hudi_core.table.state import load_table_state


def orphan_files(storage: Storage) -> list[str]:
    """Relative paths of data-partition files neither committed nor pending, sorted (stray names too)."""
    timeline = load_table_state(storage).timeline
    committed = visible_instants(timeline, timeline.completed_data_instants(), None)
    pending = {i.requested_time for i in timeline.pending()}
    orphans: list[str] = []
    for partition, entries in list_partitions(storage).items():
        for entry in entries:
            if entry.is_dir or entry.name.startswith(PARTITION_METAFILE_PREFIX):
                continue
            parsed = parse_base_file_name(entry.name) or parse_log_file_name(entry.name)
            if parsed is None or not (committed.sees(parsed.instant_time) or parsed.instant_time in pending):
                orphans.append(posixpath.join(partition, entry.name) if partition else entry.name)
    return sorted(orphans)
