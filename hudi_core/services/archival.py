"""Archival: moving old completed instants off the active timeline into the LSM history.

Layout (notes §1.7, `hudi_core.timeline.archive`): Parquet files `<min>_<max>_<layer>.parquet` of
`HoodieLSMTimelineInstant` rows under `.hoodie/timeline/history/`, listed by `manifest_<N>` JSON
files, `_version_` naming the latest manifest.

When (Hudi's TimelineArchiverV2): only once more than `hoodie.keep.max.commits` completed commits
(deltacommits, replacecommits, compactions, clusterings) exist, down to `hoodie.keep.min.commits`,
never reaching
* the earliest pending write (commit, deltacommit, replacecommit, compaction, clustering),
* on Merge-on-Read, the deltacommits the compaction trigger still has to count,
* a replacecommit whose replaced file groups the cleaner has not deleted yet (Hudi #6938),
* the earliest savepoint (unless `hoodie.archive.beyond.savepoint`),
and never fewer commits than the cleaner retains. Completed cleans and rollbacks older than the
last archived commit go with them; savepoints and restores stay.

Order (crash-safe, Hudi's): write the Parquet file, then the next manifest, then `_version_`, then
delete the archived instants' requested/inflight files, then their completed files oldest first. A
rerun after a crash finds the same batch and finishes it; readers prefer the active timeline where
an instant is in both. Then layers with `hoodie.timeline.compaction.batch.size` files merge into the
next layer, and manifests beyond the newest three (and files they alone list) are deleted.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core.config.services import CleaningPolicy, CompactionTrigger, HudiArchivalConfig, HudiCompactionConfig
from hudi_core.config.write import HudiWriteConfig
from hudi_core.errors import FileFormatError
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.markers import Markers
from hudi_core.lifecycle.pending import read_plan
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.services.base import ServiceContext
from hudi_core.services.clean import earliest_commit_to_retain
from hudi_core.storage import Storage
from hudi_core.table.state import TableState, archive_dir
from hudi_core.timeline import Timeline
from hudi_core.timeline.archive import (
    DATA_FILE_RE,
    LSM_COLUMNS,
    MANIFEST_PREFIX,
    VERSION_FILE,
    latest_manifest,
    manifest_files,
)
from hudi_core.timeline.instant import TABLE_SERVICE_ACTIONS, Action, Instant, State, instant_file_name
from hudi_core.write.client import check_writable

KEPT_MANIFESTS = 3
LSM_AVRO_SCHEMA = {
    "type": "record",
    "name": "HoodieLSMTimelineInstant",
    "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantTime", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": None},
        {"name": "completionTime", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": None},
        {"name": "action", "type": ["null", {"type": "string", "avro.java.string": "String"}], "default": None},
        {"name": "metadata", "type": ["null", "bytes"], "default": None},
        {"name": "plan", "type": ["null", "bytes"], "default": None},
        {"name": "version", "type": "int", "default": 1},
    ],
}
LSM_SCHEMA = pa.schema(
    [
        pa.field("instantTime", pa.string()),
        pa.field("completionTime", pa.string()),
        pa.field("action", pa.string()),
        pa.field("metadata", pa.binary()),
        pa.field("plan", pa.binary()),
        pa.field("version", pa.int32(), nullable=False),
    ]
)
WRITE_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, *TABLE_SERVICE_ACTIONS})


@dataclass(frozen=True)
class ArchivedAction:
    """One instant as it goes into the history: its row and the active files it came from."""

    instant: Instant
    pending_action: Action
    metadata: bytes | None
    plan: bytes | None


# ---- what to archive --------------------------------------------------------------------------


def _commits(timeline: Timeline) -> list[Instant]:
    return sorted(timeline.completed_data_instants(), key=lambda i: i.requested_time)


def _keep_bounds(ctx: ServiceContext, timeline: Timeline) -> tuple[int, int]:
    """(min, max) commits to keep, raised so the cleaner's retained commits stay active."""
    low = ctx.configs.value(HudiArchivalConfig.MIN_COMMITS)
    high = ctx.configs.value(HudiArchivalConfig.MAX_COMMITS)
    ectr = earliest_commit_to_retain(ctx, timeline)
    if ectr is not None:
        by_cleaning = len([i for i in _commits(timeline) if i.requested_time > ectr.requested_time]) + 2
        if low < by_cleaning:
            low, high = by_cleaning, by_cleaning + (high - low)
    return low, high


