"""Loading a table's state: hoodie.properties (typed) and the timeline, read together."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import TypeVar

from hudi_core.config.properties import PROPERTIES_BACKUP_FILE, PROPERTIES_FILE, parse_properties, table_checksum
from hudi_core.config.table import HudiTableConfig, TableConfig
from hudi_core.errors import (
    FileFormatError,
    HudiConfigError,
    HudiStorageError,
    TableNotFoundError,
    TimelineChangedError,
)
from hudi_core.storage import Storage
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import CommitMetadata

METAFOLDER = ".hoodie"


@dataclass(frozen=True)
class TableState:
    """One consistent look at a table: its config and timeline, loaded together."""

    config: TableConfig
    timeline: Timeline


def load_table_config(storage: Storage) -> TableConfig:
    """Reads and validates hoodie.properties (falling back to the backup Hudi leaves mid-update)."""
    where = storage.full_path(PROPERTIES_FILE)
    try:
        data = storage.read_bytes(PROPERTIES_FILE)
    except HudiStorageError:
        if storage.exists(PROPERTIES_BACKUP_FILE):
            data = storage.read_bytes(PROPERTIES_BACKUP_FILE)
        elif storage.exists(METAFOLDER) or storage.exists(""):
            raise TableNotFoundError(f"no Hudi table at {storage.base_uri}: {where} does not exist") from None
        else:
            raise TableNotFoundError(f"no Hudi table at {storage.base_uri}: the path does not exist") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileFormatError(f"{where}: not UTF-8 text: {e}") from e
    props = parse_properties(text, where)
    config = TableConfig.from_properties(props, where)
    stored = props.get(HudiTableConfig.CHECKSUM.key)
    if stored is not None:
        expected = table_checksum(config.database_name, config.name)
        if stored.strip() != str(expected):
            raise HudiConfigError(
                f"{where}: {HudiTableConfig.CHECKSUM.key} {stored} does not match table name (expected {expected})"
            )
    return config


def timeline_dir(config: TableConfig) -> str:
    """The active timeline folder: `.hoodie/timeline` on layout 2, `.hoodie` on layout 1."""
    return f"{METAFOLDER}/{config.timeline_path}" if config.timeline_layout_version >= 2 else METAFOLDER


def archive_dir(config: TableConfig) -> str:
    """The archived timeline folder: the LSM history on layout 2, `.hoodie/archived` on layout 1."""
    if config.timeline_layout_version >= 2:
        return f"{timeline_dir(config)}/{config.timeline_history_path}"
    return f"{METAFOLDER}/{config.archivelog_folder}"


def load_table_state(storage: Storage, metadata_cache: MutableMapping[str, CommitMetadata] | None = None) -> TableState:
    """The table's config and its timeline, loaded now."""
    config = load_table_config(storage)
    layout = config.timeline_layout_version
    timeline = Timeline.load(storage, timeline_dir(config), layout, metadata_cache, archive_dir(config))
    return TableState(config, timeline)


T = TypeVar("T")
FRESH_STATE_ATTEMPTS = 5


def on_fresh_state(
    load: Callable[[], TableState], use: Callable[[TableState], T], attempts: int = FRESH_STATE_ATTEMPTS
) -> T:
    """`use` on the state `load` returns now; again on a newer one when another writer archived or
    rolled back an instant it was reading (TimelineChangedError), at most `attempts` times. For work
    done without the lock: what it means does not change, only the view it is made on."""
    for attempt in range(attempts):
        try:
            return use(load())
        except TimelineChangedError:
            if attempt + 1 == attempts:
                raise
    raise AssertionError("unreachable")
