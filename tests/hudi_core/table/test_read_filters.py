"""Seeded random filters: `read(filters=F)` equals `read()` filtered row by row with pyarrow.compute.

The reference below is written against pyarrow.compute directly (SQL null semantics: a null value
satisfies no predicate), independently of hudi_core's own filter code. Tables cover every
operator and column type, hive-style and plain partition paths, and timestamp-keygen tables whose
partition paths do not spell the column value (path pruning must not apply there).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_core import HudiTable
from tests.corpus import as_multiset, normalize_rows

TABLES = [
    "sample_table/cow/v6_complexkeygen_hivestyle",
    "sample_table/cow/v8_simplekeygen_nonhivestyle",
    "sample_table/cow/v6_timebasedkeygen_nonhivestyle",
    "sample_table/cow/v9_timebasedkeygen_epochmillis",
    "sample_table/cow/v9_txns_simple_nometa",
    "sample_table/mor/avro/v9_txns_complex_meta",
]
OPS = ["=", "!=", "<", "<=", ">", ">=", "in", "not in"]


def _reference_mask(column: pa.ChunkedArray, op: str, value: Any) -> pa.ChunkedArray:
    if op == "in":
        return pc.is_in(column, value_set=pa.array(value, type=column.type))
    if op == "not in":
        return pc.and_kleene(
            pc.is_valid(column), pc.invert(pc.is_in(column, value_set=pa.array(value, type=column.type)))
        )
    scalar = pa.scalar(value, type=column.type)
    return {
        "=": pc.equal,
        "!=": pc.not_equal,
        "<": pc.less,
        "<=": pc.less_equal,
        ">": pc.greater,
        ">=": pc.greater_equal,
    }[op](column, scalar)


def _random_filter(rng: random.Random, table: pa.Table) -> tuple[str, str, Any]:
    candidates = [f.name for f in table.schema if not pa.types.is_nested(f.type)]
    name = rng.choice(candidates)
    values = [v for v in table.column(name).to_pylist() if v is not None]
    op = rng.choice(OPS)
    if not values:
        return (
            (name, op, ["x"] if op in ("in", "not in") else "x")
            if pa.types.is_string(table.schema.field(name).type)
            else (name, "!=", 0)
        )
    if op in ("in", "not in"):
        return name, op, rng.sample(values, k=min(len(values), rng.randint(1, 3)))
    return name, op, rng.choice(values)


@pytest.mark.parametrize("table_name", TABLES)
def test_read_filters_random_predicates_equal_pyarrow_reference(
    table_name: str, corpus_table: Callable[[str], Path]
) -> None:
    hudi_table = HudiTable(str(corpus_table(table_name)))
    full = hudi_table.read()
    rng = random.Random(f"filters:{table_name}")
    for _ in range(40):
        filters = [_random_filter(rng, full) for _ in range(rng.randint(1, 2))]
        try:
            mask = None
            for name, op, value in filters:
                step = _reference_mask(full.column(name), op, value)
                mask = step if mask is None else pc.and_kleene(mask, step)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            continue  # a value the column type cannot hold
        expected = full.filter(mask)
        result = hudi_table.read(filters=filters)
        assert as_multiset(normalize_rows(result, full.column_names)) == as_multiset(
            normalize_rows(expected, full.column_names)
        ), filters


def test_read_filters_partition_column_of_timestamp_keygen_not_pruned_by_path(
    corpus_table: Callable[[str], Path],
) -> None:
    """Partition paths like 2023/04/01/12 do not equal the column values; rows must still match."""
    table = HudiTable(str(corpus_table("sample_table/cow/v6_timebasedkeygen_nonhivestyle")))
    full = table.read()
    field = table.table_config.partition_fields[0]
    value = full.column(field)[0].as_py()
    result = table.read(filters=[(field, "=", value)])
    assert result.num_rows == pc.sum(pc.equal(full.column(field), value)).as_py() > 0


def test_read_filters_string_value_coerced_to_column_type(corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table("sample_table/cow/v6_complexkeygen_hivestyle")))
    assert (
        table.read(filters=[("byteField", "=", "10")]).num_rows == table.read(filters=[("byteField", "=", 10)]).num_rows
    )
    by_string = table.read(filters=[("dateField", ">=", "2023-04-02")])
    assert by_string.num_rows == table.read(filters=[("dateField", ">=", datetime.date(2023, 4, 2))]).num_rows > 0
