"""The file-system view: which file slice of each file group a query reads.

Only files of visible instants count: a base file whose instant (commit, compaction or clustering)
is a completed, visible instant, and on layout 2 a log file whose deltacommit is. On layout 2 a
log file belongs to the slice with the greatest base instant at or before the log's *completion*
time (spec notes §3.2), so logs of a deltacommit that completed after a compaction was planned land
in the newer slice; while that slice's base file is not visible (compaction pending, or time
travel to before it) they merge into the previous slice, as Hudi's merged file slices do. On
layout 1 (v6) a log file names the base instant of its slice; log blocks of instants that never
completed are dropped when the blocks are read.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hudi_core.file_group import FileSlice
from hudi_core.file_group.naming import LogFileName, parse_base_file_name, parse_log_file_name
from hudi_core.storage import FileEntry
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Action, Instant


@dataclass(frozen=True)
class VisibleInstants:
    """What a query sees of the timeline.

    Attributes:
        layout_version: the timeline layout (1 or 2).
        visible: requested times of the completed commit/deltacommit/replacecommit instants
            (compaction and clustering included) the query sees.
        completion_times: requested time -> completion time of those instants (layout 2).
        replaced: (partition path, file id) of file groups replaced by a visible replacecommit.
        upper_bound: the latest instant time the query may see (layout 1 log files).
        archived_before: files of instants older than this were written by archived (hence
            completed) commits and count as visible, as Hudi's `isBeforeTimelineStarts` has it;
            None when nothing was archived.
    """

    layout_version: int
    visible: frozenset[str]
    completion_times: Mapping[str, str]
    replaced: frozenset[tuple[str, str]]
    upper_bound: str | None
    archived_before: str | None = None

    def sees(self, instant: str) -> bool:
        """Whether files written by `instant` are visible."""
        if instant in self.visible:
            return True
        return (
            self.archived_before is not None
            and instant < self.archived_before
            and (self.upper_bound is None or instant <= self.upper_bound)
        )


def visible_instants(timeline: Timeline, instants: Iterable[Instant], upper_bound: str | None) -> VisibleInstants:
    """What a query that sees exactly `instants` (completed data instants) sees of the file system."""
    instants = list(instants)
    replaced: set[tuple[str, str]] = set()
    for instant in instants:
        if instant.action is Action.REPLACE_COMMIT:
            metadata = timeline.commit_metadata(instant)
            replaced |= {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}
    archived_before = timeline.first_active_write() if timeline.has_archive() else None
    completion_times = {i.requested_time: i.completion_time for i in instants if i.completion_time}
    if archived_before is not None:  # archived deltacommits' completion times slice their logs
        for archived in timeline.archived():
            completion_times.setdefault(archived.requested_time, archived.completion_time)
    return VisibleInstants(
        layout_version=timeline.layout_version,
        visible=frozenset(i.requested_time for i in instants),
        completion_times=completion_times,
        replaced=frozenset(replaced),
        upper_bound=upper_bound,
        archived_before=archived_before,
    )


def latest_file_slices(partition_path: str, entries: Iterable[FileEntry], view: VisibleInstants) -> list[FileSlice]:
    """The latest visible slice of every file group in one partition's listing."""
    groups = file_group_slices(partition_path, entries, view)
    return [
        slices[-1] for (_, file_id), slices in sorted(groups.items()) if (partition_path, file_id) not in view.replaced
    ]


def file_group_slices(
    partition_path: str, entries: Iterable[FileEntry], view: VisibleInstants
) -> dict[tuple[str, str], list[FileSlice]]:
    """Every visible slice of every file group (replaced ones included), oldest first.

    Keys are (partition path, file id). A log file joins the slice with the greatest base instant at
    or before its slice time (`_slice_key`); logs older than every base file form a log-only
    first slice.
    """
    bases: dict[str, dict[str, FileEntry]] = defaultdict(dict)
    logs: dict[str, list[tuple[LogFileName, FileEntry]]] = defaultdict(list)
    for entry in entries:
        if entry.is_dir:
            continue
        base = parse_base_file_name(entry.name)
        if base is not None:
            if view.sees(base.instant_time):
                bases[base.file_id][base.instant_time] = entry
            continue
        log = parse_log_file_name(entry.name)
        if log is None or log.is_cdc:
            continue
        if view.layout_version >= 2:
            if view.sees(log.instant_time):
                logs[log.file_id].append((log, entry))
        elif view.upper_bound is None or log.instant_time <= view.upper_bound:
            logs[log.file_id].append((log, entry))

    groups: dict[tuple[str, str], list[FileSlice]] = {}
    for file_id in sorted(set(bases) | set(logs)):
        group_bases = bases.get(file_id, {})
        instants = sorted(group_bases)
        members: dict[str | None, list[tuple[LogFileName, FileEntry]]] = defaultdict(list)
        for log, entry in logs.get(file_id, []):
            position = bisect.bisect_right(instants, _slice_key(log, view)) - 1
            members[instants[position] if position >= 0 else None].append((log, entry))
        slices = []
        for base_instant in [None, *instants]:
            logs_here = sorted(members.get(base_instant, []), key=lambda pair: pair[0].sort_key())
            if base_instant is None and not logs_here:
                continue
            base_entry = group_bases[base_instant] if base_instant is not None else None
            slices.append(
                FileSlice(
                    partition_path=partition_path,
                    file_id=file_id,
                    base_instant=base_instant if base_instant is not None else logs_here[0][0].instant_time,
                    base_file=base_entry.name if base_entry else None,
                    log_files=tuple(entry.name for _, entry in logs_here),
                    base_file_size=base_entry.size if base_entry else 0,
                    log_file_sizes=tuple(entry.size for _, entry in logs_here),
                )
            )
        groups[(partition_path, file_id)] = slices
    return groups


def _slice_key(log: LogFileName, view: VisibleInstants) -> str:
    """The time that places a log file in a slice: completion time (layout 2) or base instant."""
    if view.layout_version >= 2:
        return view.completion_times.get(log.instant_time, log.instant_time)
    return log.instant_time
