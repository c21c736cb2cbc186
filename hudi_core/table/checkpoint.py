"""Checkpoints for exactly-once processing: where a writer's input stood when it committed.

A write given `checkpoint=` stores it in the commit's extraMetadata under `streamer.checkpoint.key.v2`
(Hudi streamer's key), and its `checkpoint_identifier` under
`hoodie.datasource.write.streaming.checkpoint.identifier` (as Spark streaming writes do). Because the
checkpoint commits atomically with the data, a job that reads its input from the latest checkpoint
and writes with the new one processes every input exactly once, whatever crashed in between.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_core.storage import Storage
from hudi_core.table.state import TableState, archive_dir
from hudi_core.timeline import Timeline
from hudi_core.timeline.archive import load_archived_instants
from hudi_core.timeline.instant import DATA_ACTIONS

_DATA_ACTION_NAMES = frozenset(a.value for a in DATA_ACTIONS)


def latest_checkpoint(storage: Storage, state: TableState, identifier: str | None = None) -> str | None:
    """The checkpoint of the latest completed commit (by completion time) that stored one.

    Table services, cleans and writers without a checkpoint are skipped; when no active commit has
    one, the archived timeline is searched.
    """
    timeline = state.timeline
    for instant in sorted(timeline.completed_data_instants(), key=timeline.completion_order_key, reverse=True):
        found = timeline.commit_metadata(instant).checkpoint(identifier)
        if found is not None:
            return found
    if state.config.timeline_layout_version < 2:
        return None  # the layout-1 archive (log files of HoodieArchivedMetaEntry) is not read
    history = archive_dir(state.config)
    for archived in reversed(load_archived_instants(storage, history)):
        if archived.action not in _DATA_ACTION_NAMES:
            continue
        found = archived.commit_metadata(storage.full_path(history)).checkpoint(identifier)
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

    On layout-1 timelines (ordered by instant time) the window stops before the earliest pending
    instant: a commit that completes later would otherwise land behind the checkpoint and be missed.
    None when there is nothing new.
    """
    start = checkpoint or "earliest"
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
    if not commits:
        return None
    commits.sort(key=order)
    return ChangeWindow(start, order(commits[-1]), tuple(i.requested_time for i in commits))
