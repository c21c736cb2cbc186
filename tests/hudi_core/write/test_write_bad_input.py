"""Bad write input is rejected with the specific hudi_core error, before any instant is requested.

Every rejection leaves the table byte-identical: the tests snapshot every file under the table
(path, size, content hash) and every folder before and after the rejected call. Accepted
evolutions (type promotion, a new nullable column) are checked in our reader and in hudi-rs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import (
    DuplicateKeyError,
    HudiConfigError,
    HudiTable,
    InvalidKeyError,
    SchemaError,
    TableExistsError,
    UnsupportedFeatureError,
    UnsupportedTableVersionError,
    write_hudi,
)
from hudi_core.config.properties import format_properties, parse_properties
from hudi_core.schema.meta_fields import META_FIELD_SET
from tests import hudi_rs
from tests.model import TRIPS_SCHEMA, canonical, table_rows

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
FIRST = [
    {"id": "a", "ts": 1, "city": "sf", "fare": 1.0},
    {"id": "b", "ts": 1, "city": "nyc", "fare": 2.0},
]
HIVE_STYLE = {"hoodie.datasource.write.hive_style_partitioning": "true"}

Snapshot = dict[str, tuple[int, str] | None]


# ---- helpers ------------------------------------------------------------------------------------


def _snapshot(base: Path) -> Snapshot:
    """Every folder (None) and file (size, sha256) under `base`, by relative path."""
    result: Snapshot = {}
    for path in sorted(base.rglob("*")):
        relative = str(path.relative_to(base))
        if path.is_dir():
            result[relative] = None
        else:
            data = path.read_bytes()
            result[relative] = (len(data), hashlib.sha256(data).hexdigest())
    return result


def _rows(*changes: dict[str, Any], base_row: dict[str, Any] | None = None) -> pa.Table:
    """Rows of SCHEMA: each change applied to a default row."""
    row = base_row or {"id": "n", "ts": 2, "city": "sf", "fare": 9.0}
    return pa.Table.from_pylist([{**row, **change} for change in changes], schema=SCHEMA)


def _table(base: Path, record_key_fields: Sequence[str] = ("id",), table_type: str = "COPY_ON_WRITE") -> HudiTable:
    """A partitioned table (partition city, ordering ts) holding FIRST."""
    table = HudiTable.create(
        str(base), SCHEMA, "bad_input", list(record_key_fields), ["city"], ["ts"], table_type, HIVE_STYLE
    )
    table.upsert(pa.Table.from_pylist(FIRST, schema=SCHEMA))
    return table


def _assert_rejected(
    base: Path, write: Callable[[], object], error: type[Exception], match: str
) -> pytest.ExceptionInfo[Exception]:
    """`write` raises `error` matching `match` and leaves every byte under `base` as it was."""
    before = _snapshot(base)
    with pytest.raises(error, match=match) as caught:
        write()
    assert _snapshot(base) == before, "the rejected write changed the table"
    return caught


def _read_both(base: Path, columns: Sequence[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The table's rows in our reader and in hudi-rs, canonicalised."""
    ours = canonical(table_rows(HudiTable(str(base)).read(), list(columns)))
    theirs = canonical(table_rows(hudi_rs.snapshot(base), list(columns)))
    return ours, theirs


def _edit_properties(base: Path, **changes: str) -> None:
    path = base / ".hoodie" / "hoodie.properties"
    props = parse_properties(path.read_text())
    props.update(changes)
    path.write_text(format_properties(props, "edited by test"))


# ---- record keys --------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [None, ""], ids=["null", "empty"])
def test_upsert_null_or_empty_simple_key_raises_invalid_key_error(key: str | None, tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}, {"id": key})),
        InvalidKeyError,
        r"1 record\(s\) have a null or empty record key field 'id'",
    )


@pytest.mark.parametrize("key", [None, ""], ids=["null", "empty"])
def test_delete_null_or_empty_simple_key_raises_invalid_key_error(key: str | None, tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.delete(_rows({"id": key})),
        InvalidKeyError,
        r"null or empty record key field 'id'",
    )


@pytest.mark.parametrize(
    ("key", "city"), [(None, None), ("", None), (None, "")], ids=["nulls", "empty-null", "null-empty"]
)
def test_upsert_complex_key_all_fields_missing_raises_invalid_key_error(
    key: str | None, city: str | None, tmp_path: Path
) -> None:
    table = _table(tmp_path, record_key_fields=("id", "city"))
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}, {"id": key, "city": city})),
        InvalidKeyError,
        r"1 record\(s\) have every record key field \['id', 'city'\] null or empty",
    )