def _boundaries(ctx: ServiceContext, state: TableState) -> list[str]:
    """Requested times archival must stay below."""
    storage, timeline = ctx.storage, state.timeline
    commits = _commits(timeline)
    found: list[str] = []
    pending = [i for i in timeline.pending() if timeline.pending_action(i) in WRITE_ACTIONS]
    if pending:
        before = [c for c in commits if c.requested_time < pending[0].requested_time]
        found.append(before[-1].requested_time if before else pending[0].requested_time)
    trigger = ctx.configs.value(HudiCompactionConfig.TRIGGER_STRATEGY)
    if state.config.is_mor and trigger in (CompactionTrigger.NUM_COMMITS, CompactionTrigger.NUM_AND_TIME):
        compactions = [c for c in commits if timeline.pending_action(c) is Action.COMPACTION]
        since = compactions[-1].requested_time if compactions else ""
        deltas = [c for c in commits if c.action is Action.DELTA_COMMIT and c.requested_time > since]
        keep = ctx.configs.value(HudiCompactionConfig.MAX_DELTA_COMMITS)
        if deltas:
            found.append(deltas[max(0, len(deltas) - keep)].requested_time)
    replaces = [i for i in timeline.instants() if i.action.completed_action is Action.REPLACE_COMMIT]
    if replaces:
        floor = _last_clean_floor(storage, timeline)
        later = [r for r in replaces if floor is not None and r.requested_time >= floor]
        first = replaces[0] if floor is None else (later[0] if later else None)
        if first is not None:
            found.append(first.requested_time)
    return found


def _last_clean_floor(storage: Storage, timeline: Timeline) -> str | None:
    """What the latest completed clean kept from: its plan's earliest instant to retain."""
    cleans = [i for i in timeline.completed() if i.action is Action.CLEAN]
    if not cleans:
        return None
    plan = read_plan(storage, timeline, cleans[-1], Action.CLEAN)
    ectr = plan.get("earliestInstantToRetain") or {}
    if plan.get("policy") == CleaningPolicy.KEEP_LATEST_FILE_VERSIONS.value or not ectr:
        return cleans[-1].requested_time
    return str(ectr.get("timestamp"))


def instants_to_archive(ctx: ServiceContext, state: TableState) -> list[Instant]:
    """The completed instants archival would move now, by requested time."""
    timeline = state.timeline
    commits = _commits(timeline)
    low, high = _keep_bounds(ctx, timeline)
    if len(commits) <= high:
        return []
    bounds = _boundaries(ctx, state)
    limit = min(bounds) if bounds else None
    savepoints = sorted(i.requested_time for i in timeline.completed() if i.action is Action.SAVEPOINT)
    beyond = ctx.configs.value(HudiArchivalConfig.BEYOND_SAVEPOINT)
    eligible = []
    for commit in commits:
        if limit is not None and commit.requested_time >= limit:
            break
        if savepoints and not beyond and commit.requested_time >= savepoints[0]:
            break
        if commit.requested_time in savepoints:
            continue
        eligible.append(commit)
    chosen = eligible[: max(0, len(commits) - low)]
    if not chosen:
        return []
    last = chosen[-1].requested_time
    others = [
        i for i in timeline.completed() if i.action in (Action.CLEAN, Action.ROLLBACK) and i.requested_time < last
    ]
    return sorted([*chosen, *others], key=lambda i: i.requested_time)


def _read_if_present(storage: Storage, path: str) -> bytes | None:
    if not storage.exists(path):
        return None
    data = storage.read_bytes(path)
    return data or None


