"""Checkpoints for exactly-once processing: where a writer's input stood when it committed.

A write given `checkpoint=` stores it in the commit's extraMetadata under `streamer.checkpoint.key.v2`
(Hudi streamer's key), and its `checkpoint_identifier` under
`hoodie.datasource.write.streaming.checkpoint.identifier` (as Spark streaming writes do). Because the
checkpoint commits atomically with the data, a job that reads its input from the latest checkpoint
and writes with the new one processes every input exactly once, whatever crashed in between.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from hudi_core.storage import Storage
from hudi_core.table.state import TableState, archive_dir
from hudi_core.timeline import Timeline
from hudi_core.timeline.archive import load_archived_instants
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.instant import DATA_ACTIONS, Instant

T = TypeVar("T")

_DATA_ACTION_NAMES = frozenset(a.value for a in DATA_ACTIONS)


def latest_checkpoint(storage: Storage, state: TableState, identifier: str | None = None) -> str | None:
    """The checkpoint of the latest completed commit (by completion time) that stored one.

    Table services, cleans and writers without a checkpoint are skipped; when no active commit has
    one, the archived timeline is searched.
    """
    return _latest_recorded(storage, state, lambda metadata: metadata.checkpoint(identifier))


def latest_sink_batch(storage: Storage, state: TableState, identifier: str) -> int | None:
    """The last micro-batch a Spark streaming sink writing as `identifier` committed (Apache Hudi's
    sink and `hudi_core.spark.write_stream` record it alike), searched as `latest_checkpoint` does."""
    return _latest_recorded(storage, state, lambda metadata: metadata.sink_batch(identifier))


def _latest_recorded(storage: Storage, state: TableState, recorded: Callable[[CommitMetadata], T | None]) -> T | None:
    """What `recorded` finds in the newest completed data commit holding it, archived ones included."""
    timeline = state.timeline
    for instant in sorted(timeline.completed_data_instants(), key=timeline.completion_order_key, reverse=True):
        found = recorded(timeline.commit_metadata(instant))
        if found is not None:
            return found
    if state.config.timeline_layout_version < 2:
        return None  # the layout-1 archive (log files of HoodieArchivedMetaEntry) is not read
    history = archive_dir(state.config)
    for archived in reversed(load_archived_instants(storage, history)):
        if archived.action not in _DATA_ACTION_NAMES:
            continue
        found = recorded(archived.commit_metadata(storage.full_path(history)))
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class ChangeWindow:
    """The source commits a downstream consumer has not processed yet.

    Attributes:
        start: exclusive lower bound for incremental/CDC reads ("earliest" when nothing was read).
        end: inclusive upper bound: the completion time (instant time on layout 1) of the newest
            commit to read; also the checkpoint to store with the downstream write.
        commits: requested times of the data commits in the window, oldest first.
    """

    start: str
    end: str
    commits: tuple[str, ...]


def change_window(timeline: Timeline, checkpoint: str | None) -> ChangeWindow | None:
    """The source's data commits (not table services) that completed after `checkpoint`.

    None when there is nothing new (see `commits_after`).
    """
    commits = commits_after(timeline, checkpoint)
    if not commits:
        return None
    end = timeline.completion_order_key(commits[-1])
    return ChangeWindow(checkpoint or "earliest", end, tuple(i.requested_time for i in commits))


def commits_after(timeline: Timeline, checkpoint: str | None) -> list[Instant]:
    """The active timeline's data commits (not table services) completed after `checkpoint`
    (a completion time; None: all), in completion order.

    On layout-1 timelines (ordered by instant time) the list stops before the earliest pending
    instant: a commit that completes later would otherwise land behind the checkpoint and be missed.
    """
    order = timeline.completion_order_key
    commits = [
        i
        for i in timeline.completed_data_instants()
        if not timeline.is_table_service(i) and (checkpoint is None or order(i) > checkpoint)
    ]
    if timeline.layout_version < 2:
        pending = [i.requested_time for i in timeline.pending() if i.action.completed_action in DATA_ACTIONS]
        if pending:
            commits = [i for i in commits if i.requested_time < min(pending)]
    return sorted(commits, key=order)