def test_upsert_complex_key_one_field_null_writes_null_marker(tmp_path: Path) -> None:
    """As Hudi's ComplexKeyGenerator: a key is invalid only when every part is null or empty."""
    table = _table(tmp_path, record_key_fields=("id", "city"))
    table.upsert(_rows({"id": None}))
    keys = table.read(columns=["_hoodie_record_key"]).column(0).to_pylist()
    assert "id:__null__,city:sf" in keys


# ---- missing and mistyped columns ---------------------------------------------------------------


def test_upsert_missing_record_key_column_raises_invalid_key(tmp_path: Path) -> None:
    table = _table(tmp_path)
    for write in (table.upsert, table.delete):
        _assert_rejected(
            tmp_path,
            lambda write=write: write(_rows({}).drop_columns(["id"])),
            InvalidKeyError,
            r"record key field\(s\) \['id'\] missing from the data",
        )


@pytest.mark.parametrize("column", ["city", "ts", "fare"], ids=["partition", "ordering", "data"])
def test_upsert_missing_column_raises_schema_error(column: str, tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}).drop_columns([column])),
        SchemaError,
        f"column '{column}' of the table is missing from the data",
    )


@pytest.mark.parametrize("column", ["city"], ids=["partition"])
def test_delete_missing_key_column_raises_schema_error(column: str, tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.delete(_rows({}).drop_columns([column])),
        SchemaError,
        rf"delete needs column\(s\) \['{column}'\]",
    )


def test_upsert_null_ordering_value_raises_schema_error(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}, {"id": "m", "ts": None})),
        SchemaError,
        r"ordering field 'ts' is null in 1 record\(s\)",
    )


@pytest.mark.parametrize(
    ("column", "values", "table_type"),
    [("ts", ["late"], "int64"), ("fare", ["9.5"], "double"), ("city", [1], "string")],
    ids=["string-into-int64", "string-into-double", "int-into-string"],
)
def test_upsert_incompatible_type_raises_schema_error(
    column: str, values: list[Any], table_type: str, tmp_path: Path
) -> None:
    table = _table(tmp_path)
    data = _rows({})
    data = data.set_column(data.schema.get_field_index(column), column, pa.array(values))
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(data),
        SchemaError,
        rf"column '{column}': the data's type \w+ is not compatible with the table's type {table_type}",
    )


# ---- accepted evolutions ------------------------------------------------------------------------


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_upsert_int32_into_int64_column_promotes(table_type: str, tmp_path: Path) -> None:
    table = _table(tmp_path, table_type=table_type)
    data = _rows({"id": "a", "ts": 5, "fare": 10.0}, {"id": "c"})
    data = data.set_column(1, "ts", pa.array([5, 2], pa.int32()))

    table.upsert(data)

    assert table.read().schema.field("ts").type == pa.int64()
    assert hudi_rs.snapshot(tmp_path).schema.field("ts").type == pa.int64()
    expected = canonical(
        [
            {"id": "a", "ts": 5, "city": "sf", "fare": 10.0},
            {"id": "b", "ts": 1, "city": "nyc", "fare": 2.0},
            {"id": "c", "ts": 2, "city": "sf", "fare": 9.0},
        ]
    )
    assert _read_both(tmp_path, COLUMNS) == (expected, expected)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_upsert_new_nullable_column_evolves_schema_old_rows_null(table_type: str, tmp_path: Path) -> None:
    table = _table(tmp_path, table_type=table_type)
    data = _rows({"id": "a", "ts": 5}, {"id": "c"}).append_column("tip", pa.array([0.5, None], pa.float64()))

    table.upsert(data)

    assert table.read().schema.field("tip").type == pa.float64()
    expected = canonical(
        [
            {"id": "a", "ts": 5, "tip": 0.5},
            {"id": "b", "ts": 1, "tip": None},
            {"id": "c", "ts": 2, "tip": None},
        ]
    )
    assert _read_both(tmp_path, ["id", "ts", "tip"]) == (expected, expected)


# ---- options ------------------------------------------------------------------------------------


def test_write_hudi_unknown_operation_raises_config_error(tmp_path: Path) -> None:
    _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: write_hudi(str(tmp_path), _rows({}), {"hoodie.datasource.write.operation": "merge"}),
        HudiConfigError,
        r"invalid value 'merge' for option hoodie\.datasource\.write\.operation: expected one of upsert",
    )