def _action_row(storage: Storage, timeline: Timeline, instant: Instant) -> ArchivedAction:
    pending = timeline.pending_action(instant)
    directory = timeline.timeline_dir
    completed_path = posixpath.join(directory, instant.file_name(timeline.layout_version))
    metadata = _read_if_present(storage, completed_path)

    def pending_bytes(state: State) -> bytes | None:
        name = instant_file_name(instant.requested_time, pending, state, timeline.layout_version)
        return _read_if_present(storage, posixpath.join(directory, name))

    plan = None
    if pending in (Action.COMPACTION, Action.LOG_COMPACTION, Action.CLEAN):
        plan = pending_bytes(State.REQUESTED)
    elif pending in (Action.REPLACE_COMMIT, Action.CLUSTERING):
        plan = pending_bytes(State.INFLIGHT) or pending_bytes(State.REQUESTED)
    return ArchivedAction(instant, pending, metadata, plan)


# ---- the LSM history ----------------------------------------------------------------------------


def _write_lsm_file(storage: Storage, history: str, name: str, rows: pa.Table, compression: str) -> int:
    path = posixpath.join(history, name)
    rows = rows.replace_schema_metadata(None)
    sink = storage.open_output(path)
    try:
        writer = pq.ParquetWriter(
            sink,
            LSM_SCHEMA,
            version="1.0",
            compression=compression,
            store_schema=False,
            write_statistics=True,
        )
        writer.write_table(rows.cast(LSM_SCHEMA))
        writer.add_key_value_metadata(
            {"parquet.avro.schema": json.dumps(LSM_AVRO_SCHEMA, separators=(",", ":")), "writer.model.name": "avro"}
        )
        writer.close()
        size = int(sink.tell())
    finally:
        sink.close()
    return size


def _rows(actions: Sequence[ArchivedAction]) -> pa.Table:
    return pa.table(
        {
            "instantTime": [a.instant.requested_time for a in actions],
            "completionTime": [a.instant.completion_time for a in actions],
            "action": [a.instant.action.value for a in actions],
            "metadata": [a.metadata for a in actions],
            "plan": [a.plan for a in actions],
            "version": pa.array([1] * len(actions), pa.int32()),
        },
        schema=LSM_SCHEMA,
    )


def _manifest_entries(storage: Storage, history: str, version: int | None) -> list[dict[str, object]]:
    if version is None:
        return []
    names = manifest_files(storage, history, version)
    return [{"fileName": n, "fileLen": storage.size(posixpath.join(history, n))} for n in names]


def _publish_manifest(storage: Storage, history: str, entries: Sequence[dict[str, object]], version: int) -> None:
    """Writes `manifest_<version>` (Jackson's pretty layout) and points `_version_` at it."""
    body = ",".join(f' {{\n    "fileName" : "{e["fileName"]}",\n    "fileLen" : {e["fileLen"]}\n  }}' for e in entries)
    text = '{\n  "files" : [' + (body + " ]" if entries else " ]") + "\n}"
    storage.write_atomic(posixpath.join(history, f"{MANIFEST_PREFIX}{version}"), text.encode("utf-8"))
    # Hudi deletes and recreates `_version_`; readers fall back to the newest manifest meanwhile.
    storage.write_atomic(posixpath.join(history, VERSION_FILE), str(version).encode("ascii"))


def _layer(name: str) -> int:
    match = DATA_FILE_RE.match(name)
    if match is None:
        raise FileFormatError(f"unexpected LSM history file name {name!r}")
    return int(match.group(3))


def _compact_layers(storage: Storage, history: str, batch: int, compression: str) -> int:
    """Merges full layers into the next one; returns how many merged files were written."""
    merged = 0
    layer = 0
    while layer < 9:
        version = latest_manifest(storage, history)
        entries = _manifest_entries(storage, history, version)
        files = sorted(str(e["fileName"]) for e in entries if _layer(str(e["fileName"])) == layer)
        if len(files) < batch:
            layer += 1
            continue
        chosen = files[:batch]
        tables = []
        for name in chosen:
            with storage.open_input_file(posixpath.join(history, name)) as source:
                tables.append(pq.read_table(source, columns=list(LSM_COLUMNS)))
        low = min(DATA_FILE_RE.match(n).group(1) for n in chosen)  # type: ignore[union-attr]
        high = max(DATA_FILE_RE.match(n).group(2) for n in chosen)  # type: ignore[union-attr]
        name = f"{low}_{high}_{layer + 1}.parquet"
        size = _write_lsm_file(storage, history, name, pa.concat_tables(tables), compression)
        kept = [e for e in entries if e["fileName"] not in chosen]
        _publish_manifest(storage, history, [*kept, {"fileName": name, "fileLen": size}], (version or 0) + 1)
        merged += 1
    return merged


