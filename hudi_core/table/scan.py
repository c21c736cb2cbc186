"""Planning reads: which file slices a query reads, what it reads from each, and how it filters.

A :class:`ScanPlan` is plain data: the driver plans, and any engine executes the plan slice by
slice with :func:`read_planned_slice` (threads in the Arrow engine, tasks in Spark).

Query semantics (spec notes §1, features §2):

* snapshot: the latest slice of every file group, as of the last completed instant;
* time travel (`as_of`): only completed instants whose *requested* time is <= as_of are visible;
  rows come in the latest table schema (as hudi-rs does; columns added later read as null);
* read-optimized: base files only;
* incremental (start, end]: the instants whose completion time (layout 2; instant time on
  layout 1) falls in the window, excluding table services; the result is the state as of `end` of
  the file groups they wrote, restricted to records whose `_hoodie_commit_time` is the requested
  time of a selected instant.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import pyarrow as pa

from hudi_core.config.read import HudiReadConfig
from hudi_core.config.table import TableConfig
from hudi_core.errors import IncrementalRangeUnavailableError, SchemaError
from hudi_core.expr import Filter, parse_filters
from hudi_core.file_group import FileSlice
from hudi_core.file_group.fs_view import VisibleInstants, latest_file_slices, visible_instants
from hudi_core.file_group.log_file.scanner import BlockVisibility
from hudi_core.keygen import RecordKeySpec
from hudi_core.merge.behaviour import merge_behaviour
from hudi_core.merge.file_group_reader import FileGroupReader, SliceReadRequest
from hudi_core.merge.record_merger import MergeSpec
from hudi_core.metadata.skipping import DataSkipping
from hudi_core.schema.meta_fields import COMMIT_TIME, IS_DELETED, with_meta_fields
from hudi_core.schema.resolver import resolve_avro_schema, table_arrow_schema
from hudi_core.storage import Storage
from hudi_core.table.listing import FileListing
from hudi_core.table.partition import PartitionPruner
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Action, Instant


@dataclass(frozen=True)
class ScanPlan:
    """A planned read.

    Attributes:
        table_schema: the full table schema (meta and data columns) as of the query.
        output_schema: the columns returned, in the requested order.
        request: what each slice reader reads and how it filters.
        slices: the file slices to read.
        instants: the completed instants the query sees (snapshot) or selected (incremental).
    """

    table_schema: pa.Schema
    output_schema: pa.Schema
    request: SliceReadRequest
    slices: tuple[FileSlice, ...]
    instants: tuple[Instant, ...]


def read_planned_slice(reader: FileGroupReader, plan: ScanPlan, file_slice: FileSlice) -> pa.Table:
    """Reads one slice of a plan and returns exactly the plan's output columns."""
    return reader.read(file_slice, plan.request).select(plan.output_schema.names)


def read_planned_slice_batches(reader: FileGroupReader, plan: ScanPlan, file_slice: FileSlice) -> Iterator[pa.Table]:
    """:func:`read_planned_slice` as a stream of tables (`FileGroupReader.read_batches`)."""
    names = plan.output_schema.names
    return (table.select(names) for table in reader.read_batches(file_slice, plan.request))


INCREMENTAL_FALLBACK_KEY = HudiReadConfig.INCREMENTAL_FALLBACK_FULL_SCAN.key


