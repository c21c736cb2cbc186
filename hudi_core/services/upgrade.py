"""Upgrading a version-6 table to version 8, as Apache Hudi 1.x does on its first write.

With `hoodie.write.auto.upgrade` (default true) the first write or table service on a version-6
table upgrades it; with false, or from any other version, it is refused. Under the table lock:

1. Every instant file of the layout-1 timeline (`.hoodie/`) is written to `.hoodie/timeline/` under
   its layout-2 name: a completed instant takes its file's modification time as completion time
   (Hudi 0.x recorded none); commit metadata goes from JSON to Avro. A pending replacecommit whose
   plan is a clustering plan becomes a `clustering` instant (Apache Hudi renames every pending
   replacecommit file, which would make an insert_overwrite look like clustering; we ask the plan).
2. The legacy archived timeline (`hoodie.archivelog.folder`) becomes one file of the LSM history.
3. The metadata table is dropped: its version-6 log files name slices the way version 6 does, so it
   is rebuilt by the next write from the file system instead of being read under version-8 rules.
4. hoodie.properties switches to version 8 (layout 2, the key generator by class and type, the merge
   mode with its payload class and strategy id, `hoodie.table.initial.version=6`). Until the switch,
   readers see the whole old timeline; after it, the new one.
5. A Merge-on-Read table is compacted: pending compactions run, then one compaction of every file
   group with log files, so no version-8 writer appends to a slice whose logs name their base
   instant (version 6) rather than their deltacommit (version 8). Then the layout-1 instant files go;
   a write that still finds them on a table upgraded from version 6 finishes steps 5 again, so a
   crash at any point leaves a table that reads as before and is upgraded by the next write.

A version-6 Merge-on-Read table with a deltacommit in flight (or failed) is refused before anything
changes: version 6 appended its blocks to log files other writes share, and rolling it back needs
rollback command blocks that this writer does not write. Let the writer finish, or roll it back with
Apache Hudi, first.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hudi_core.concurrency import table_lock
from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.services import CompactionTrigger, HudiCompactionConfig
from hudi_core.config.table import (
    COMMIT_TIME_STRATEGY_ID,
    DEFAULT_PAYLOAD_CLASS,
    EVENT_TIME_STRATEGY_ID,
    KEY_GENERATOR_CLASSES,
    OVERWRITE_PAYLOAD_CLASS,
    PAYLOAD_STRATEGY_ID,
    HudiTableConfig,
    RecordMergeMode,
    TableConfig,
    TableType,
)
from hudi_core.config.write import WRITABLE_TABLE_VERSIONS, HudiWriteConfig
from hudi_core.errors import HudiError, UnsupportedTableVersionError
from hudi_core.file_group.log_file.blocks import avro_records
from hudi_core.file_group.log_file.format import BlockType
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.lifecycle import crash
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.metadata.reader import METADATA_DIR
from hudi_core.services.archival import ArchivedAction, write_history_file
from hudi_core.services.base import ServiceContext
from hudi_core.services.compaction import run_compaction
from hudi_core.storage import Storage
from hudi_core.table.create import update_table_properties
from hudi_core.table.state import METAFOLDER, TableState, load_table_config, load_table_state
from hudi_core.timeline.instant import (
    Action,
    Instant,
    InstantFile,
    State,
    format_instant_time,
    instant_file_name,
    parse_instant_file_name,
)
from hudi_core.timeline.schemas import (
    CLEAN_METADATA,
    COMMIT_METADATA,
    COMPACTION_PLAN,
    REPLACE_COMMIT_METADATA,
    REQUESTED_REPLACE_METADATA,
    ROLLBACK_METADATA,
    SAVEPOINT_METADATA,
)
from hudi_core.timeline.serde import AVRO_MAGIC, decode_instant_content, encode_avro_container

UPGRADABLE_VERSION = 6
UPGRADED_VERSION = 8
ARCHIVE_FILE_PREFIX = ".commits_.archive."

# Payloads Apache Hudi maps onto a merge mode when it upgrades; any other class stays CUSTOM.
_BUILT_IN_ORDERING_PAYLOADS = frozenset(
    {DEFAULT_PAYLOAD_CLASS, OVERWRITE_PAYLOAD_CLASS, "org.apache.hudi.common.model.EventTimeAvroPayload"}
)
# The metadata record of each completed action in a legacy archive entry, and its Avro schema.
_ARCHIVED_METADATA: dict[str, tuple[str, dict[str, Any]]] = {
    "commit": ("hoodieCommitMetadata", COMMIT_METADATA),
    "deltacommit": ("hoodieCommitMetadata", COMMIT_METADATA),
    "replacecommit": ("hoodieReplaceCommitMetadata", REPLACE_COMMIT_METADATA),
    "clean": ("hoodieCleanMetadata", CLEAN_METADATA),
    "rollback": ("hoodieRollbackMetadata", ROLLBACK_METADATA),
    "savepoint": ("hoodieSavePointMetadata", SAVEPOINT_METADATA),
}
# The plan of each requested action kept beside it in the history.
_ARCHIVED_PLANS: dict[str, tuple[str, dict[str, Any]]] = {
    "compaction": ("hoodieCompactionPlan", COMPACTION_PLAN),
    "replacecommit": ("hoodieRequestedReplaceMetadata", REQUESTED_REPLACE_METADATA),
}


@dataclass(frozen=True)
class UpgradeResult:
    """What an upgrade did.

    Attributes:
        from_version: the table version before.
        to_version: the table version after.
        instant_files: timeline files moved to layout 2.
        archived_instants: instants moved from the legacy archive into the LSM history.
        compactions: the compactions it ran (Merge-on-Read).
    """

    from_version: int
    to_version: int
    instant_files: int
    archived_instants: int
    compactions: tuple[ServiceResult, ...]


def upgrade_if_needed(storage: Storage, options: Mapping[str, str]) -> UpgradeResult | None:
    """Upgrades a version-6 table before a write (see module docstring); None when none is needed."""
    validate_options(options)
    config = load_table_config(storage)
    if config.version in WRITABLE_TABLE_VERSIONS:
        if config.raw.get(HudiTableConfig.INITIAL_VERSION.key) == str(UPGRADABLE_VERSION) and _layout_1_files(storage):
            return _finish(storage, options, config.table_type, 0, 0)  # an upgrade interrupted after its switch
        return None
    where = storage.base_uri
    if config.version != UPGRADABLE_VERSION:
        raise UnsupportedTableVersionError(
            f"{where} is table version {config.version}; hudi_core writes table versions 8 and 9 and upgrades "
            "version 6 to 8"
        )
    configs = HudiConfigs(options)
    if not configs.value(HudiWriteConfig.AUTO_UPGRADE):
        raise UnsupportedTableVersionError(
            f"{where} is table version 6 and {HudiWriteConfig.AUTO_UPGRADE.key}=false; hudi_core does not write "
            f"version 6 (with {HudiWriteConfig.AUTO_UPGRADE.key}=true the write upgrades the table to version 8)"
        )
    asked = configs.get(HudiWriteConfig.WRITE_TABLE_VERSION)
    if asked is not None and asked != UPGRADED_VERSION:
        raise UnsupportedTableVersionError(
            f"{where} is table version 6: hudi_core upgrades it to version 8 only, not to "
            f"{HudiWriteConfig.WRITE_TABLE_VERSION.key}={asked}"
        )
    with table_lock(storage, configs, "upgrade to table version 8"):
        state = load_table_state(storage)
        if state.config.version != UPGRADABLE_VERSION:
            return None  # another writer upgraded it meanwhile
        _refuse_pending_log_appends(state, where)
        moved = _move_timeline(storage, state)
        crash.crash_point("upgrade.after_timeline")
        archived = _convert_archive(storage, state.config, configs.value(HudiWriteConfig.PARQUET_COMPRESSION))
        update_table_properties(
            storage,
            {HudiTableConfig.METADATA_PARTITIONS.key: None, HudiTableConfig.METADATA_PARTITIONS_INFLIGHT.key: None},
        )
        storage.delete_dir(METADATA_DIR)
        crash.crash_point("upgrade.after_metadata_dropped")
        update_table_properties(storage, upgraded_properties(state.config))
        crash.crash_point("upgrade.after_properties")
    return _finish(storage, options, state.config.table_type, moved, archived)


def _finish(
    storage: Storage, options: Mapping[str, str], table_type: TableType, moved: int, archived: int
) -> UpgradeResult:
    """What follows the switch to version 8: compaction (Merge-on-Read), then the layout-1 files go.

    A write that finds layout-1 files on a table upgraded from version 6 runs this again, so an
    upgrade that died after its switch is finished by the next write.
    """
    compactions: tuple[ServiceResult, ...] = ()
    if table_type is TableType.MERGE_ON_READ:
        compactions = _compact_everything(storage, options)
        crash.crash_point("upgrade.after_compaction")
    with table_lock(storage, HudiConfigs(options), "finish the upgrade to table version 8"):
        for name in _layout_1_files(storage):
            storage.delete(posixpath.join(METAFOLDER, name))
    return UpgradeResult(UPGRADABLE_VERSION, UPGRADED_VERSION, moved, archived, compactions)


def _layout_1_files(storage: Storage) -> list[str]:
    """Instant files directly under `.hoodie/` (the version-6 timeline)."""
    return [e.name for e in storage.list_dir(METAFOLDER) if not e.is_dir and parse_instant_file_name(e.name)]


def upgraded_properties(config: TableConfig) -> dict[str, str | None]:
    """The hoodie.properties changes of the upgrade from version 6 to 8 (Apache Hudi's rules)."""
    props = config.raw
    updates: dict[str, str | None] = {
        HudiTableConfig.VERSION.key: str(UPGRADED_VERSION),
        HudiTableConfig.TIMELINE_LAYOUT_VERSION.key: "2",
        HudiTableConfig.TIMELINE_PATH.key: props.get(HudiTableConfig.TIMELINE_PATH.key)
        or HudiTableConfig.TIMELINE_PATH.default,
        HudiTableConfig.INITIAL_VERSION.key: str(UPGRADABLE_VERSION),
    }
    keygen = config.key_generator_type  # from the type or class key, or inferred
    updates[HudiTableConfig.KEY_GENERATOR_CLASS.key] = props.get(HudiTableConfig.KEY_GENERATOR_CLASS.key) or next(
        name for name, kind in KEY_GENERATOR_CLASSES.items() if kind is keygen
    )
    updates[HudiTableConfig.KEY_GENERATOR_TYPE.key] = keygen.value
    payload, mode, strategy = _merge_rule(config)
    updates[HudiTableConfig.PAYLOAD_CLASS.key] = payload
    updates[HudiTableConfig.RECORD_MERGE_MODE.key] = mode.value
    updates[HudiTableConfig.RECORD_MERGE_STRATEGY_ID.key] = strategy
    return updates


def _merge_rule(config: TableConfig) -> tuple[str, RecordMergeMode, str]:
    """Payload class, merge mode and strategy id a version-6 table's payload class stands for."""
    payload = config.payload_class or ""
    if payload and payload not in _BUILT_IN_ORDERING_PAYLOADS:
        return payload, RecordMergeMode.CUSTOM, PAYLOAD_STRATEGY_ID  # kept as is, merged by its payload
    event_time = (RecordMergeMode.EVENT_TIME_ORDERING, EVENT_TIME_STRATEGY_ID)
    if config.table_type is TableType.MERGE_ON_READ and config.ordering_fields:
        return DEFAULT_PAYLOAD_CLASS, *event_time
    if payload == DEFAULT_PAYLOAD_CLASS:
        return DEFAULT_PAYLOAD_CLASS, *event_time
    return OVERWRITE_PAYLOAD_CLASS, RecordMergeMode.COMMIT_TIME_ORDERING, COMMIT_TIME_STRATEGY_ID


def _refuse_pending_log_appends(state: TableState, where: str) -> None:
    if state.config.table_type is not TableType.MERGE_ON_READ:
        return  # a failed Copy-on-Write write left only its own base files: version 8 rolls it back
    pending = [i.requested_time for i in state.timeline.pending() if i.action is Action.DELTA_COMMIT]
    if pending:
        raise HudiError(
            f"{where} is a version-6 Merge-on-Read table with deltacommit(s) {', '.join(pending)} in flight or "
            "failed; their blocks sit in log files other commits share and cannot be rolled back under version 8. "
            "Let the writer finish, or roll them back with Apache Hudi, before writing to the table."
        )


# ---- the active timeline ----------------------------------------------------------------------


def _move_timeline(storage: Storage, state: TableState) -> int:
    """Writes every layout-1 instant file under its layout-2 name; returns how many."""
    target_dir = posixpath.join(METAFOLDER, state.config.timeline_path)
    storage.makedirs(target_dir)
    moved = 0
    for entry in storage.list_dir(METAFOLDER):
        parsed = None if entry.is_dir else parse_instant_file_name(entry.name)
        if parsed is None:
            continue
        source = posixpath.join(METAFOLDER, entry.name)
        data = storage.read_bytes(source)
        name, content = _layout_2_file(storage, source, parsed, data)
        storage.write_atomic(posixpath.join(target_dir, name), content)
        moved += 1
    return moved


def _layout_2_file(storage: Storage, source: str, parsed: InstantFile, data: bytes) -> tuple[str, bytes]:
    """The layout-2 name and content of one layout-1 instant file."""
    completion = None
    action = parsed.action
    if parsed.state is State.COMPLETED:
        modified = storage.modified_ms(source)
        if modified is None:
            raise HudiError(f"{storage.full_path(source)}: no modification time to take as completion time")
        completion = format_instant_time(datetime.fromtimestamp(modified / 1000, UTC))
    elif action is Action.REPLACE_COMMIT and _plans_clustering(source, data):
        action = Action.CLUSTERING
    if parsed.action in (Action.COMMIT, Action.DELTA_COMMIT) or (
        parsed.action is Action.REPLACE_COMMIT and parsed.state is State.COMPLETED
    ):
        record = decode_instant_content(data, storage.full_path(source))
        if record is not None:  # 0.x wrote commit metadata as JSON; 1.x reads it as Avro
            schema = REPLACE_COMMIT_METADATA if parsed.action is Action.REPLACE_COMMIT else COMMIT_METADATA
            data = encode_avro_container(schema, record)
    return instant_file_name(parsed.requested_time, action, parsed.state, 2, completion), data


def _plans_clustering(source: str, data: bytes) -> bool:
    """Whether a pending replacecommit file holds (or belongs to) a clustering plan."""
    record = decode_instant_content(data, source) if data.startswith(AVRO_MAGIC) else None
    return record is not None and record.get("operationType") == "CLUSTER"


# ---- the archived timeline --------------------------------------------------------------------


def _convert_archive(storage: Storage, config: TableConfig, compression: str) -> int:
    """Moves the legacy archive's completed instants into one LSM history file; returns how many."""
    archive = posixpath.join(METAFOLDER, config.archivelog_folder)
    files = sorted(
        (e.name for e in storage.list_dir(archive) if not e.is_dir and e.name.startswith(ARCHIVE_FILE_PREFIX)),
        key=_archive_file_number,
    )
    completed: dict[str, dict[str, Any]] = {}
    plans: dict[str, bytes] = {}
    for name in files:
        path = posixpath.join(archive, name)
        for block in read_log_blocks(storage.read_bytes(path), path, counted=False):
            if block.block_type is not BlockType.AVRO_DATA:
                continue
            for entry in avro_records(block):
                _take_archived_entry(entry, completed, plans)
    if not completed:
        return 0
    actions = []
    for requested in sorted(completed):
        entry = completed[requested]
        action_name = entry["actionType"]
        field, schema = _ARCHIVED_METADATA.get(action_name, (None, None))
        record = entry.get(field) if field else None
        metadata = encode_avro_container(schema, record) if schema is not None and record is not None else None
        completion = entry.get("stateTransitionTime") or requested
        action = Action(action_name)
        pending = Action.COMPACTION if requested in plans and action is Action.COMMIT else action
        instant = Instant(requested, completion, action, State.COMPLETED)
        actions.append(ArchivedAction(instant, pending, metadata, plans.get(requested)))
    history = posixpath.join(METAFOLDER, config.timeline_path, config.timeline_history_path)
    storage.makedirs(history)
    write_history_file(storage, history, actions, compression)
    return len(actions)


def _archive_file_number(name: str) -> int:
    version = name[len(ARCHIVE_FILE_PREFIX) :].split("_", 1)[0]
    return int(version) if version.isdigit() else 0


def _take_archived_entry(entry: dict[str, Any], completed: dict[str, dict[str, Any]], plans: dict[str, bytes]) -> None:
    """Files one `HoodieArchivedMetaEntry`: a completed instant's entry, or a plan to keep beside it."""
    requested = entry.get("commitTime")
    action_name = entry.get("actionType")
    if not requested or action_name not in {a.value for a in Action}:
        return
    state = entry.get("actionState") or "COMPLETED"
    if state == "COMPLETED":
        completed[requested] = entry
        return
    if state == "REQUESTED" and action_name in _ARCHIVED_PLANS:
        field, schema = _ARCHIVED_PLANS[action_name]
        plan = entry.get(field)
        if plan is not None:
            plans[requested] = encode_avro_container(schema, plan)


# ---- compaction ---------------------------------------------------------------------------------


def _compact_everything(storage: Storage, options: Mapping[str, str]) -> tuple[ServiceResult, ...]:
    """Runs pending compactions, then one over every file group with log files."""
    every_slice = {
        **options,
        HudiCompactionConfig.MAX_DELTA_COMMITS.key: "1",
        HudiCompactionConfig.TRIGGER_STRATEGY.key: CompactionTrigger.NUM_COMMITS.value,
    }
    results = []
    while True:
        state = load_table_state(storage)
        pending = [i for i in state.timeline.pending() if state.timeline.pending_action(i) is Action.COMPACTION]
        if not pending:
            break
        result = run_compaction(ServiceContext(storage, every_slice), pending[0].requested_time)
        if result is None:
            break
        results.append(result)
    result = run_compaction(ServiceContext(storage, every_slice))
    if result is not None:
        results.append(result)
    return tuple(results)
