"""Merge semantics of a file slice: base rows + log chunks, by record key."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

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


def test_merge_slice_duplicate_base_keys_each_meet_the_log_winner() -> None:
    spec = _spec(RecordMergeMode.COMMIT_TIME_ORDERING)
    base = _rows(
        spec, [{"id": "a", "ts": 1, "v": "one"}, {"id": "a", "ts": 2, "v": "two"}, {"id": "b", "ts": 1, "v": "b"}]
    )
    log = LogChunk(data=_rows(spec, [{"id": "a", "ts": 3, "v": "upd"}]))
    rows = sorted((r["id"], r["v"]) for r in merge_slice(base, [log], spec).to_pylist())
    assert rows == [("a", "upd"), ("a", "upd"), ("b", "b")]


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
