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

import contextlib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import pyarrow as pa

from hudi_core.concurrency import retry_on_conflict
from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.concurrency import HudiLockConfig
from hudi_core.config.properties import PROPERTIES_FILE
from hudi_core.config.read import HudiReadConfig
from hudi_core.config.table import HudiTableConfig, TableConfig
from hudi_core.config.write import HudiWriteConfig
from hudi_core.engine.arrow import iter_plan, plan_batch_reader, read_plan
from hudi_core.errors import HudiConfigError, HudiError, TableExistsError
from hudi_core.file_group import FileSlice
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.parallel import TaskRunner, run_locally
from hudi_core.schema.meta_fields import without_meta_fields
from hudi_core.services import archival, clean, clustering, compaction, savepoint
from hudi_core.services.base import ServiceContext
from hudi_core.services.indexing import build_metadata_partitions
from hudi_core.services.inline import with_inline_services
from hudi_core.services.metadata_validation import MetadataValidation, validate_metadata
from hudi_core.services.upgrade import upgrade_if_needed
from hudi_core.storage import Storage
from hudi_core.sync import with_meta_sync
from hudi_core.table.cdc import CdcReader
from hudi_core.table.checkpoint import latest_checkpoint
from hudi_core.table.create import table_definition, write_new_table
from hudi_core.table.orphans import orphan_files
from hudi_core.table.read_planner import ReadPlanner, incremental_window
from hudi_core.table.scan import ScanPlan
from hudi_core.table.state import METAFOLDER, TableState, load_table_config
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant, normalize_instant_time
from hudi_core.write.client import WriteClient, WriteResult
from hudi_core.write.operation import WriteOperation
from hudi_core.write.prepare import to_arrow

__all__ = [  # the façade, and the types its methods return
    "Filters",
    "HudiTable",
    "ScanPlan",
    "ServiceResult",
    "TableConfig",
    "check_decided_options",
    "table_exists",
    "table_for_write",
    "write_hudi",
]