def test_write_hudi_unknown_operation_on_new_path_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "new"
    options = {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.operation": "merge",
    }
    with pytest.raises(HudiConfigError, match="invalid value 'merge'"):
        write_hudi(str(target), _rows({}), options)
    assert not target.exists()


def test_write_hudi_invalid_first_batch_creates_no_table(tmp_path: Path) -> None:
    target = tmp_path / "new"
    options = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id"}
    with pytest.raises(InvalidKeyError, match="null or empty record key field 'id'"):
        write_hudi(str(target), _rows({"id": None}), options)
    assert not target.exists(), f"left behind: {sorted(_snapshot(target))}"


def test_upsert_unknown_option_raises_config_error_naming_closest(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}), {"hoodie.datasource.write.recordkey.feild": "id"}),
        HudiConfigError,
        r"unknown option hoodie\.datasource\.write\.recordkey\.feild; "
        r"did you mean hoodie\.datasource\.write\.recordkey\.field\?",
    )


@pytest.mark.parametrize(
    ("key", "value", "persisted"),
    [
        ("hoodie.datasource.write.recordkey.field", "city", "id"),
        ("hoodie.datasource.write.precombine.field", "fare", "ts"),
        ("hoodie.datasource.write.table.type", "MERGE_ON_READ", "COPY_ON_WRITE"),
    ],
    ids=["record-key", "ordering", "table-type"],
)
def test_upsert_option_conflicting_with_table_raises_config_error(
    key: str, value: str, persisted: str, tmp_path: Path
) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({}), {key: value}),
        HudiConfigError,
        rf"option {key}={value} conflicts with the table's persisted value '{persisted}'",
    )


def test_upsert_bad_option_value_raises_config_error(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.insert(_rows({}), {"hoodie.datasource.insert.dup.policy": "reject"}),
        HudiConfigError,
        r"invalid value 'reject' for option hoodie\.datasource\.insert\.dup\.policy",
    )


# ---- insert duplicate policy --------------------------------------------------------------------

FAIL_ON_DUPLICATES = {"hoodie.datasource.insert.dup.policy": "fail"}


def test_insert_dup_policy_fail_existing_key_raises_duplicate_key_error(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.insert(_rows({"id": "new"}, {"id": "a"}), FAIL_ON_DUPLICATES),
        DuplicateKeyError,
        r"1 record\(s\) already exist in the table, e\.g\. key 'a'",
    )


def test_insert_dup_policy_fail_in_batch_duplicate_raises_duplicate_key_error(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: table.insert(_rows({"id": "z", "fare": 1.0}, {"id": "z", "fare": 2.0}), FAIL_ON_DUPLICATES),
        DuplicateKeyError,
        "the insert batch holds duplicate record keys",
    )


def test_insert_dup_policy_drop_existing_key_keeps_stored_record(tmp_path: Path) -> None:
    table = _table(tmp_path)

    result = table.insert(
        _rows({"id": "a", "ts": 9, "fare": 99.0}, {"id": "c"}), {"hoodie.datasource.insert.dup.policy": "drop"}
    )

    assert result.inserts == 1
    expected = canonical([*FIRST, {"id": "c", "ts": 2, "city": "sf", "fare": 9.0}])
    assert _read_both(tmp_path, COLUMNS) == (expected, expected)


# ---- unwritable tables --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "version", "options", "message"),
    [
        pytest.param(
            "sample_table/cow/v6_simplekeygen_nonhivestyle",
            "6",
            {"hoodie.write.auto.upgrade": "false"},
            r"is table version 6 and hoodie\.write\.auto\.upgrade=false; hudi_core does not write version 6",
            id="v6-cow-auto-upgrade-off",
        ),
        pytest.param(
            "sample_table/mor/parquet/v6_simplekeygen_nonhivestyle",
            "6",
            {"hoodie.write.auto.upgrade": "false"},
            r"is table version 6 and hoodie\.write\.auto\.upgrade=false; hudi_core does not write version 6",
            id="v6-mor-auto-upgrade-off",
        ),
        pytest.param(
            "sample_table/cow/v6_simplekeygen_nonhivestyle",
            "5",
            {},
            r"table version 5 is not supported \(readable versions: 6, 8, 9\)",
            id="v5",
        ),
    ],
)
def test_upsert_corpus_table_of_a_version_we_do_not_write_raises_unsupported_version(
    name: str, version: str, options: dict[str, str], message: str, corpus_copy: Callable[[str], Path]
) -> None:
    base = corpus_copy(name)
    table = HudiTable(str(base))
    stored = table.read()
    data = stored.drop_columns([c for c in stored.column_names if c in META_FIELD_SET]).slice(0, 1)
    if version != "6":
        _edit_properties(base, **{"hoodie.table.version": version})
    _assert_rejected(base, lambda: table.upsert(data, options), UnsupportedTableVersionError, message)


