"""A bad option value fails before anything is written: every write, service and creation path
validates options (ranges, closed sets, relations) before it requests an instant, so the table stays
byte-identical and no half-done write has to be rolled back."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.config import ConfigOption, NumberRange, OptionStatus, registered_options
from hudi_core.errors import HudiConfigError
from tests.files import file_tree

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string()), ("fare", pa.float64())])
ROWS = pa.table({"id": ["a", "b"], "ts": [1, 1], "city": ["sf", "la"], "fare": [1.0, 2.0]}, schema=SCHEMA)
CREATE_OPTIONS = {
    "hoodie.table.name": "bad_values",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
}

# Values that no declaration accepts: closed sets and options that contradict each other.
NAMED_CASES = [
    ({"hoodie.index.type": "HBASE_ISH"}, "hoodie.index.type"),
    ({"hoodie.bloom.index.filter.type": "DYNAMIC_V1"}, "hoodie.bloom.index.filter.type"),
    ({"hoodie.parquet.compression.codec": "lzma"}, "hoodie.parquet.compression.codec"),
    ({"hoodie.layout.optimize.strategy": "spiral"}, "hoodie.layout.optimize.strategy"),
    ({"hoodie.datasource.write.payload.class": "com.example.MyPayload"}, "hoodie.datasource.write.payload.class"),
    ({"hoodie.keep.min.commits": "30"}, "hoodie.keep.max.commits=30 must be greater than hoodie.keep.min.commits=30"),
    (
        {"hoodie.compact.inline": "true", "hoodie.compact.schedule.inline": "true"},
        "hoodie.compact.inline and hoodie.compact.schedule.inline",
    ),
]


def _below(spec: ConfigOption[Any]) -> str:
    """A raw value just outside the option's range."""
    value_range = spec.value_range
    assert isinstance(value_range, NumberRange)
    if value_range.low is not None:
        return str(value_range.low - 1 if value_range.number is int else value_range.low)
    assert value_range.high is not None
    return str(value_range.high + 1)


def _range_cases() -> list[tuple[dict[str, str], str]]:
    unique = {id(o): o for o in registered_options().values() if o.status is OptionStatus.IMPLEMENTED}
    ranged = sorted((o for o in unique.values() if o.value_range is not None), key=lambda o: o.key)
    cases = [({o.key: _below(o)}, rf"invalid value '{_below(o)}' for option {o.key}") for o in ranged]
    # An alias is named as the user spelt it (the example).
    cases.append(({"hoodie.cleaner.commits.retained": "-3"}, "option hoodie.cleaner.commits.retained: expected"))
    return cases


@pytest.fixture
def table(tmp_path: Path) -> HudiTable:
    path = str(tmp_path / "t")
    write_hudi(path, ROWS, {**CREATE_OPTIONS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    return HudiTable(path)


def test_every_bad_value_fails_a_write_before_its_instant(table: HudiTable, tmp_path: Path) -> None:
    base = tmp_path / "t"
    before = file_tree(base)
    cases = _range_cases() + NAMED_CASES
    assert len(cases) > 50
    missed = []
    for options, message in cases:
        try:
            table.upsert(ROWS, options)
        except HudiConfigError as e:
            if not re.search(message, str(e)):
                missed.append(f"{options}: wrong message {e}")
        else:
            missed.append(f"{options}: accepted")
        if file_tree(base) != before:
            missed.append(f"{options}: changed the table")
            before = file_tree(base)
    assert missed == []
    assert len(table.timeline.completed()) == 1 and not table.timeline.pending()


@pytest.mark.parametrize(
    "service",
    [
        lambda t, o: t.clean(o),
        lambda t, o: t.archive(o),
        lambda t, o: t.compact(options=o),
        lambda t, o: t.schedule_compaction(o),
        lambda t, o: t.log_compact(options=o),
        lambda t, o: t.cluster(options=o),
        lambda t, o: t.schedule_clustering(o),
        lambda t, o: t.savepoint(t.timeline.completed()[-1].requested_time, options=o),
        lambda t, o: t.build_metadata_index(["column_stats"], o),
        lambda t, o: HudiTable(t.base_uri, o).upsert(ROWS),
    ],
    ids=[
        "clean",
        "archive",
        "compact",
        "schedule-compaction",
        "log-compact",
        "cluster",
        "schedule-clustering",
        "savepoint",
        "metadata-index",
        "table-options",
    ],
)
def test_table_services_validate_before_their_instant(
    service: Callable[[HudiTable, dict[str, str]], object], table: HudiTable, tmp_path: Path
) -> None:
    before = file_tree(tmp_path / "t")
    for options, message in [
        ({"hoodie.cleaner.commits.retained": "-3"}, r"'-3' for option hoodie\.cleaner\.commits\.retained"),
        ({"hoodie.parquet.block.size": "0"}, r"'0' for option hoodie\.parquet\.block\.size"),
        ({"hoodie.keep.min.commits": "40"}, r"hoodie\.keep\.max\.commits=30 must be greater"),
    ]:
        with pytest.raises(HudiConfigError, match=message):
            service(table, options)
    assert file_tree(tmp_path / "t") == before


def test_creating_with_a_bad_value_creates_nothing(tmp_path: Path) -> None:
    for options, message in [
        ({"hoodie.parquet.page.size": "-1"}, r"'-1' for option hoodie\.parquet\.page\.size"),
        ({"hoodie.client.heartbeat.interval_in_ms": "-5"}, r"hoodie\.client\.heartbeat\.interval_in_ms"),
        ({"hoodie.keygen.timebased.timestamp.type": "EPOCH_DAYS"}, r"hoodie\.keygen\.timebased\.timestamp\.type"),
    ]:
        with pytest.raises(HudiConfigError, match=message):
            HudiTable.create(str(tmp_path / "new"), SCHEMA, "t", ["id"], ["city"], ["ts"], options=options)
        with pytest.raises(HudiConfigError, match=message):
            write_hudi(str(tmp_path / "first"), ROWS, {**CREATE_OPTIONS, **options})
    assert list(tmp_path.iterdir()) == []


def test_the_cleaner_takes_every_retention_its_ranges_allow(table: HudiTable) -> None:
    for _ in range(3):
        table.upsert(ROWS, {"hoodie.clean.automatic": "false"})
    for options in [
        {"hoodie.clean.policy": "KEEP_LATEST_BY_HOURS", "hoodie.clean.hours.retained": str(10**12)},
        {"hoodie.clean.policy": "KEEP_LATEST_BY_HOURS", "hoodie.clean.hours.retained": str(10**7)},
        {"hoodie.clean.commits.retained": str(2**63)},
        {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": str(2**63)},
    ]:
        assert table.clean(options) is None  # nothing is old enough to go
    assert table.compact() is not None
    table.clean({"hoodie.clean.commits.retained": "1", "hoodie.clean.fileversions.retained": "1"})
    table.clean({"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"})
    assert sorted(table.read(columns=["id"]).column("id").to_pylist()) == ["a", "b"]