Filters = Sequence[Sequence[Any]] | None
_READ_OPTION_KEYS = frozenset(option.key for name, option in vars(HudiReadConfig).items() if not name.startswith("_"))


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=3)


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

    def __init__(
        self, path: str, options: Mapping[str, str] | None = None, task_runner: TaskRunner = run_locally
    ) -> None:
        self._options = dict(options or {})
        self._task_runner = task_runner
        validate_options(self._options)
        # Read options are applied to reads; write options to writes; a key may be either.
        self._write_options = {k: v for k, v in self._options.items() if k not in _READ_OPTION_KEYS}
        self._storage = Storage(path)
        self._planner = ReadPlanner(self._storage, self._options, {})
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
    def planner(self) -> ReadPlanner:
        """The read planner engines call (under this handle's options)."""
        return self._planner

    @property
    def table_config(self) -> TableConfig:
        """hoodie.properties as a typed object (reloaded on every access)."""
        return load_table_config(self._storage)

    @property
    def timeline(self) -> Timeline:
        """The active timeline (reloaded on every access)."""
        return self._planner.state().timeline

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of a snapshot read: meta columns, then data columns."""
        return self._planner.scanner(self._planner.state()).snapshot(None, None).table_schema

    def state(self) -> TableState:
        """Deprecated: use `planner.state()`."""
        _deprecated("HudiTable.state()", "HudiTable.planner.state()")
        return self._planner.state()

    def file_slices(self, as_of: str | None = None) -> list[FileSlice]:
        """The latest file slice of every file group (as of `as_of`, if given)."""
        as_of_time = normalize_instant_time(as_of, "as_of") if as_of is not None else None
        planner = self._planner
        return list(planner.scanner(planner.state()).snapshot(None, None, as_of_time).slices)

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
        if self._planner.is_cdc_query(options):
            if columns is not None or filters is not None or as_of is not None:
                raise HudiConfigError("a CDC query returns whole change rows: columns, filters and as_of do not apply")
            start, end = self._planner.cdc_window(options)
            return self._cdc_reader().read(start, end)
        return read_plan(self._storage, self.plan(columns, filters, as_of, options))

    def _write_options_for(self, options: Mapping[str, str] | None) -> dict[str, str]:
        """The one precedence of a write's or service's options: the handle's writer options, under
        the call's (validated; options conflicting with what the table persisted are refused by the
        write client)."""
        merged = {**self._write_options, **(options or {})}
        validate_options(merged)
        return merged

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
                "earliest" (or "000"). `inclusive_start=True` gives Hudi 1.0.x's inclusive start.
            end: inclusive upper bound (default: the latest completed instant).
            columns: as in :meth:`read`.
            filters: as in :meth:`read`.
        """
        return read_plan(self._storage, self.plan_incremental(start, end, columns, filters, inclusive_start))

    def read_cdc(
        self, start: str, end: str | None = None, images: str = "json", inclusive_start: bool = False
    ) -> pa.Table:
        """Every change of every record by the commits that completed in (start, end].

        Args:
            start: as in :meth:`read_incremental` ("earliest" or an instant).
            end: inclusive upper bound (default: the latest completed instant).
            images: "json" (default; `before`/`after` as JSON strings, as Spark's CDC returns them)
                or "struct" (as structs of the data columns).
            inclusive_start: include commits completed exactly at `start` (Hudi 1.0.x).

        Returns:
            Columns `op` ('i', 'u', 'd'), `ts_ms` (the commit's instant time), `before`, `after`;
            one row per key per commit, sorted by (completion time, key).

        Raises:
            IncrementalRangeUnavailableError: a commit's files were cleaned, or the window reaches
                archived instants.
        """
        start_time, end_time = incremental_window(start, end)
        return self._cdc_reader().read(start_time, end_time, images, inclusive_start)

    def _cdc_reader(self) -> CdcReader:
        return self._planner.cdc_reader(partial(iter_plan, self._storage))

    def cdc_reader(self) -> CdcReader:
        """Deprecated: use `planner.cdc_reader(read_slices)`."""
        _deprecated("HudiTable.cdc_reader()", "HudiTable.planner.cdc_reader(read_slices)")
        return self._cdc_reader()

    def cdc_window(self, options: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
        """Deprecated: use `planner.cdc_window(options)`."""
        _deprecated("HudiTable.cdc_window()", "HudiTable.planner.cdc_window()")
        return self._planner.cdc_window(options)

    def is_cdc_query(self, options: Mapping[str, str] | None) -> bool:
        """Deprecated: use `planner.is_cdc_query(options)`."""
        _deprecated("HudiTable.is_cdc_query()", "HudiTable.planner.is_cdc_query()")
        return self._planner.is_cdc_query(options)

    def latest_checkpoint(self, identifier: str | None = None) -> str | None:
        """The checkpoint of the latest commit (by completion time) that stored one.

        With `identifier`, only commits written with that `checkpoint_identifier` count. Commits
        without a checkpoint (table services, other writers) are skipped; archived commits are
        searched when no active one has a checkpoint.
        """
        return latest_checkpoint(self._storage, self._planner.state(), identifier)

    # ---- planning -----------------------------------------------------------------------------

    def plan(
        self,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        as_of: str | None = None,
        options: Mapping[str, str] | None = None,
    ) -> ScanPlan:
        """Plans a read (see :meth:`read`) without reading data; engines execute the plan."""
        return self._planner.plan(columns, filters, as_of, options)

    def plan_incremental(
        self,
        start: str,
        end: str | None = None,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        inclusive_start: bool = False,
        fallback_to_full_scan: bool | None = None,
    ) -> ScanPlan:
        """Plans an incremental read (see :meth:`read_incremental`)."""
        return self._planner.plan_incremental(start, end, columns, filters, inclusive_start, fallback_to_full_scan)

    # ---- creating -----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str,
        schema: pa.Schema,
        table_name: str,
        record_key_fields: Sequence[str],
        partition_fields: Sequence[str] | None = None,
        ordering_fields: Sequence[str] | None = None,
        table_type: str = "COPY_ON_WRITE",
        options: Mapping[str, str] | None = None,
    ) -> HudiTable:
        """Creates a version-8 table and returns a handle that keeps `options` for its reads and writes.

        Args:
            path: where the table goes (its base path).
            schema: the data columns (Arrow); meta columns are added by Hudi.
            table_name: `hoodie.table.name`.
            record_key_fields: record key field(s).
            partition_fields: partition field(s); `field:simple|timestamp` selects the custom key generator.
            ordering_fields: at most one ordering (precombine) field on table version 8.
            table_type: COPY_ON_WRITE or MERGE_ON_READ.
            options: other `hoodie.*` table options (key generator, Hive-style paths, URL encoding,
                merge mode, timestamp key generator settings, ...).

        Raises:
            TableExistsError: a table already exists at `path`.
            HudiConfigError / SchemaError: the definition is invalid.
        """
        definition = table_definition(
            schema, table_name, record_key_fields, partition_fields, ordering_fields, table_type, options or {}
        )
        storage = Storage(path)
        write_new_table(storage, definition)
        # The handle keeps every option it was created with: writer options (codec, index, services)
        # apply to its writes as they would on `HudiTable(path, options)`.
        return cls(path, options)

    # ---- writing ------------------------------------------------------------------------------

    def _write(
        self,
        operation: WriteOperation,
        data: Any,
        options: Mapping[str, str] | None,
        checkpoint: str | None,
        checkpoint_identifier: str | None,
        partitions: Sequence[str] | None = None,
        deletes: Any = None,
    ) -> WriteResult:
        merged = self._write_options_for(options)
        upgrade_if_needed(self._storage, merged)
        client = WriteClient(self._storage, merged)
        check_decided_options(operation, merged, self.table_config)
        result = client.write(operation, data, partitions, checkpoint, checkpoint_identifier, deletes)
        result = with_inline_services(result, ServiceContext(self._storage, merged))
        return with_meta_sync(result, self._storage, merged)

    def upsert(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
        deletes: Any = None,
    ) -> WriteResult:
        """Inserts new records and updates stored ones (by record key), de-duplicating the batch first.

        `deletes`: records (their record key and partition columns) deleted in the same commit, by
        key whatever their ordering values, e.g. rows a replacing writer no longer produces.
        """
        return self._write(WriteOperation.UPSERT, data, options, checkpoint, checkpoint_identifier, deletes=deletes)

    def insert(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Inserts records without looking up stored keys (`hoodie.datasource.insert.dup.policy` applies)."""
        return self._write(WriteOperation.INSERT, data, options, checkpoint, checkpoint_identifier)

    def bulk_insert(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Writes records into new file groups only: fastest for initial loads."""
        return self._write(WriteOperation.BULK_INSERT, data, options, checkpoint, checkpoint_identifier)

    def delete(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Deletes the records whose keys `data` holds (key columns, and partition columns unless global)."""
        return self._write(WriteOperation.DELETE, data, options, checkpoint, checkpoint_identifier)

    def insert_overwrite(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Replaces every partition present in `data` with its rows (a replacecommit)."""
        return self._write(WriteOperation.INSERT_OVERWRITE, data, options, checkpoint, checkpoint_identifier)

    def insert_overwrite_table(
        self,
        data: Any,
        options: Mapping[str, str] | None = None,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Replaces the whole table with `data` (a replacecommit)."""
        return self._write(WriteOperation.INSERT_OVERWRITE_TABLE, data, options, checkpoint, checkpoint_identifier)

    def delete_partitions(self, partitions: Sequence[str], options: Mapping[str, str] | None = None) -> WriteResult:
        """Drops whole partitions (`*` wildcards allowed) with a replacecommit; files go at cleaning."""
        return self._write(WriteOperation.DELETE_PARTITION, None, options, None, None, partitions)

    # ---- table services ---------------------------------------------------------------------

    def _services(self, options: Mapping[str, str] | None) -> ServiceContext:
        merged = self._write_options_for(options)
        upgrade_if_needed(self._storage, merged)
        return ServiceContext(self._storage, merged, self._task_runner)

    def schedule_compaction(self, options: Mapping[str, str] | None = None) -> str | None:
        """Plans a compaction of the slices with log files (Merge-on-Read); returns its instant or None."""
        instant = compaction.schedule_compaction(self._services(options))
        return instant.requested_time if instant is not None else None

    def compact(self, instant: str | None = None, options: Mapping[str, str] | None = None) -> ServiceResult | None:
        """Runs a pending compaction (`instant`, else the earliest, else a newly scheduled one).

        Returns None when no slice had log files to compact.
        """
        time = normalize_instant_time(instant, "instant") if instant is not None else None
        return compaction.run_compaction(self._services(options), time)

    def schedule_log_compaction(self, options: Mapping[str, str] | None = None) -> str | None:
        """Plans a log compaction of slices with many log blocks; returns its instant or None."""
        instant = compaction.schedule_compaction(self._services(options), compaction.LOG_COMPACTION)
        return instant.requested_time if instant is not None else None

    def log_compact(self, instant: str | None = None, options: Mapping[str, str] | None = None) -> ServiceResult | None:
        """Runs a pending log compaction (else schedules one): a slice's log blocks become one block pair."""
        time = normalize_instant_time(instant, "instant") if instant is not None else None
        return compaction.run_compaction(self._services(options), time, compaction.LOG_COMPACTION)

    def schedule_clustering(self, options: Mapping[str, str] | None = None) -> str | None:
        """Plans a clustering of small file groups; returns its instant or None.

        Options: `hoodie.clustering.plan.strategy.*` (sizes, `sort.columns`, partitions) and
        `hoodie.layout.optimize.strategy` (linear, z-order, hilbert).
        """
        instant = clustering.schedule_clustering(self._services(options))
        return instant.requested_time if instant is not None else None

    def cluster(self, instant: str | None = None, options: Mapping[str, str] | None = None) -> ServiceResult | None:
        """Runs a pending clustering (`instant`, else the earliest, else a newly scheduled one)."""
        time = normalize_instant_time(instant, "instant") if instant is not None else None
        return clustering.run_clustering(self._services(options), time)

    def clean(self, options: Mapping[str, str] | None = None) -> ServiceResult | None:
        """Deletes file slices outside the retention (`hoodie.clean.policy`); None when nothing is due."""
        return clean.run_clean(self._services(options), force=True)

    def archive(self, options: Mapping[str, str] | None = None) -> ServiceResult | None:
        """Moves old completed instants into the LSM history; None when nothing qualifies."""
        return archival.run_archive(self._services(options))

    def savepoint(
        self, instant: str, user: str = "", comment: str = "", options: Mapping[str, str] | None = None
    ) -> ServiceResult:
        """Savepoints a completed commit: its files stay until the savepoint is deleted."""
        return savepoint.create_savepoint(
            self._services(options), normalize_instant_time(instant, "instant"), user, comment
        )

    def delete_savepoint(self, instant: str, options: Mapping[str, str] | None = None) -> None:
        """Deletes the savepoint of `instant`."""
        savepoint.delete_savepoint(self._services(options), normalize_instant_time(instant, "instant"))

    def savepoints(self) -> list[str]:
        """Instants of the table's savepoints."""
        return [i.requested_time for i in savepoint.savepoint_instants(self._planner.state().timeline)]

    def restore(self, instant: str, options: Mapping[str, str] | None = None) -> ServiceResult:
        """Returns the table to savepoint `instant`: every later write is rolled back."""
        return savepoint.restore(self._services(options), normalize_instant_time(instant, "instant"))

    def rollback(self, instant: str) -> Instant:
        """Rolls back a failed write, or the latest completed write; returns the rollback instant."""
        upgrade_if_needed(self._storage, self._write_options)
        return WriteClient(self._storage, self._write_options).rollback(normalize_instant_time(instant, "instant"))

    # ---- metadata table -----------------------------------------------------------------------

    def build_metadata_index(self, partitions: Sequence[str], options: Mapping[str, str] | None = None) -> str | None:
        """Builds metadata-table partitions (`files`, `column_stats`, `record_index`, ...) from the
        table as it is, in an `indexing` instant; returns it (None when all exist already)."""
        merged = self._write_options_for(options)
        return build_metadata_partitions(self._storage, partitions, HudiConfigs(merged))

    def validate_metadata(self) -> MetadataValidation:
        """Compares the metadata table with a listing of storage and reports every difference."""
        return validate_metadata(self._storage)

    def orphan_files(self) -> list[str]:
        """Data files on storage that no committed or pending instant wrote (relative paths)."""
        return orphan_files(self._storage)


def write_hudi(
    path: str,
    data: Any,
    options: Mapping[str, str],
    checkpoint: str | None = None,
    checkpoint_identifier: str | None = None,
    *,
    deletes: Any = None,
) -> WriteResult:
    """Writes `data` with Hudi's Spark datasource options, creating the table on first write.

    `hoodie.table.name` is required to create a table; without `hoodie.datasource.write.recordkey.field`
    the table has auto-generated keys (as Apache Hudi 0.14+: `<instant>_<task>_<row>`, inserts only,
    an upsert inserts); `hoodie.datasource.write.partitionpath.field`, `hoodie.datasource.write.precombine.field`,
    `hoodie.datasource.write.table.type` and the key generator options shape it. Later writes honour
    what the table persisted (a conflicting option is an error). The operation is
    `hoodie.datasource.write.operation` (default upsert). Under optimistic concurrency, a write that
    loses a conflict runs again up to `hoodie.write.num.retries.on.conflict.failures` times. An
    upsert also deletes the records `deletes` names, in the same commit (`HudiTable.upsert`).
    """
    opts = dict(options)
    validate_options(opts)
    configs = HudiConfigs(opts)
    table_data = to_arrow(data) if data is not None else None
    with table_for_write(path, table_data.schema if table_data is not None else None, opts) as table:
        partitions = configs.get(HudiWriteConfig.PARTITIONS_TO_DELETE)
        operation = configs.value(HudiWriteConfig.OPERATION)
        return retry_on_conflict(
            lambda: table._write(operation, table_data, opts, checkpoint, checkpoint_identifier, partitions, deletes),
            retries=configs.value(HudiLockConfig.RETRIES_ON_CONFLICT),
        )


def check_decided_options(operation: WriteOperation | None, options: Mapping[str, str], config: TableConfig) -> None:
    """Refuses options that contradict what the call decides: the operation (the method called) and
    the table written (its name, as Hudi's Spark writer refuses another one, and its type)."""
    configs = HudiConfigs(dict(options))
    key = configs.given_key(HudiWriteConfig.OPERATION)
    if operation is not None and key is not None and configs.value(HudiWriteConfig.OPERATION) is not operation:
        raise HudiConfigError(
            f"option {key}={options[key]} contradicts the operation called ({operation.value}): "
            f"drop the option or call the {configs.value(HudiWriteConfig.OPERATION).value} operation"
        )
    name = configs.get(HudiTableConfig.NAME)
    if name is not None and name.casefold() != config.name.casefold():
        raise HudiConfigError(
            f"option {HudiTableConfig.NAME.key}={name} contradicts the name of the table written ({config.name})"
        )
    kind = configs.get(HudiTableConfig.TYPE) if configs.contains(HudiTableConfig.TYPE) else None
    if kind is not None and kind is not config.table_type:
        raise HudiConfigError(
            f"option {HudiTableConfig.TYPE.key}={kind.value} contradicts the type of the table written "
            f"({config.table_type.value})"
        )


def table_exists(path: str) -> bool:
    """Whether a Hudi table (its hoodie.properties) exists at `path`."""
    return Storage(path).exists(PROPERTIES_FILE)


@contextlib.contextmanager
def table_for_write(path: str, data_schema: pa.Schema | None, options: Mapping[str, str]) -> Iterator[HudiTable]:
    """The table at `path`, created from `options` and the data's schema when absent.

    If the first write into a table created here fails, the table is removed again, so a rejected
    batch leaves no table behind to persist its settings.
    """
    configs = HudiConfigs(dict(options))
    storage = Storage(path)
    created = False
    path_existed = storage.exists("")
    if not storage.exists(PROPERTIES_FILE):
        name = configs.get(HudiTableConfig.NAME)
        keys = configs.get(HudiWriteConfig.RECORD_KEY_FIELD) or ""  # none: keys are generated (Hudi 0.14+)
        if not name:
            raise HudiConfigError(f"creating a table at {path} needs {HudiTableConfig.NAME.key}")
        if data_schema is None:
            raise HudiConfigError(f"creating a table at {path} needs data to take its schema from")
        partition_option = configs.get(HudiWriteConfig.PARTITION_PATH_FIELD) or ""
        precombine = configs.get(HudiWriteConfig.PRECOMBINE_FIELD)
        with contextlib.suppress(TableExistsError):  # created concurrently: write into it
            created = bool(
                HudiTable.create(
                    path,
                    without_meta_fields(data_schema),
                    name,
                    keys,
                    [p.strip() for p in partition_option.split(",") if p.strip()],
                    [precombine] if precombine else None,
                    configs.value(HudiWriteConfig.TABLE_TYPE).value,
                    dict(options),
                )
            )
    if not created:
        upgrade_if_needed(storage, options)
    table = HudiTable(path)
    if not created:
        check_decided_options(None, options, table.table_config)
    try:
        yield table
    except HudiError:
        if created and not table.timeline.instants():
            storage.delete_dir(METAFOLDER)
            if not path_existed and not storage.list_dir(""):
                storage.delete_dir("")
        raise