class TableScanner:
    """Plans reads of one table over one loaded timeline."""

    def __init__(self, storage: Storage, config: TableConfig, timeline: Timeline, use_metadata: bool = True) -> None:
        self._storage = storage
        self._config = config
        self._timeline = timeline
        self._use_metadata = use_metadata

    # ---- snapshot and time travel -------------------------------------------------------------

    def snapshot(
        self,
        columns: Sequence[str] | None,
        filters: Sequence[Sequence[object]] | None,
        as_of: str | None = None,
        read_optimized: bool = False,
    ) -> ScanPlan:
        """Plans a snapshot (or, with `as_of`, a time-travel) read."""
        completed = self._timeline.completed_data_instants()
        schema = self._schema(completed)
        if as_of is not None:
            completed = [i for i in completed if i.requested_time <= as_of]
        output, parsed, request = self._request(schema, columns, filters, read_optimized)
        if not completed:
            return ScanPlan(schema, output, request, (), ())
        view = self._visible(completed, upper_bound=as_of)
        request = self._with_merging(request, schema, view)
        pruner = PartitionPruner(self._config, schema)
        listing = FileListing(self._storage, self._timeline, self._use_metadata, self._config)
        partitions = [p for p in listing.partitions() if pruner.may_match(p, parsed)]
        skipping = self._skipping(listing, schema, parsed)
        if skipping is not None:
            partitions = skipping.partitions(partitions)
        slices: list[FileSlice] = []
        for partition, entries in listing.files(partitions).items():
            slices.extend(latest_file_slices(partition, entries, view))
        if skipping is not None:
            slices = skipping.slices(slices)
        return ScanPlan(schema, output, request, tuple(_readable(slices, read_optimized)), tuple(completed))

    def _skipping(self, listing: FileListing, schema: pa.Schema, filters: Sequence[Filter]) -> DataSkipping | None:
        if listing.metadata is None or not filters:
            return None
        return DataSkipping(listing.metadata, self._config.metadata_partitions, with_meta_fields(schema), filters)

    # ---- incremental --------------------------------------------------------------------------

    def incremental(
        self,
        start: str | None,
        end: str | None,
        columns: Sequence[str] | None,
        filters: Sequence[Sequence[object]] | None,
        inclusive_start: bool = False,
        fallback_to_full_scan: bool = False,
    ) -> ScanPlan:
        """Plans an incremental read of the window (start, end] (or [start, end]).

        A window reaching before the active timeline takes its instants from the archived history.
        When the window needs files the cleaner deleted, the read fails with
        IncrementalRangeUnavailableError naming the instants that wrote them, or with
        `fallback_to_full_scan` scans the latest snapshot for the records the window's instants wrote.
        """
        timeline = self._timeline
        completed = self.instants_since(start)
        as_of_end = [i for i in completed if end is None or timeline.completion_order_key(i) <= end]
        selected = [
            i
            for i in as_of_end
            if _after(timeline.completion_order_key(i), start, inclusive_start) and _selectable(timeline, i)
        ]
        schema = self._schema(completed)
        extra: list[Filter] = []
        if selected and self._config.populate_meta_fields:
            # Untouched records keep their commit time through rewrites, compaction and clustering.
            commit_times = sorted({i.requested_time for i in selected})
            extra = parse_filters([(COMMIT_TIME, "in", commit_times)], schema)
        if not selected:
            output, _, request = self._request(schema, columns, filters, False, extra)
            return ScanPlan(schema, output, request, (), ())
        touched = self._follow_clustering(self._touched_file_groups(selected), as_of_end, start)
        lost = self.unavailable(as_of_end, touched)
        if lost:
            if not fallback_to_full_scan:
                raise IncrementalRangeUnavailableError(
                    f"the incremental window needs files written by instant(s) {', '.join(sorted(set(lost)))}, "
                    f"which the cleaner deleted; set {INCREMENTAL_FALLBACK_KEY}=true to scan the table instead"
                )
            plan = self.snapshot(columns, [*(filters or ()), *((f.column, f.op, f.python_values) for f in extra)])
            return replace(plan, instants=tuple(selected))
        plan = self.file_groups(as_of_end, end, touched, columns, filters, extra)
        return replace(plan, instants=tuple(selected))

    def instants_since(self, start: str | None) -> list[Instant]:
        """Completed data instants a window starting after `start` may select, archived ones included
        when the window reaches before the active timeline."""
        timeline = self._timeline
        completed = timeline.completed_data_instants()
        oldest = min((timeline.completion_order_key(i) for i in completed), default=None)
        if timeline.has_archive() and (start is None or oldest is None or start < oldest):
            return [*timeline.archived_data_instants(), *completed]
        return completed

    def file_groups(
        self,
        visible: Sequence[Instant],
        upper_bound: str | None,
        groups: set[tuple[str, str]],
        columns: Sequence[str] | None = None,
        filters: Sequence[Sequence[object]] | None = None,
        extra_filters: Sequence[Filter] = (),
    ) -> ScanPlan:
        """Plans reading the latest slices of `groups` ((partition, file id)) as seen by `visible`."""
        schema = self._schema(self._timeline.completed_data_instants())
        output, parsed, request = self._request(schema, columns, filters, False, extra_filters)
        view = self._visible(visible, upper_bound)
        request = self._with_merging(request, schema, view)
        pruner = PartitionPruner(self._config, schema)
        slices: list[FileSlice] = []
        wanted = [p for p in sorted({p for p, _ in groups}) if pruner.may_match(p, parsed)]
        listing = FileListing(self._storage, self._timeline, self._use_metadata, self._config)
        for partition, entries in listing.files(wanted).items():
            slices.extend(s for s in latest_file_slices(partition, entries, view) if (partition, s.file_id) in groups)
        return ScanPlan(schema, output, request, tuple(slices), tuple(visible))

    def _touched_file_groups(self, instants: Sequence[Instant]) -> set[tuple[str, str]]:
        touched: set[tuple[str, str]] = set()
        for instant in instants:
            touched |= self._timeline.commit_metadata(instant).touched_file_groups()
        return touched

    def _follow_clustering(
        self, touched: set[tuple[str, str]], as_of_end: Sequence[Instant], start: str | None
    ) -> set[tuple[str, str]]:
        """Adds the file groups clustering moved touched records into (they keep their commit time)."""
        timeline = self._timeline
        services = [
            i
            for i in as_of_end
            if i.action is Action.REPLACE_COMMIT
            and timeline.is_table_service(i)
            and _after(timeline.completion_order_key(i), start, True)
        ]
        for instant in sorted(services, key=timeline.completion_order_key):
            metadata = timeline.commit_metadata(instant)
            replaced = {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}
            if replaced & touched:
                touched |= metadata.touched_file_groups()
        return touched

    # ---- availability ---------------------------------------------------------------------------

    def unavailable(self, visible: Sequence[Instant], groups: set[tuple[str, str]]) -> list[str]:
        """Instants whose files the latest slices of `groups` (as `visible` sees them) need but lost.

        Replays the write stats of `visible` to know which base and log files make up each group's
        latest slice, then checks they still exist: the cleaner may have removed older slices.
        """
        slice_files: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for instant in sorted(visible, key=self._timeline.completion_order_key):
            metadata = self._timeline.commit_metadata(instant)
            for partition, ids in metadata.partition_to_replace_file_ids.items():
                for file_id in ids:
                    slice_files.pop((partition, file_id), None)
            for stat in metadata.write_stats():
                group = (stat.partition_path, stat.file_id)
                if group not in groups or not stat.path:
                    continue
                if stat.log_version is None:  # a new base file starts a new slice
                    slice_files[group] = [(stat.path, instant.requested_time)]
                else:
                    slice_files.setdefault(group, []).append((stat.path, instant.requested_time))
        return sorted(
            {instant for files in slice_files.values() for path, instant in files if not self._storage.exists(path)}
        )

    def merge_request(self) -> tuple[pa.Schema, SliceReadRequest]:
        """The full schema and a request reading whole merged records as the completed timeline sees them.

        Table services read file slices with it: every column, meta columns included, no filters.
        """
        completed = self._timeline.completed_data_instants()
        schema = self._schema(completed)
        output, _, request = self._request(schema, None, None, False)
        return output, self._with_merging(request, schema, self._visible(completed, None))

    def data_schema(self) -> pa.Schema:
        """The table schema (meta and data columns) as of the latest commit."""
        return self._schema(self._timeline.completed_data_instants())

    # ---- shared -------------------------------------------------------------------------------

    def _schema(self, instants: Sequence[Instant]) -> pa.Schema:
        return table_arrow_schema(resolve_avro_schema(self._timeline, self._config, instants), self._config.name)

    def _visible(self, instants: Sequence[Instant], upper_bound: str | None) -> VisibleInstants:
        return visible_instants(self._timeline, instants, upper_bound)

    def _with_merging(self, request: SliceReadRequest, schema: pa.Schema, view: VisibleInstants) -> SliceReadRequest:
        """Adds what Merge-on-Read slices need: merge columns, the merge spec, block visibility."""
        config = self._config
        if not config.is_mor or request.read_optimized:
            return request
        keys = RecordKeySpec(
            fields=tuple(config.record_key_fields),
            key_generator=config.key_generator_type,
            from_meta_field=config.populate_meta_fields,
            field_prefixed_single=config.version >= 9,
        )
        behaviour = merge_behaviour(config, self._storage.base_uri)
        ordering = config.ordering_fields[0] if config.ordering_fields else None
        needed = set(request.schema.names) | set(keys.source_columns) | {ordering, IS_DELETED, behaviour.delete_field}
        read_schema = pa.schema([f for f in schema if f.name in needed])
        instants = self._timeline.instants()
        visibility = BlockVisibility(
            visible=view.visible,
            timeline_start=instants[0].requested_time if instants else None,
            upper_bound=view.upper_bound,
        )
        merge = MergeSpec.of(behaviour, ordering, read_schema, keys)
        return replace(request, schema=read_schema, merge=merge, visibility=visibility)

    def _request(
        self,
        schema: pa.Schema,
        columns: Sequence[str] | None,
        filters: Sequence[Sequence[object]] | None,
        read_optimized: bool,
        extra_filters: Sequence[Filter] = (),
    ) -> tuple[pa.Schema, list[Filter], SliceReadRequest]:
        output = project(schema, columns, self._config.name)
        parsed = parse_filters(filters, schema)
        all_filters = [*parsed, *extra_filters]
        needed = set(output.names) | {f.column for f in all_filters}
        read_schema = pa.schema([f for f in schema if f.name in needed])
        return output, parsed, SliceReadRequest(read_schema, tuple(all_filters), read_optimized)