def test_upsert_table_with_a_secondary_index_raises_unsupported_feature(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _edit_properties(tmp_path, **{"hoodie.table.metadata.partitions": "files,secondary_index_rider"})
    _assert_rejected(
        tmp_path,
        lambda: table.upsert(_rows({})),
        UnsupportedFeatureError,
        r"keeps metadata-table partitions \['secondary_index_rider'\] in sync",
    )


# ---- unconvertible Arrow types ------------------------------------------------------------------


def _with_column(name: str, values: pa.Array) -> pa.Table:
    data = _rows({})
    index = data.schema.get_field_index(name)
    return data.set_column(index, name, values) if index >= 0 else data.append_column(name, values)


@pytest.mark.parametrize(
    ("column", "values", "match"),
    [
        ("ts", pa.array([2**63 + 5], pa.uint64()), "column 'ts': cannot convert uint64 to int64 losslessly"),
        ("big", pa.array([2**63 + 5], pa.uint64()), "column 'big': cannot convert uint64 to int64 losslessly"),
        ("nothing", pa.nulls(1), r"column 'nothing' has Arrow type null"),
        (
            "when",
            pa.array([1_000_000_001], pa.timestamp("ns")),
            r"column 'when': cannot convert timestamp\[ns\] to timestamp\[us\] losslessly",
        ),
    ],
    ids=["uint64-into-int64", "new-uint64", "null-type", "sub-microsecond-timestamp"],
)
def test_upsert_unconvertible_arrow_type_raises_schema_error(
    column: str, values: pa.Array, match: str, tmp_path: Path
) -> None:
    table = _table(tmp_path)
    _assert_rejected(tmp_path, lambda: table.upsert(_with_column(column, values)), SchemaError, match)


def test_upsert_whole_microsecond_ns_timestamp_converts(tmp_path: Path) -> None:
    table = _table(tmp_path)

    table.upsert(_with_column("when", pa.array([1_000_001_000], pa.timestamp("ns"))))

    when = table.read(filters=[("id", "=", "n")]).column("when")
    assert when.type == pa.timestamp("us")
    assert when.cast(pa.int64()).to_pylist() == [1_000_001]


def test_upsert_unsupported_data_object_raises_schema_error(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _assert_rejected(tmp_path, lambda: table.upsert({"id": "a"}), SchemaError, "cannot write dict")
    _assert_rejected(tmp_path, lambda: table.upsert([("a", 1)]), SchemaError, "cannot write list")


def test_upsert_list_of_dicts_is_written(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.upsert([{"id": "z", "ts": 5, "city": "sf", "fare": 1.5}])
    assert "z" in table.read(columns=["id"]).column(0).to_pylist()


# ---- creating -----------------------------------------------------------------------------------


def test_create_existing_table_raises_table_exists(tmp_path: Path) -> None:
    _table(tmp_path)
    _assert_rejected(
        tmp_path,
        lambda: HudiTable.create(str(tmp_path), SCHEMA, "again", ["id"], ["city"], ["ts"]),
        TableExistsError,
        "a Hudi table already exists at",
    )


@pytest.mark.parametrize(
    ("keys", "partitions", "ordering", "error", "match"),
    [
        (["nope"], ["city"], ["ts"], SchemaError, r"record key field\(s\) \['nope'\] are not columns of the schema"),
        (["id"], ["nope"], ["ts"], SchemaError, r"partition field\(s\) \['nope'\] are not columns of the schema"),
        (["id"], ["city"], ["nope"], SchemaError, r"ordering field\(s\) \['nope'\] are not columns of the schema"),
        (["id"], ["city"], ["ts", "fare"], HudiConfigError, r"at most one ordering field, got \['ts', 'fare'\]"),
    ],
    ids=["unknown-record-key", "unknown-partition", "unknown-ordering", "two-ordering-fields"],
)
def test_create_bad_definition_raises_and_creates_nothing(
    keys: list[str], partitions: list[str], ordering: list[str], error: type[Exception], match: str, tmp_path: Path
) -> None:
    target = tmp_path / "new"
    with pytest.raises(error, match=match):
        HudiTable.create(str(target), SCHEMA, "t", keys, partitions, ordering)
    assert not target.exists()
