"""Replacing the Dagster partitions a run materializes: the default write of partitioned assets.

A re-run of a partition must leave exactly what the run produced in that partition, as
dagster-deltalake and dagster-iceberg do: rows the run no longer produces go, rows of other
partitions stay. Two ways, by how Dagster partitions meet the table's Hudi partitions:

* Whole Hudi partitions (the table is partitioned by the `partition_expr` columns, values kept as
  they are): `insert_overwrite` replaces the partitions the output holds, in one replacecommit; the
  run's partitions the output leaves empty are dropped by a `delete_partition` commit after it.
* Otherwise (a Hudi partition spans several Dagster partitions, e.g. a timestamp key generator by
  month): one upsert commit that also deletes the stored keys of the run's partitions the output
  no longer holds (`write_hudi(..., deletes=)`); it needs a record key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from hudi_core import HudiTable
from hudi_core.hudi_table import table_exists
from hudi_core.keygen import KeyGenerator
from hudi_core.schema.meta_fields import PARTITION_PATH
from hudi_dagster.config import WriteMode
from hudi_dagster.partitions import Filter


@dataclass(frozen=True)
class ReplacePlan:
    """How one run replaces its partitions.

    Attributes:
        mode: the write of the output (insert_overwrite or upsert); None: the output is empty and
            only `emptied` partitions are dropped.
        emptied: Hudi partition paths of the run holding stored rows and no output rows, dropped
            by `delete_partition` after the write.
        deletes: record key and partition columns of stored records the upsert deletes.
    """

    mode: WriteMode | None
    emptied: list[str] = field(default_factory=list)
    deletes: pa.Table | None = None


def maps_whole_partitions(uri: str, partition_columns: Sequence[str]) -> bool:
    """Each Hudi partition of the table at `uri` lies in one Dagster partition: the table is
    partitioned by exactly the `partition_expr` columns and its partition paths keep their values."""
    if not table_exists(uri):
        return True  # created partitioned by the partition_expr columns, nothing stored to replace
    keygen = KeyGenerator.from_table_config(HudiTable(uri).table_config)
    return (
        keygen.is_partitioned
        and set(keygen.partition_fields) == set(partition_columns)
        and keygen.timestamp_format is None
    )


def plan_replace(
    uri: str,
    whole: bool,
    run_filters: Sequence[list[Filter]],
    record_key: Sequence[str],
    output_partition_values: pa.Table,
    output_keys: pa.Table | None,
    produced: bool,
) -> ReplacePlan:
    """The write replacing the run's partitions.

    Args:
        run_filters: per Dagster partition of the run, the filters selecting its rows.
        output_partition_values: the distinct values of the table's partition columns in the output.
        output_keys: the output's record key and partition columns (for the upsert way; None when
            the partitions are whole).
        produced: the output holds rows.
    """
    if not table_exists(uri):
        return ReplacePlan(WriteMode.INSERT_OVERWRITE if produced else None)
    table = HudiTable(uri)
    if whole:
        keygen = KeyGenerator.from_table_config(table.table_config)
        written = set(keygen.partition_paths(output_partition_values).to_pylist()) if produced else set()
        stored = {
            path
            for filters in run_filters
            for path in table.read(columns=[PARTITION_PATH], filters=filters)
            .column(PARTITION_PATH)
            .unique()
            .to_pylist()
        }
        return ReplacePlan(WriteMode.INSERT_OVERWRITE if produced else None, sorted(stored - written))
    if not record_key:
        raise ValueError(
            "replacing Dagster partitions that share Hudi partitions needs a record key; "
            "partition the table by the partition_expr columns, or set write_mode"
        )
    located = list(dict.fromkeys([*record_key, *output_partition_values.column_names]))
    rows = pa.concat_tables([table.read(columns=located, filters=filters) for filters in run_filters]).combine_chunks()
    if output_keys is not None and output_keys.num_rows and rows.num_rows:
        rows = rows.filter(pc.invert(_in(rows, output_keys, located)))
    return ReplacePlan(WriteMode.UPSERT, deletes=rows)


def _in(rows: pa.Table, among: pa.Table, columns: Sequence[str]) -> pa.ChunkedArray | pa.Array:
    """Per row of `rows`: are its `columns` values a row of `among`?"""

    def joined(table: pa.Table) -> pa.ChunkedArray | pa.Array:
        parts = [pc.fill_null(pc.cast(table.column(c), pa.string()), "\x01") for c in columns]
        return parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, "\x00")

    return pc.is_in(joined(rows), value_set=pa.chunked_array([joined(among)]).combine_chunks())