def _clean_history(storage: Storage, history: str, extra_manifests: int) -> None:
    """Keeps the newest manifests and the files they list; deletes the rest."""
    manifests = sorted(
        (int(e.name[len(MANIFEST_PREFIX) :]) for e in storage.list_dir(history) if e.name.startswith(MANIFEST_PREFIX)),
        reverse=True,
    )
    kept = manifests[: KEPT_MANIFESTS + extra_manifests]
    for number in manifests[len(kept) :]:
        storage.delete(posixpath.join(history, f"{MANIFEST_PREFIX}{number}"))
    referenced = {name for number in kept for name in manifest_files(storage, history, number)}
    for entry in storage.list_dir(history):
        if DATA_FILE_RE.match(entry.name) and entry.name not in referenced:
            storage.delete(posixpath.join(history, entry.name))


def _file_name(actions: Sequence[ArchivedAction]) -> str:
    return f"{actions[0].instant.requested_time}_{actions[-1].instant.requested_time}_0.parquet"


def _published(storage: Storage, history: str, name: str) -> bool:
    entries = _manifest_entries(storage, history, latest_manifest(storage, history))
    return any(e["fileName"] == name for e in entries)


def write_history_file(storage: Storage, history: str, actions: Sequence[ArchivedAction], compression: str) -> None:
    """Writes `actions` (in requested-time order) as one layer-0 history file, then a manifest listing it."""
    name = _file_name(actions)
    version = latest_manifest(storage, history)
    entries = [e for e in _manifest_entries(storage, history, version) if e["fileName"] != name]
    size = _write_lsm_file(storage, history, name, _rows(actions), compression)
    crash.crash_point("archive.after_lsm_file")
    _publish_manifest(storage, history, [*entries, {"fileName": name, "fileLen": size}], (version or 0) + 1)
    crash.crash_point("archive.after_manifest")


def run_archive(ctx: ServiceContext) -> ServiceResult | None:
    """Archives what the policy allows now; None when nothing was archived."""
    storage = ctx.storage
    with ctx.locked("archive") as state:
        check_writable(state.config, storage.base_uri)
        timeline = state.timeline
        if timeline.layout_version < 2:
            return None
        chosen = instants_to_archive(ctx, state)
        if not chosen:
            return None
        history = archive_dir(state.config)
        actions = [_action_row(storage, timeline, i) for i in chosen]
        compression = ctx.configs.value(HudiWriteConfig.PARQUET_COMPRESSION)
        if not _published(storage, history, _file_name(actions)):  # a rerun after a crash may find it
            for action in actions:
                Markers(storage, action.instant.requested_time).delete_all()
            write_history_file(storage, history, actions, compression)
        _delete_active(storage, timeline, actions)
        ctx.changed()
        merged = _compact_layers(
            storage, history, ctx.configs.value(HudiArchivalConfig.LSM_COMPACTION_BATCH), compression
        )
        _clean_history(storage, history, merged)
    return ServiceResult("archive", None, None, {"instants_archived": len(actions), "history_files_merged": merged})


def _delete_active(storage: Storage, timeline: Timeline, actions: Sequence[ArchivedAction]) -> None:
    """Requested and inflight files first, then completed files oldest first (no holes for readers)."""
    directory = timeline.timeline_dir
    for action in actions:
        for state in (State.REQUESTED, State.INFLIGHT):
            name = instant_file_name(
                action.instant.requested_time, action.pending_action, state, timeline.layout_version
            )
            storage.delete(posixpath.join(directory, name))
    crash.crash_point("archive.after_pending_deleted")
    for action in sorted(actions, key=lambda a: a.instant.requested_time):
        storage.delete(posixpath.join(directory, action.instant.file_name(timeline.layout_version)))
