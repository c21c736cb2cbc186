"""Write into tables Spark wrote: upsert and delete through our API, then read with ours and hudi-rs.

For each version-8 corpus table (a private copy), the current snapshot seeds an independent
`TableModel`; an upsert (one update with a greater ordering value, one "late" update with a smaller
one that event-time ordering must ignore, a new key in an existing partition and one in a new
partition) and a delete of an existing key follow, with rows taken from the snapshot and modified, so
every column keeps its type. After each write: our snapshot and hudi-rs's equal the model, time travel
to the new commit equals the model's, hoodie.properties is unchanged, and the record key and partition
path of every row follow the table's key generator the way Spark's rows show it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.properties import parse_properties
from hudi_core.config.table import KeyGeneratorType, RecordMergeMode
from hudi_core.schema.meta_fields import without_meta_fields
from tests import hudi_rs
from tests.corpus import as_multiset, normalize_rows
from tests.model import TableModel

pytestmark = pytest.mark.conformance

KEY = "__hudi_key"  # the model's key column: the Hudi record key string
VIRTUAL_META_COLUMNS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path")


@dataclass(frozen=True)
class Case:
    name: str
    changed_field: str  # a data column (not key, partition or ordering) the updates modify
    new_keys: tuple[dict[str, Any], dict[str, Any]]  # key column values of the two inserted rows
    new_partition: dict[str, Any]  # partition column values of a partition the table lacks


CASES = [
    Case("sample_table/cow/v8_nonpartitioned", "intField", ({"id": 101}, {"id": 102}), {}),
    Case(
        "sample_table/cow/v8_complexkeygen_hivestyle",
        "intField",
        ({"id": 101, "name": "Erin"}, {"id": 102, "name": "Frank"}),
        {"byteField": 40, "shortField": 400},
    ),
    Case("sample_table/cow/v8_simplekeygen_nonhivestyle", "intField", ({"id": 101}, {"id": 102}), {"byteField": 40}),
    Case(
        "sample_table/cow/v8_simplekeygen_hivestyle_no_metafields",
        "intField",
        ({"id": 101}, {"id": 102}),
        {"byteField": 40},
    ),
    Case("quickstart_trips_table/mor/avro/v8_mor_boundary_windows", "fare", ({"uuid": "x"}, {"uuid": "y"}), {}),
]

# (test, table) -> reason: assertions that fail because of a product bug (xfail, strict).
KNOWN_BUGS: dict[tuple[str, str], str] = {}


def _cases(test: str) -> list[Any]:
    params = []
    for case in CASES:
        reason = KNOWN_BUGS.get((test, case.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(case, id=case.name.rsplit("/", 1)[-1], marks=marks))
    return params


# ---- the table's key generator, as Spark's rows show it -------------------------------------------


@dataclass(frozen=True)
class KeyGen:
    key_fields: list[str]
    partition_fields: list[str]
    complex_key: bool
    hive_style: bool

    def record_key(self, row: dict[str, Any]) -> str:
        if self.complex_key:
            return ",".join(f"{f}:{row[f]}" for f in self.key_fields)
        return str(row[self.key_fields[0]])

    def partition_path(self, row: dict[str, Any]) -> str:
        if self.hive_style:
            return "/".join(f"{f}={row[f]}" for f in self.partition_fields)
        return "/".join(str(row[f]) for f in self.partition_fields)


def _keygen(table: HudiTable) -> KeyGen:
    config = table.table_config
    return KeyGen(
        list(config.record_key_fields),
        list(config.partition_fields),
        config.key_generator_type is KeyGeneratorType.COMPLEX,
        config.hive_style_partitioning,
    )


def _properties_file(base: Path) -> bytes:
    return (base / ".hoodie" / "hoodie.properties").read_bytes()


# ---- the scenario ---------------------------------------------------------------------------------


@dataclass
class Step:
    kind: str
    instant: str
    rows: list[dict[str, Any]]  # the rows written (data columns)


@dataclass
class Run:
    case: Case
    path: Path
    schema: pa.Schema  # data columns
    keygen: KeyGen
    model: TableModel
    spark_rows: list[dict[str, Any]]  # the snapshot before our writes (with meta columns)
    properties_before: bytes
    steps: list[Step]


def _modified(row: dict[str, Any], field: str) -> dict[str, Any]:
    changed = copy.deepcopy(row)
    value = changed[field]
    changed[field] = value + 1 if isinstance(value, int) else value * 2 + 1
    return changed


def write_into(case: Case, path: Path) -> Run:
    """Upsert and delete into the Spark-written table at `path`, tracking the model."""
    table = HudiTable(str(path))
    config = table.table_config
    properties_before = _properties_file(path)
    keygen = _keygen(table)
    schema = without_meta_fields(table.schema)
    columns = schema.names
    snapshot = table.read()
    spark_rows = snapshot.to_pylist()
    ordering = config.ordering_fields[0] if config.record_merge_mode is RecordMergeMode.EVENT_TIME_ORDERING else None

    def with_key(row: dict[str, Any]) -> dict[str, Any]:
        return {**{c: row[c] for c in columns}, KEY: keygen.record_key(row)}

    model = TableModel(KEY, keygen.partition_path, ordering)
    latest = table.timeline.instants()[-1]
    model.upsert([with_key(r) for r in spark_rows], latest.requested_time, latest.completion_time)
    existing = sorted((with_key(r) for r in spark_rows), key=lambda r: r[KEY])
    steps: list[Step] = []

    def to_arrow(rows: list[dict[str, Any]]) -> pa.Table:
        return pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows], schema=schema)

    # Upsert: an update with a greater ordering value, a late update with a smaller one (ignored under
    # event-time ordering), a new key in an existing partition and a new key in a new partition.
    update = _modified(existing[0], case.changed_field)
    late = _modified(existing[1], case.changed_field)
    if ordering is not None:
        update[ordering] += 1
        late[ordering] -= 1
    fresh_here = {**copy.deepcopy(existing[2]), **case.new_keys[0]}
    fresh_there = {**copy.deepcopy(existing[2]), **case.new_keys[1], **case.new_partition}
    upserts = [with_key(r) for r in (update, late, fresh_here, fresh_there)]
    result = table.upsert(to_arrow(upserts))
    model.upsert(upserts, result.instant_time, result.completion_time)
    steps.append(Step("upsert", result.instant_time, upserts))

    # Delete an existing key (the stored row, so its ordering value equals the stored one).
    victim = next(r for r in model.current.values() if r[KEY] == existing[-1][KEY])
    victim = {k: v for k, v in victim.items() if k != "_commit"}
    result = table.delete(to_arrow([victim]))
    model.delete([victim], result.instant_time, result.completion_time)
    steps.append(Step("delete", result.instant_time, [victim]))
    return Run(case, path, schema, keygen, model, spark_rows, properties_before, steps)


@pytest.fixture
def run(request: pytest.FixtureRequest, corpus_copy: Callable[[str], Path]) -> Run:
    case: Case = request.param
    return write_into(case, corpus_copy(case.name))


def _expected(run: Run, rows: list[dict[str, Any]]) -> list[str]:
    return as_multiset(normalize_rows(pa.Table.from_pylist(rows, schema=run.schema)))


def _actual(run: Run, table: pa.Table) -> list[str]:
    return as_multiset(normalize_rows(table, run.schema.names))


# ---- tests ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("run", _cases("snapshot"), indirect=True)
def test_write_into_spark_table_snapshot_equals_model(run: Run) -> None:
    expected = _expected(run, run.model.snapshot(run.schema.names))
    assert _actual(run, HudiTable(str(run.path)).read()) == expected, "ours vs model"
    assert _actual(run, hudi_rs.snapshot(run.path)) == expected, "hudi-rs vs model"


@pytest.mark.parametrize("run", _cases("time_travel"), indirect=True)
def test_write_into_spark_table_time_travel_equals_model(run: Run) -> None:
    table = HudiTable(str(run.path))
    for step in run.steps:
        expected = _expected(run, run.model.as_of(step.instant, run.schema.names))
        assert _actual(run, table.read(as_of=step.instant)) == expected, f"ours as of {step.kind}"
        assert _actual(run, hudi_rs.as_of(run.path, step.instant)) == expected, f"hudi-rs as of {step.kind}"


@pytest.mark.parametrize("run", _cases("properties"), indirect=True)
def test_write_into_spark_table_properties_unchanged(run: Run) -> None:
    # Upserts and deletes change nothing in hoodie.properties but what a Spark writer with the
    # metadata table on (Hudi's default) changes too: the metadata table's `files` partition.
    before = parse_properties(run.properties_before.decode())
    after = parse_properties(_properties_file(run.path).decode())
    assert after.pop("hoodie.table.metadata.partitions") == "files"
    assert after == before


@pytest.mark.parametrize("run", _cases("meta_columns"), indirect=True)
def test_write_into_spark_table_meta_columns_follow_key_generator(run: Run) -> None:
    rows = HudiTable(str(run.path)).read().to_pylist()
    written = {step.instant for step in run.steps}
    if not HudiTable(str(run.path)).table_config.populate_meta_fields:
        # Virtual keys: Spark's rows and ours leave four of the five meta columns null.
        for source in (run.spark_rows, rows):
            assert all(r[c] is None for r in source for c in VIRTUAL_META_COLUMNS)
        return
    # Spark's rows show the formula; every row of the table, ours included, follows it.
    for source in (run.spark_rows, rows):
        for row in source:
            assert row["_hoodie_record_key"] == run.keygen.record_key(row)
            assert row["_hoodie_partition_path"] == run.keygen.partition_path(row)
    ours = [r for r in rows if r["_hoodie_commit_time"] in written]
    assert all(r["_hoodie_commit_seqno"].startswith(f"{r['_hoodie_commit_time']}_") for r in ours)
    assert {r["_hoodie_record_key"] for r in ours} == {
        r[KEY] for r in run.model.current.values() if r["_commit"] in written
    }


@pytest.mark.parametrize("run", _cases("schema"), indirect=True)
def test_write_into_spark_table_schema_unchanged(run: Run) -> None:
    """Rows shaped like Spark's keep the table schema: no column or type drift."""
    assert without_meta_fields(HudiTable(str(run.path)).schema).equals(run.schema)