def project(schema: pa.Schema, columns: Sequence[str] | None, table_name: str) -> pa.Schema:
    """`schema` restricted to `columns`, in their order; raises SchemaError for unknown names."""
    if columns is None:
        return schema
    if isinstance(columns, str):
        raise SchemaError(f"columns must be a list of names, got the string {columns!r}")
    unknown = [c for c in columns if schema.get_field_index(c) < 0]
    if unknown:
        raise SchemaError(
            f"unknown column(s) {', '.join(map(repr, unknown))} in table {table_name}; "
            f"columns: {', '.join(schema.names)}"
        )
    if len(set(columns)) != len(columns):
        raise SchemaError(f"duplicate column names in {list(columns)}")
    return pa.schema([schema.field(c) for c in columns])


def _after(key: str, start: str | None, inclusive: bool) -> bool:
    if start is None:
        return True
    return key >= start if inclusive else key > start


def _readable(slices: list[FileSlice], read_optimized: bool) -> list[FileSlice]:
    """Read-optimized queries see base files only; log-only slices hold nothing for them."""
    if not read_optimized:
        return slices
    return [s for s in slices if s.base_file is not None]


def _selectable(timeline: Timeline, instant: Instant) -> bool:
    """Whether an incremental window selects `instant`: writes, and log compactions.

    A log compaction by Apache Hudi stamps the records it merges with its own instant time, and
    Spark's incremental query selects every commit and delta commit completed in the window, log
    compactions included: the records they stamped are changes of the window. Compaction and
    clustering keep their records' commit times, so selecting them would add nothing.
    """
    return not timeline.is_table_service(instant) or timeline.pending_action(instant) is Action.LOG_COMPACTION
