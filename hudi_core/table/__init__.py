"""HudiTable: open a table, inspect its timeline and file slices, and read it.

Every call reloads `hoodie.properties` and the timeline, so a long-lived HudiTable always sees the
latest committed state (writes by other processes included).

Example::

    from hudi_core import HudiTable

    table = HudiTable("/data/trips")
    rows = table.read(columns=["uuid", "fare"], filters=[("city", "=", "sf")])
    changes = table.read_incremental("20250101000000000")
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.properties import parse_properties, table_checksum
from hudi_core.config.read import HudiReadConfig, IncrementalFormat, QueryType
from hudi_core.config.table import TableConfig
from hudi_core.engine.arrow import plan_batch_reader, read_plan
from hudi_core.errors import (
    FileFormatError,
    HudiConfigError,
    HudiStorageError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from hudi_core.file_group import FileSlice
from hudi_core.storage import Storage
from hudi_core.table.scan import ScanPlan, TableScanner
from hudi_core.timeline import Timeline
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.instant import normalize_instant_time

METAFOLDER = ".hoodie"
PROPERTIES_FILE = ".hoodie/hoodie.properties"
PROPERTIES_BACKUP_FILE = ".hoodie/hoodie.properties.backup"

Filters = Sequence[Sequence[Any]] | None


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
    stored = props.get("hoodie.table.checksum")
    if stored is not None:
        expected = table_checksum(config.database_name, config.name)
        if stored.strip() != str(expected):
            raise HudiConfigError(
                f"{where}: hoodie.table.checksum {stored} does not match table name (expected {expected})"
            )
    return config


class HudiTable:
    """A Hudi table (version 6, 8 or 9) at a path or URI.

    Args:
        path: the table base path (the folder holding `.hoodie/`), or a `file://` URI.
        options: Hudi options applied to every read (`hoodie.datasource.query.type`, ...).

    Raises:
        TableNotFoundError: the path holds no Hudi table.
        UnsupportedTableVersionError: the table version is not 6, 8 or 9.
        HudiConfigError: an option is unknown or malformed, or hoodie.properties lacks a key.
    """

    def __init__(self, path: str, options: Mapping[str, str] | None = None) -> None:
        self._options = dict(options or {})
        validate_options(self._options)
        self._storage = Storage(path)
        self._metadata_cache: MutableMapping[str, CommitMetadata] = {}
        load_table_config(self._storage)

    def __repr__(self) -> str:
        return f"HudiTable({self._storage.base_uri!r})"

    # ---- introspection ------------------------------------------------------------------------

    @property
    def base_uri(self) -> str:
        return self._storage.base_uri

    @property
    def storage(self) -> Storage:
        return self._storage

    @property
    def table_config(self) -> TableConfig:
        """hoodie.properties as a typed object (reloaded on every access)."""
        return load_table_config(self._storage)

    @property
    def timeline(self) -> Timeline:
        """The active timeline (reloaded on every access)."""
        return self.state().timeline

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of a snapshot read: meta columns, then data columns."""
        return self._scanner(self.state()).snapshot(None, None).table_schema

    def state(self) -> TableState:
        config = load_table_config(self._storage)
        layout = config.timeline_layout_version
        timeline_dir = f"{METAFOLDER}/{config.timeline_path}" if layout >= 2 else METAFOLDER
        timeline = Timeline.load(self._storage, timeline_dir, config.timeline_layout_version, self._metadata_cache)
        return TableState(config, timeline)

    def file_slices(self, as_of: str | None = None) -> list[FileSlice]:
        """The latest file slice of every file group (as of `as_of`, if given)."""
        as_of_time = normalize_instant_time(as_of) if as_of is not None else None
        return list(self._scanner(self.state()).snapshot(None, None, as_of_time).slices)

    # ---- reads --------------------------------------------------------------------------------

    def read(
        self,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        as_of: str | None = None,
        options: Mapping[str, str] | None = None,
    ) -> pa.Table:
        """Reads the table.

        Args:
            columns: exactly these columns, in this order (default: all, meta columns first).
            filters: `(column, op, value)` triples that must all hold; ops `=` `!=` `<` `<=` `>`
                `>=` `in` `not in`. They prune partitions and files, then filter rows.
            as_of: time travel: the table as of this instant (17 or 14 digits,
                'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd', UTC).
            options: read options under Hudi's Spark names (`hoodie.datasource.query.type` =
                snapshot | read_optimized | incremental, begin/end instant times, `as.of.instant`).

        Returns:
            The rows as an Arrow table.
        """
        return read_plan(self._storage, self.plan(columns, filters, as_of, options))

    def read_batches(
        self,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        as_of: str | None = None,
        options: Mapping[str, str] | None = None,
    ) -> pa.RecordBatchReader:
        """Like :meth:`read`, streaming record batches file slice by file slice."""
        return plan_batch_reader(self._storage, self.plan(columns, filters, as_of, options))

    def read_incremental(
        self,
        start: str,
        end: str | None = None,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        inclusive_start: bool = False,
    ) -> pa.Table:
        """Records changed by instants that completed in (start, end].

        Args:
            start: exclusive lower bound on completion time (instant time on v6 tables), or
                "earliest". `inclusive_start=True` gives Hudi 1.0.x's inclusive start.
            end: inclusive upper bound (default: the latest completed instant).
            columns: as in :meth:`read`.
            filters: as in :meth:`read`.
        """
        return read_plan(self._storage, self.plan_incremental(start, end, columns, filters, inclusive_start))

    # ---- planning -----------------------------------------------------------------------------

    def plan(
        self,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        as_of: str | None = None,
        options: Mapping[str, str] | None = None,
    ) -> ScanPlan:
        """Plans a read (see :meth:`read`) without reading data; engines execute the plan."""
        read_options = dict(options or {})
        validate_options(read_options)
        configs = HudiConfigs(self._options, read_options)
        query_type = configs.get(HudiReadConfig.QUERY_TYPE, QueryType.SNAPSHOT)
        if query_type is QueryType.INCREMENTAL:
            if as_of is not None or configs.contains(HudiReadConfig.AS_OF_INSTANT):
                raise HudiConfigError("an incremental query cannot also time travel (as.of.instant)")
            if configs.get(HudiReadConfig.INCREMENTAL_FORMAT) is IncrementalFormat.CDC:
                raise UnsupportedFeatureError("CDC queries are not implemented yet")
            start = configs.get(HudiReadConfig.BEGIN_INSTANT_TIME)
            if start is None:
                raise HudiConfigError(
                    f"an incremental query needs {HudiReadConfig.BEGIN_INSTANT_TIME.key} "
                    "(an instant time or 'earliest')"
                )
            return self.plan_incremental(start, configs.get(HudiReadConfig.END_INSTANT_TIME), columns, filters)
        as_of_value = as_of if as_of is not None else configs.get(HudiReadConfig.AS_OF_INSTANT)
        as_of_time = normalize_instant_time(as_of_value) if as_of_value is not None else None
        read_optimized = query_type is QueryType.READ_OPTIMIZED
        return self._scanner(self.state()).snapshot(columns, filters, as_of_time, read_optimized)

    def plan_incremental(
        self,
        start: str,
        end: str | None = None,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        inclusive_start: bool = False,
    ) -> ScanPlan:
        """Plans an incremental read (see :meth:`read_incremental`)."""
        start_time = None if start.strip().lower() == "earliest" else normalize_instant_time(start)
        end_time = normalize_instant_time(end) if end is not None else None
        return self._scanner(self.state()).incremental(start_time, end_time, columns, filters, inclusive_start)

    def _scanner(self, state: TableState) -> TableScanner:
        return TableScanner(self._storage, state.config, state.timeline)
