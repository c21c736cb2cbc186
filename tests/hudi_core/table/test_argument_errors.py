"""Bad arguments of HudiTable calls are HudiErrors naming the argument or option and the value:
instant times, create() arguments, and options that contradict what the call itself decides."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.errors import HudiConfigError, HudiError, SchemaError, TimelineError
from hudi_core.timeline.instant import format_instant_time, normalize_instant_time
from tests.files import file_tree

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string()), ("fare", pa.float64())])
ROWS = pa.table({"id": ["a", "b"], "ts": [1, 1], "city": ["sf", "la"], "fare": [1.0, 2.0]}, schema=SCHEMA)
FORMS = r"expected yyyyMMddHHmmssSSS, yyyyMMddHHmmss"


@pytest.fixture
def table(tmp_path: Path) -> HudiTable:
    created = HudiTable.create(str(tmp_path / "t"), SCHEMA, "trips", ["id"], ["city"], ["ts"], "MERGE_ON_READ")
    created.upsert(ROWS)
    return created


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("2025-13-45", "month 13 is not in 1..12"),
        ("99999999999999999", "month 99 is not in 1..12"),
        ("20250230000000", "day 30 is not in 1..28"),
        ("2025-01-01 24:00:00", "hour 24 is not in 0..23"),
        ("20250101006000000", "minute 60 is not in 0..59"),
        ("", FORMS),
        ("  ", FORMS),
        ("yesterday", FORMS),
        ("2025-1-1", FORMS),
        ("202501011200", FORMS),
    ],
)
def test_malformed_instant_times_name_the_argument_and_value(given: str, reason: str) -> None:
    with pytest.raises(TimelineError, match=rf"^invalid instant time '{given}' for as_of: {reason}"):
        normalize_instant_time(given, "as_of")


def test_instant_time_forms_keep_their_digits() -> None:
    assert normalize_instant_time("00010101000000") == "00010101000000000"
    assert normalize_instant_time("2024-02-29 23:59:59.999") == "20240229235959999"
    assert normalize_instant_time("00000000000000000") == "0" * 17
    # Formatting pads the year too (the floor of a long cleaning retention reaches back that far).
    assert format_instant_time(datetime(884, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)) == "08840102030405006"


def test_reads_name_the_bad_instant_argument_or_option(table: HudiTable) -> None:
    with pytest.raises(TimelineError, match=r"'2025-13-45' for as_of: month 13"):
        table.read(as_of="2025-13-45")
    with pytest.raises(TimelineError, match=r"'2025-13-45' for as_of: month 13"):
        table.file_slices(as_of="2025-13-45")
    with pytest.raises(TimelineError, match=r"'99999999999999999' for hoodie\.datasource\.read\.as\.of\.instant"):
        table.read(options={"hoodie.datasource.read.as.of.instant": "99999999999999999"})
    incremental = {"hoodie.datasource.query.type": "incremental"}
    begin = "hoodie.datasource.read.begin.instanttime"
    with pytest.raises(TimelineError, match=rf"'20251301000000' for {begin}: month 13"):
        table.read(options={**incremental, begin: "20251301000000"})
    end = "hoodie.datasource.read.end.instanttime"
    with pytest.raises(TimelineError, match=rf"'x' for {end}"):
        table.read(options={**incremental, begin: "earliest", end: "x"})
    cdc = {**incremental, "hoodie.datasource.query.incremental.format": "cdc"}
    with pytest.raises(TimelineError, match=rf"'x' for {begin}"):
        table.read(options={**cdc, begin: "x"})
    with pytest.raises(TimelineError, match=r"'x' for start"):
        table.read_incremental("x")
    with pytest.raises(TimelineError, match=r"'2025-13-45' for instant"):
        table.rollback("2025-13-45")


def test_create_names_the_bad_argument(tmp_path: Path) -> None:
    target = str(tmp_path / "new")
    cases: list[tuple[dict[str, object], type[HudiError], str]] = [
        (
            {"table_type": "FOO"},
            HudiConfigError,
            r"invalid value 'FOO' for option hoodie\.table\.type: expected one of",
        ),
        ({"table_type": None}, HudiConfigError, r"hoodie\.table\.type must be a string"),
        ({"table_name": "bad name"}, HudiConfigError, r"invalid table name 'bad name' \(hoodie\.table\.name\)"),
        ({"table_name": 7}, HudiConfigError, r"invalid table name 7"),
        ({"schema": {"id": "string"}}, SchemaError, r"must be a pyarrow\.Schema, got dict"),
        ({"partition_fields": ["city:hourly"]}, HudiConfigError, r"\['HOURLY'\] in hoodie\.table\.partition\.fields"),
        (
            {"record_key_fields": ["nope"]},
            SchemaError,
            r"record key field\(s\) \['nope'\] are not columns .*hoodie\.table\.recordkey\.fields",
        ),
        (
            {"options": {"hoodie.datasource.write.keygenerator.type": "FOO"}},
            HudiConfigError,
            r"invalid value 'FOO' for option hoodie\.datasource\.write\.keygenerator\.type",
        ),
        (
            {"options": {"hoodie.datasource.write.keygenerator.class": "com.example.Keys"}},
            HudiConfigError,
            r"option hoodie\.datasource\.write\.keygenerator\.class: key generator class com\.example\.Keys",
        ),
        (
            {"options": {"hoodie.write.record.merge.mode": "NEWEST"}},
            HudiConfigError,
            r"invalid value 'NEWEST' for option hoodie\.write\.record\.merge\.mode",
        ),
        (
            {"options": {"hoodie.write.table.version": "6"}},
            HudiConfigError,
            r"hoodie\.write\.table\.version: new tables",
        ),
        ({"options": {"hoodie.table.version": "6"}}, HudiConfigError, r"hoodie\.table\.version=6 contradicts .* \(8\)"),
        ({"options": {"hoodie.table.name": "other"}}, HudiConfigError, r"hoodie\.table\.name=other contradicts .*"),
        (
            {"options": {"hoodie.table.type": "MERGE_ON_READ"}},
            HudiConfigError,
            r"hoodie\.table\.type=MERGE_ON_READ contradicts the table being created \(COPY_ON_WRITE\)",
        ),
        (
            {"options": {"hoodie.datasource.write.table.type": "mor"}},
            HudiConfigError,
            r"hoodie\.datasource\.write\.table\.type=mor contradicts",
        ),
    ]
    for change, error, message in cases:
        arguments: dict[str, object] = {
            "path": target,
            "schema": SCHEMA,
            "table_name": "trips",
            "record_key_fields": ["id"],
            "partition_fields": ["city"],
            "ordering_fields": ["ts"],
            **change,
        }
        with pytest.raises(error, match=message):
            HudiTable.create(**arguments)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_create_takes_field_lists_as_comma_separated_text(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "trips", "id", "city", "ts", "mor")  # type: ignore[arg-type]
    config = table.table_config
    assert (config.record_key_fields, config.partition_fields, config.ordering_fields) == (["id"], ["city"], ["ts"])


def test_an_option_contradicting_the_call_is_refused(table: HudiTable, tmp_path: Path) -> None:
    before = file_tree(tmp_path / "t")
    operation = "hoodie.datasource.write.operation"
    with pytest.raises(
        HudiConfigError, match=rf"option {operation}=insert contradicts the operation called \(upsert\)"
    ):
        table.upsert(ROWS, {operation: "insert"})
    with pytest.raises(HudiConfigError, match=r"=bulk_insert contradicts the operation called \(delete\)"):
        table.delete(ROWS, {operation: "bulk_insert"})
    with pytest.raises(HudiConfigError, match=r"=upsert contradicts the operation called \(delete_partition\)"):
        table.delete_partitions(["sf"], {operation: "upsert"})
    with pytest.raises(HudiConfigError, match=r"=insert contradicts the operation called \(upsert\)"):
        HudiTable(table.base_uri, {operation: "insert"}).upsert(ROWS)
    with pytest.raises(HudiConfigError, match=r"hoodie\.table\.name=other contradicts the name of the table written"):
        table.upsert(ROWS, {"hoodie.table.name": "other"})
    with pytest.raises(HudiConfigError, match=r"hoodie\.table\.type=COPY_ON_WRITE contradicts the type"):
        table.upsert(ROWS, {"hoodie.table.type": "COPY_ON_WRITE"})
    with pytest.raises(HudiConfigError, match=r"hoodie\.table\.name=other contradicts the name"):
        write_hudi(table.base_uri, ROWS, {"hoodie.table.name": "other"})
    assert file_tree(tmp_path / "t") == before
    # The same values as the call are fine (Spark's resolver compares table names case-insensitively).
    table.upsert(ROWS, {operation: "UPSERT", "hoodie.table.name": "Trips", "hoodie.table.type": "MERGE_ON_READ"})
    write_hudi(table.base_uri, ROWS, {"hoodie.table.name": "trips", operation: "insert"})
    assert len(table.timeline.completed_data_instants()) == 3


def test_the_handle_create_returns_keeps_its_writer_options(tmp_path: Path) -> None:
    created = HudiTable.create(
        str(tmp_path / "t"),
        SCHEMA,
        "trips",
        ["id"],
        ["city"],
        ["ts"],
        options={"hoodie.parquet.compression.codec": "snappy"},
    )
    created.upsert(ROWS)
    base_files = sorted((tmp_path / "t").rglob("*.parquet"))
    assert base_files
    codecs = {pq.ParquetFile(f).metadata.row_group(0).column(0).compression for f in base_files}
    assert codecs == {"SNAPPY"}


def test_create_with_a_bad_writer_option_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(HudiConfigError, match=r"hoodie\.parquet\.page\.size"):
        HudiTable.create(str(tmp_path / "t"), SCHEMA, "trips", ["id"], options={"hoodie.parquet.page.size": "-1"})
    assert not (tmp_path / "t").exists()
