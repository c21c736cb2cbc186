"""Merge semantics of a file slice: base rows + log chunks, by record key."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from hudi_core.config.table import KeyGeneratorType, RecordMergeMode
from hudi_core.file_group.log_file.blocks import DeleteRecords
from hudi_core.keygen import RecordKeySpec
from hudi_core.merge.record_merger import LogChunk, MergeSpec, merge_slice

KEYS = RecordKeySpec(("id",), KeyGeneratorType.SIMPLE, from_meta_field=False, field_prefixed_single=False)


def _spec(
    mode: RecordMergeMode, order_type: pa.DataType | None = None, extra: list[pa.Field] | None = None
) -> MergeSpec:
    order_type = order_type or pa.int64()
    schema = pa.schema(
        [pa.field("id", pa.string()), pa.field("ts", order_type), pa.field("v", pa.string()), *(extra or [])]
    )
    return MergeSpec(mode, "ts", schema, KEYS)


def _rows(spec: MergeSpec, rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=spec.schema)


def _deletes(keys: list[str], values: list[Any], kinds: list[str | None]) -> LogChunk:
    return LogChunk(deletes=DeleteRecords(pa.array(keys), pa.array([""] * len(keys)), values, kinds))


def _result(table: pa.Table) -> dict[str, tuple[Any, Any]]:
    rows = table.to_pylist()
    assert len({r["id"] for r in rows}) == len(rows), "unexpected duplicate keys"
    return {r["id"]: (r["ts"], r["v"]) for r in rows}


def test_merge_slice_commit_time_latest_write_wins_even_with_smaller_ordering() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 10, "v": "base"}, {"id": "b", "ts": 10, "v": "base"}])
    log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 1, "v": "late"}, {"id": "c", "ts": 5, "v": "new"}]))
    assert _result(merge_slice(base, [log], spec)) == {"a": (1, "late"), "b": (10, "base"), "c": (5, "new")}


def test_merge_slice_event_time_late_record_loses_to_base_and_to_log() -> None:
    spec = _spec(RecordMergeMode.EVENT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 10, "v": "base"}, {"id": "b", "ts": 10, "v": "base"}])
    first = LogChunk(data=_rows(spec, [{"id": "a", "ts": 5, "v": "late"}, {"id": "b", "ts": 20, "v": "b20"}]))
    second = LogChunk(data=_rows(spec, [{"id": "b", "ts": 15, "v": "b15"}, {"id": "b", "ts": 20, "v": "b20-again"}]))
    result = _result(merge_slice(base, [first, second], spec))
    assert result == {"a": (10, "base"), "b": (20, "b20-again")}  # ties go to the later write


def test_merge_slice_event_time_delete_ordering_decides() -> None:
    spec = _spec(RecordMergeMode.EVENT_TIME_ORDERING)
    base = _rows(spec, [{"id": k, "ts": 10, "v": "base"} for k in "abcd"])
    deletes = _deletes(["a", "b", "c", "d"], [5, 10, 0, 3], ["LongWrapper", "LongWrapper", "IntWrapper", None])
    # a: delete older than the record -> kept; b: equal -> deleted; c: IntWrapper(0) -> deleted; d: no value -> deleted
    assert _result(merge_slice(base, [deletes], spec)) == {"a": (10, "base")}


def test_merge_slice_record_after_unconditional_delete_comes_back() -> None:
    spec = _spec(RecordMergeMode.EVENT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 10, "v": "base"}])
    chunks = [_deletes(["a"], [0], ["IntWrapper"]), LogChunk(data=_rows(spec, [{"id": "a", "ts": 12, "v": "again"}]))]
    assert _result(merge_slice(base, chunks, spec)) == {"a": (12, "again")}
    chunks = [LogChunk(data=_rows(spec, [{"id": "a", "ts": 12, "v": "upd"}])), _deletes(["a"], [0], ["IntWrapper"])]
    assert _result(merge_slice(base, chunks, spec)) == {}


def test_merge_slice_is_deleted_column_deletes() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING, extra=[pa.field("_hoodie_is_deleted", pa.bool_())])
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "x", "_hoodie_is_deleted": False}, {"id": "b", "ts": 1, "v": "y"}])
    log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 2, "v": "x", "_hoodie_is_deleted": True}]))
    assert _result(merge_slice(base, [log], spec)) == {"b": (1, "y")}


@pytest.mark.parametrize(
    ("order_type", "kind", "low", "high", "stored"),
    [
        (pa.int32(), "IntWrapper", 5, 15, 10),
        (pa.int64(), "LongWrapper", 5, 15, 10),
        (pa.float32(), "FloatWrapper", 0.5, 1.5, 1.0),
        (pa.float64(), "DoubleWrapper", 0.5, 1.5, 1.0),
        (pa.string(), "StringWrapper", "m", "z", "q"),
        (pa.binary(), "BytesWrapper", b"a", b"z", b"q"),
        (pa.bool_(), "BooleanWrapper", False, True, True),
        (pa.date32(), "DateWrapper", 19000, 20000, datetime.date(2023, 1, 1)),
        (
            pa.decimal128(10, 2),
            "DecimalWrapper",
            decimal.Decimal("1.00"),
            decimal.Decimal("9.00"),
            decimal.Decimal("5.00"),
        ),
        (
            pa.timestamp("us", tz="UTC"),
            "TimestampMicrosWrapper",
            1,
            2**52,
            datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC),
        ),
        (pa.time64("us"), "TimeMicrosWrapper", 1, 86_000_000_000, datetime.time(12, 0)),
    ],
)
def test_merge_slice_delete_wrapper_types_compare_with_stored_values(
    order_type: pa.DataType, kind: str, low: Any, high: Any, stored: Any
) -> None:
    spec = _spec(RecordMergeMode.EVENT_TIME_ORDERING, order_type)
    base = _rows(spec, [{"id": "keep", "ts": stored, "v": "x"}, {"id": "drop", "ts": stored, "v": "y"}])
    result = merge_slice(base, [_deletes(["keep", "drop"], [low, high], [kind, kind])], spec)
    assert set(_result(result)) == {"keep"}


def test_merge_slice_delete_of_other_type_wins_unconditionally() -> None:
    spec = _spec(RecordMergeMode.EVENT_TIME_ORDERING, pa.int64())
    base = _rows(spec, [{"id": "a", "ts": 100, "v": "x"}])
    assert _result(merge_slice(base, [_deletes(["a"], ["zz"], ["StringWrapper"])], spec)) == {}


def test_merge_slice_partial_update_keeps_other_columns() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "old"}, {"id": "b", "ts": 2, "v": "old"}])
    partial = LogChunk(data=pa.table({"id": ["a", "c"], "v": ["new", "only-v"]}), partial=True)
    assert _result(merge_slice(base, [partial], spec)) == {"a": (1, "new"), "b": (2, "old"), "c": (None, "only-v")}


def test_merge_slice_partial_then_full_then_partial_fold_in_order() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "old"}])
    chunks = [
        LogChunk(data=pa.table({"id": ["a"], "v": ["p1"]}), partial=True),
        LogChunk(data=_rows(spec, [{"id": "a", "ts": 5, "v": "full"}])),
        LogChunk(data=pa.table({"id": ["a"], "ts": pa.array([7], pa.int64())}), partial=True),
    ]
    assert _result(merge_slice(base, chunks, spec)) == {"a": (7, "full")}


def test_a_record_merged_by_key_meets_only_the_first_base_row_of_its_key() -> None:
    """Apache Hudi 1.x hands a key's log record to the first base row with that key; a later row
    with the same key (the base holds duplicates, e.g. after an insert) stays as it was."""
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(
        spec,
        [
            {"id": "a", "ts": 1, "v": "one"},
            {"id": "b", "ts": 1, "v": "b"},
            {"id": "a", "ts": 2, "v": "two"},
            {"id": "c", "ts": 1, "v": "c1"},
            {"id": "c", "ts": 1, "v": "c2"},
        ],
    )
    log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 3, "v": "upd"}]))
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [log], spec).to_pylist())
    assert rows == [("a", "two"), ("a", "upd"), ("b", "b"), ("c", "c1"), ("c", "c2")]
    deleted = merge_slice(base, [_deletes(["c"], [0], ["IntWrapper"])], spec)
    assert sorted((r["id"], r["v"]) for r in deleted.to_pylist()) == [
        ("a", "one"),
        ("a", "two"),
        ("b", "b"),
        ("c", "c2"),
    ]


def test_a_positional_record_meets_the_base_row_at_its_position() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(
        spec, [{"id": "a", "ts": 1, "v": "one"}, {"id": "b", "ts": 1, "v": "b"}, {"id": "a", "ts": 2, "v": "two"}]
    )
    second_a = LogChunk(data=_rows(spec, [{"id": "a", "ts": 3, "v": "upd"}]), positions=np.array([2]))
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [second_a], spec).to_pylist())
    assert rows == [("a", "one"), ("a", "upd"), ("b", "b")]
    both = LogChunk(
        data=_rows(spec, [{"id": "a", "ts": 3, "v": "x"}, {"id": "a", "ts": 3, "v": "y"}]), positions=np.array([0, 2])
    )
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [both], spec).to_pylist())
    assert rows == [("a", "x"), ("a", "y"), ("b", "b")]
    deleted_at_2 = _deletes(["a"], [0], ["IntWrapper"])
    deleted_at_2 = LogChunk(deletes=deleted_at_2.deletes, positions=np.array([2]))
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [both, deleted_at_2], spec).to_pylist())
    assert rows == [("a", "x"), ("b", "b")]


def test_a_block_without_positions_makes_the_whole_slice_merge_by_key() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(
        spec, [{"id": "a", "ts": 1, "v": "one"}, {"id": "b", "ts": 1, "v": "b"}, {"id": "a", "ts": 2, "v": "two"}]
    )
    both = LogChunk(
        data=_rows(spec, [{"id": "a", "ts": 3, "v": "x"}, {"id": "a", "ts": 3, "v": "y"}]), positions=np.array([0, 2])
    )
    by_key = _deletes(["b"], [0], ["IntWrapper"])
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [both, by_key], spec).to_pylist())
    assert rows == [("a", "two"), ("a", "y")]


def test_positions_are_trusted_and_only_positions_outside_the_base_fall_back_to_keys() -> None:
    # Apache Hudi's position-based record buffer merges a record with the row at its position
    # without comparing keys; a block naming a row the base does not have merges by key.
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "one"}, {"id": "b", "ts": 1, "v": "b"}])
    trusted = LogChunk(data=_rows(spec, [{"id": "a", "ts": 3, "v": "upd"}]), positions=np.array([1]))
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [trusted], spec).to_pylist())
    assert rows == [("a", "one"), ("a", "upd")]
    for positions in ([7], [-1]):
        log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 3, "v": "upd"}]), positions=np.array(positions))
        rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [log], spec).to_pylist())
        assert rows == [("a", "upd"), ("b", "b")], positions


def test_merge_slice_promotes_log_types_to_table_schema() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING, extra=[pa.field("d", pa.float64())])
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "x", "d": 1.5}])
    log = LogChunk(
        data=pa.table({"id": ["a"], "ts": pa.array([2], pa.int32()), "v": ["y"], "d": pa.array([2], pa.int32())})
    )
    result = merge_slice(base, [log], spec)
    assert result.schema == spec.schema
    assert result.to_pylist() == [{"id": "a", "ts": 2, "v": "y", "d": 2.0}]


def test_merge_slice_log_only_slice() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    chunks = [
        LogChunk(data=_rows(spec, [{"id": "a", "ts": 1, "v": "x"}, {"id": "b", "ts": 1, "v": "y"}])),
        _deletes(["b"], [0], ["IntWrapper"]),
    ]
    assert _result(merge_slice(None, chunks, spec)) == {"a": (1, "x")}


def test_ignoring_defaults_a_winning_record_keeps_the_values_its_nulls_replace() -> None:
    spec = dataclasses.replace(
        _spec(RecordMergeMode.EVENT_TIME_ORDERING, extra=[pa.field("d", pa.float64())]), ignore_defaults=True
    )
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "A", "d": 1.0}, {"id": "b", "ts": 9, "v": "B", "d": 2.0}])
    first = LogChunk(
        data=_rows(spec, [{"id": "a", "ts": 2, "v": None, "d": 5.0}, {"id": "b", "ts": 3, "v": "late", "d": None}])
    )
    second = LogChunk(
        data=_rows(spec, [{"id": "a", "ts": 3, "v": "AA", "d": None}, {"id": "c", "ts": 1, "v": None, "d": 1.0}])
    )
    rows = sorted((r["id"], r["ts"], r["v"], r["d"]) for r in merge_slice(base, [first, second], spec).to_pylist())
    assert rows == [("a", 3, "AA", 5.0), ("b", 9, "B", 2.0), ("c", 1, None, 1.0)]


def test_a_log_record_carrying_the_delete_marker_is_a_delete() -> None:
    spec = dataclasses.replace(_spec(RecordMergeMode.COMMIT_TIME_ORDERING), delete_field="v", delete_marker="D")
    base = _rows(spec, [{"id": "a", "ts": 1, "v": "A"}, {"id": "b", "ts": 1, "v": "B"}])
    log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 2, "v": "D"}, {"id": "b", "ts": 2, "v": "U"}]))
    assert _result(merge_slice(base, [log], spec)) == {"b": (2, "U")}
