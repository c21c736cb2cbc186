"""Downstream consumers of a table's commits: the window a consumer has not processed yet, and the
change feed applied as a mirror.

A consumer names itself with a checkpoint identifier; the end of each window it processed is stored
as the checkpoint of the target commit (`hudi_core.table.checkpoint`), so the target table, not the
orchestrator's own records, says what was processed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core.hudi_table import HudiTable, table_exists
from hudi_core.schema.meta_fields import IS_DELETED, META_FIELDS
from hudi_core.table.checkpoint import ChangeWindow, change_window


def pending_window(source_path: str, target_path: str, identifier: str) -> ChangeWindow | None:
    """Commits of `source_path` not yet processed into `target_path` by the consumer `identifier`."""
    checkpoint = HudiTable(target_path).latest_checkpoint(identifier) if table_exists(target_path) else None
    return change_window(HudiTable(source_path).timeline, checkpoint)


def drop_meta_columns(data: Any) -> Any:
    """Rows without Hudi's meta columns (the target writes its own): an Arrow table or a Spark DataFrame."""
    if isinstance(data, pa.Table):
        return data.drop_columns([n for n in data.column_names if n in META_FIELDS])
    return data.drop(*[n for n in data.columns if n in META_FIELDS])


def cdc_mirror_rows(changes: pa.Table, key_fields: Sequence[str] = ()) -> pa.Table:
    """The default CDC consumer: after-images of inserts and updates, before-images of deletes
    marked `_hoodie_is_deleted` — one upsert applies a window's changes atomically.

    With `key_fields` (the target's record key and partition fields), only the last change of each
    key is kept, in feed order: a key a commit deleted and wrote again (a replacing write) ends as
    its insert, whatever the ordering values of the two images.
    """
    deletes = pc.equal(changes.column("op"), "d").combine_chunks()
    images = pc.if_else(deletes, changes.column("before").combine_chunks(), changes.column("after").combine_chunks())
    image_type = changes.schema.field("after").type
    rows = pa.Table.from_struct_array(images) if len(images) else pa.schema(list(image_type)).empty_table()
    rows = rows.append_column(IS_DELETED, deletes)
    if not key_fields or rows.num_rows == 0:
        return rows
    order = "__hudi_feed_order"
    numbered = rows.append_column(order, pa.array(range(rows.num_rows), pa.int64()))
    last = numbered.group_by(list(key_fields), use_threads=False).aggregate([(order, "max")])
    kept = np.sort(last.column(f"{order}_max").to_numpy())  # the rows themselves, in feed order
    return rows.take(pa.array(kept))


def split_deletes(rows: pa.Table, key_fields: Sequence[str]) -> tuple[pa.Table, pa.Table]:
    """Rows marked `_hoodie_is_deleted` split off as deletes (their `key_fields`); the rest without
    the marker column."""
    marked = pc.fill_null(rows.column(IS_DELETED), False)
    kept = rows.filter(pc.invert(marked)).drop_columns([IS_DELETED])
    return kept, rows.filter(marked).select(list(key_fields))


def mirror_changes(changes: pa.Table, key_fields: Sequence[str]) -> tuple[pa.Table, pa.Table]:
    """A window's change feed as the rows to upsert and the keys to delete in the same commit, so
    the target mirrors the source (no delete-marker column joins the target)."""
    return split_deletes(cdc_mirror_rows(changes, key_fields), key_fields)
