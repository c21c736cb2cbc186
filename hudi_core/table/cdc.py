"""Change data capture queries: every change of every record, commit by commit (features §2.4).

Output columns: `op` ('i' insert, 'u' update, 'd' delete), `ts_ms` (the commit's requested instant,
despite the name), `before` and `after` (the record's data columns before and after the commit, as
JSON strings in the form Spark's Hudi CDC reader gives them, or as structs). One row per key per
commit, ordered by (completion time, key). Table services (compaction, log compaction, clustering)
change no record and produce no rows.

Per file group a commit wrote or replaced, changes come from (Hudi's `HoodieCDCInferenceCase`s):

* its `.cdc` log (AS_IS, Copy-on-Write with `hoodie.table.cdc.enabled`): the logged ops and keys,
  and the images the logging mode kept; missing images are looked up in the file group as it was
  just before the commit (`before`) or as of the commit (`after`);
* otherwise inference (BASE_FILE_INSERT, BASE_FILE_DELETE, LOG_FILE, REPLACE_COMMIT): the group's
  merged content just before the commit is compared with its content as of the commit -- a key only
  after is an insert, only before a delete, and in both an update when the commit rewrote it
  (its `_hoodie_commit_time`, or its values when meta fields are not populated).

Changes are per file group, as Apache Hudi's CDC reader returns them: a record a global index moves to
another partition is a delete there and an insert here, and a replacing commit (insert_overwrite,
delete_partition) deletes every row of the file groups it replaced and inserts every row it wrote, a
key written again included. Either way the output is the same in every logging mode
and without CDC logs; a commit whose needed files were cleaned is an
IncrementalRangeUnavailableError naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.config.table import CdcLoggingMode, TableConfig
from hudi_core.errors import HudiConfigError, IncrementalRangeUnavailableError
from hudi_core.file_group import FileSlice
from hudi_core.file_group.log_file.cdc import AFTER, BEFORE, DELETE, INSERT, OP, RECORD_KEY, UPDATE, read_cdc_log
from hudi_core.keygen import KeyGenerator
from hudi_core.schema.conform import null_rows
from hudi_core.schema.meta_fields import COMMIT_TIME, META_FIELD_SET
from hudi_core.storage import Storage
from hudi_core.table.cdc_images import json_images, struct_images
from hudi_core.table.scan import ScanPlan, TableScanner
from hudi_core.timeline import Timeline
from hudi_core.timeline.instant import Instant

IMAGE_FORMATS = ("json", "struct")
FileGroup = tuple[str, str]  # (partition path, file id)
SliceReader = Callable[[ScanPlan], Iterable[pa.Table]]  # an engine reading a plan slice by slice


def _check_images(images: str) -> None:
    if images not in IMAGE_FORMATS:
        raise HudiConfigError(f"images={images!r}: use one of {', '.join(IMAGE_FORMATS)}")


def cdc_schema(data_schema: pa.Schema, images: str) -> pa.Schema:
    """The output schema of a CDC query over a table with these data columns."""
    image = pa.string() if images == "json" else pa.struct(list(data_schema))
    return pa.schema([("op", pa.string()), ("ts_ms", pa.string()), ("before", image), ("after", image)])


@dataclass(frozen=True)
class _Changes:
    """Changes of one commit: aligned per-row ops, keys, partitions and images (data columns)."""

    ops: list[str]
    keys: pa.Array
    partitions: pa.Array
    before: pa.Table
    after: pa.Table

    @property
    def num_rows(self) -> int:
        return len(self.ops)


class CdcReader:
    """Reads the change stream of one table over one loaded timeline."""

    def __init__(
        self, storage: Storage, config: TableConfig, timeline: Timeline, scanner: TableScanner, read_slices: SliceReader
    ) -> None:
        self._storage = storage
        self._config = config
        self._timeline = timeline
        self._scanner = scanner
        self._read_slices = read_slices
        keygen = KeyGenerator.from_table_config(config)
        self._stored_keys = keygen.key_spec_for(config.populate_meta_fields)
        self._image_keys = keygen.key_spec_for(populate_meta_fields=False)  # images hold no meta fields
        self._data_schema = pa.schema([f for f in scanner.data_schema() if f.name not in META_FIELD_SET])
        self._slice_rows: dict[FileSlice, pa.Table] = {}

    @property
    def timeline(self) -> Timeline:
        """The timeline the reader reads commits from."""
        return self._timeline

    def read(self, start: str | None, end: str | None, images: str = "json", inclusive_start: bool = False) -> pa.Table:
        """Changes made by the commits that completed in (start, end] (or [start, end])."""
        _check_images(images)
        pieces = [self.read_commit(c, images) for c in self.commits(start, end, inclusive_start)]
        pieces = [p for p in pieces if p.num_rows]
        return pa.concat_tables(pieces) if pieces else self.output_schema(images).empty_table()

    def commits(self, start: str | None, end: str | None, inclusive_start: bool = False) -> list[Instant]:
        """The commits a window selects, in completion order (engines read them one per task)."""
        timeline = self._timeline
        order = timeline.completion_order_key
        return [
            i
            for i in sorted(self._scanner.instants_since(start), key=order)
            if (end is None or order(i) <= end)
            and (start is None or (order(i) >= start if inclusive_start else order(i) > start))
            and not timeline.is_table_service(i)
        ]

    def read_commit(self, commit: Instant, images: str = "json") -> pa.Table:
        """The change rows of one commit."""
        _check_images(images)
        completed = sorted(self._scanner.instants_since(None), key=self._timeline.completion_order_key)
        return self._output(commit, self._commit_changes(commit, completed), images)

    def output_schema(self, images: str) -> pa.Schema:
        return cdc_schema(self._data_schema, images)

    # ---- one commit ---------------------------------------------------------------------------

    def _commit_changes(self, commit: Instant, completed: Sequence[Instant]) -> _Changes:
        order = self._timeline.completion_order_key
        metadata = self._timeline.commit_metadata(commit)
        replaced = {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}
        groups = metadata.touched_file_groups() | replaced
        logged = {(s.partition_path, s.file_id): sorted(s.cdc_stats) for s in metadata.write_stats() if s.cdc_stats}
        before = [i for i in completed if order(i) < order(commit)]
        after = [i for i in completed if order(i) <= order(commit)]
        parts = [self._logged(commit, before, after, group, paths) for group, paths in sorted(logged.items())]
        if replaced:
            # Apache Hudi's REPLACE_COMMIT case: every row of a replaced file group is deleted.
            parts.append(self._deleted(commit, before, replaced))
        inferred = groups - logged.keys() - replaced
        if inferred:
            parts.append(self._inferred(commit, before, after, inferred))
        return _concatenated([p for p in parts if p.num_rows], self._data_schema)

    def _deleted(self, commit: Instant, before_instants: Sequence[Instant], groups: set[FileGroup]) -> _Changes:
        """Every row of `groups` just before the commit, as a delete."""
        rows = self._state(commit, before_instants, groups)
        return _Changes(
            ops=[DELETE] * rows.num_rows,
            keys=_column(_KEY, rows),
            partitions=_column(_PARTITION, rows),
            before=rows.select(self._data_schema.names),
            after=null_rows(self._data_schema, rows.num_rows),
        )

    def _inferred(
        self,
        commit: Instant,
        before_instants: Sequence[Instant],
        after_instants: Sequence[Instant],
        groups: set[FileGroup],
    ) -> _Changes:
        before = self._state(commit, before_instants, groups)
        after = self._state(commit, after_instants, groups)
        before_ids, after_ids = _identities(before), _identities(after)
        gone = pc.invert(pc.is_in(before_ids, value_set=after_ids))
        new = pc.invert(pc.is_in(after_ids, value_set=before_ids))
        kept = after.filter(pc.invert(new))
        old = before.take(pc.index_in(_identities(kept), value_set=before_ids))
        if self._config.populate_meta_fields:
            rewritten = pc.equal(kept.column(COMMIT_TIME), commit.requested_time)
        else:
            rewritten = _differs(old.select(self._data_schema.names), kept.select(self._data_schema.names))
        deleted, inserted = before.filter(gone), after.filter(new)
        updated_old, updated_new = old.filter(rewritten), kept.filter(rewritten)
        names = self._data_schema.names
        none = null_rows(self._data_schema, max(deleted.num_rows, inserted.num_rows))
        return _Changes(
            ops=[DELETE] * deleted.num_rows + [INSERT] * inserted.num_rows + [UPDATE] * updated_new.num_rows,
            keys=_column(_KEY, deleted, inserted, updated_new),
            partitions=_column(_PARTITION, deleted, inserted, updated_new),
            before=pa.concat_tables(
                [deleted.select(names), none.slice(0, inserted.num_rows), updated_old.select(names)]
            ),
            after=pa.concat_tables(
                [none.slice(0, deleted.num_rows), inserted.select(names), updated_new.select(names)]
            ),
        )

    def _logged(
        self,
        commit: Instant,
        before_instants: Sequence[Instant],
        after_instants: Sequence[Instant],
        group: FileGroup,
        paths: Sequence[str],
    ) -> _Changes:
        missing = [p for p in paths if not self._storage.exists(p)]
        if missing:
            raise IncrementalRangeUnavailableError(
                f"change data of instant {commit.requested_time} is gone: its CDC log(s) {', '.join(missing)} "
                "were cleaned"
            )
        logs = [read_cdc_log(self._storage, p, self._data_schema) for p in paths]
        records = pa.concat_tables([table for table, _ in logs])
        mode = logs[0][1]
        ops = [str(op) for op in records.column(OP).to_pylist()]
        is_delete = np.array([op == DELETE for op in ops], dtype=bool)
        names = self._data_schema.names
        before = _struct_rows(records.column(BEFORE)) if BEFORE in records.column_names else None
        after = _struct_rows(records.column(AFTER)) if AFTER in records.column_names else None
        if mode is CdcLoggingMode.DATA_BEFORE_AFTER:
            assert before is not None and after is not None
            image_keys = pc.if_else(pa.array(is_delete), self._image_keys.keys(before), self._image_keys.keys(after))
            keys = pc.cast(image_keys, pa.string())
        else:
            keys = records.column(RECORD_KEY).combine_chunks()
        if before is None:
            before = self._lookup(commit, before_instants, {group}, keys)
        if after is None:
            after = self._lookup(commit, after_instants, {group}, keys)
        return _Changes(
            ops=ops,
            keys=_flat(pc.cast(keys, pa.string())),
            partitions=pa.repeat(pa.scalar(group[0]), len(ops)),
            before=before.select(names),
            after=after.select(names),
        )

    # ---- file-group state ---------------------------------------------------------------------

    def _state(self, commit: Instant, instants: Sequence[Instant], groups: set[FileGroup]) -> pa.Table:
        """The merged rows of `groups` as `instants` see them, with identity columns."""
        lost = self._scanner.unavailable(instants, groups)
        if lost:
            raise IncrementalRangeUnavailableError(
                f"change data of instant {commit.requested_time} needs file slices written by instant(s) "
                f"{', '.join(lost)}, which were cleaned"
            )
        plan = self._scanner.file_groups(instants, None, groups)
        # Consecutive commits share most slices; a slice's files fix its content.
        unread = [s for s in plan.slices if s not in self._slice_rows]
        if unread:
            for file_slice, rows in zip(unread, self._read_slices(replace(plan, slices=tuple(unread))), strict=True):
                keys = pc.cast(self._stored_keys.keys(rows), pa.string())
                partitions = pa.repeat(pa.scalar(file_slice.partition_path), rows.num_rows)
                self._slice_rows[file_slice] = rows.append_column(_KEY, keys).append_column(_PARTITION, partitions)
        tables = [self._slice_rows[s] for s in plan.slices]
        schema = plan.output_schema.append(pa.field(_KEY, pa.string())).append(pa.field(_PARTITION, pa.string()))
        return pa.concat_tables(tables) if tables else schema.empty_table()

    def _lookup(self, commit: Instant, instants: Sequence[Instant], groups: set[FileGroup], keys: pa.Array) -> pa.Table:
        """The rows of `keys` in `groups` as `instants` see them (null rows for absent keys)."""
        state = self._state(commit, instants, groups)
        return state.take(pc.index_in(keys, value_set=state.column(_KEY)))

    # ---- output -------------------------------------------------------------------------------

    def _output(self, commit: Instant, changes: _Changes, images: str) -> pa.Table:
        ops = np.array(changes.ops, dtype=object)
        # A key's delete comes before its insert (a move, a key written again by a replacing commit),
        # so a consumer applying the rows in order keeps the record.
        rank = pa.array([_OP_RANK[op] for op in changes.ops], pa.int8())
        order = pc.sort_indices(
            pa.table({"k": changes.keys, "r": rank, "p": changes.partitions}),
            sort_keys=[("k", "ascending"), ("r", "ascending"), ("p", "ascending")],
        )
        ops = ops[order.to_numpy()]
        render = json_images if images == "json" else struct_images
        return pa.Table.from_arrays(
            [
                pa.array(ops.tolist(), pa.string()),
                pa.repeat(pa.scalar(commit.requested_time), changes.num_rows),
                render(changes.before.take(order), ops != INSERT),
                render(changes.after.take(order), ops != DELETE),
            ],
            schema=cdc_schema(self._data_schema, images),
        )


# ---- helpers ----------------------------------------------------------------------------------

_KEY = "__hudi_cdc_key"
_OP_RANK = {DELETE: 0, UPDATE: 1, INSERT: 2}
_PARTITION = "__hudi_cdc_partition"


def _identities(rows: pa.Table) -> pa.Array:
    """(partition, key) as one string per row: records of different partitions are different."""
    return pc.binary_join_element_wise(rows.column(_PARTITION), rows.column(_KEY), "\x00").combine_chunks()


def _flat(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _column(name: str, *tables: pa.Table) -> pa.Array:
    return pa.chunked_array([c for t in tables for c in t.column(name).chunks], pa.string()).combine_chunks()


def _struct_rows(column: pa.ChunkedArray) -> pa.Table:
    return pa.Table.from_struct_array(column.combine_chunks())


def _differs(old: pa.Table, new: pa.Table) -> pa.Array:
    """Per aligned row pair: does any column differ (nulls equal nulls)?"""
    result = np.zeros(new.num_rows, dtype=bool)
    for name in new.column_names:
        a, b = old.column(name), new.column(name)
        try:
            same = pc.fill_null(pc.equal(a, b), False)
            both_null = pc.and_(pc.is_null(a), pc.is_null(b))
            result |= ~pc.or_(same, both_null).to_numpy(zero_copy_only=False)
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # nested types: compare as Python values
            result |= np.array([x != y for x, y in zip(a.to_pylist(), b.to_pylist(), strict=True)], dtype=bool)
    return pa.array(result)


def _concatenated(parts: Sequence[_Changes], data_schema: pa.Schema) -> _Changes:
    """The per-group changes of one commit, in one."""
    if not parts:
        empty = null_rows(data_schema, 0)
        return _Changes([], pa.array([], pa.string()), pa.array([], pa.string()), empty, empty)
    return _Changes(
        [op for p in parts for op in p.ops],
        pa.concat_arrays([p.keys for p in parts]),
        pa.concat_arrays([p.partitions for p in parts]),
        pa.concat_tables([p.before for p in parts]),
        pa.concat_tables([p.after for p in parts]),
    )
