"""Incremental queries: window bounds, options, cost proportional to the window, lost instants."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable, IncrementalRangeUnavailableError, metrics
from hudi_core.write.client import WriteResult

SCHEMA = pa.schema([("id", pa.int64()), ("city", pa.string()), ("ts", pa.int64()), ("fare", pa.float64())])
CITIES = [f"c{i:02d}" for i in range(12)]
NO_SMALL_FILES = {"hoodie.parquet.small.file.limit": "0"}


def _rows(ids: list[int], ts: int) -> pa.Table:
    return pa.table(
        {
            "id": ids,
            "city": [CITIES[i % len(CITIES)] for i in ids],
            "ts": [ts] * len(ids),
            "fare": [float(i) for i in ids],
        },
        schema=SCHEMA,
    )


def _table(path: Path, table_type: str = "COPY_ON_WRITE") -> tuple[HudiTable, list[WriteResult]]:
    """Three commits: ids 0-119, then updates of ids 0-5, then inserts 200-203."""
    table = HudiTable.create(str(path), SCHEMA, "incr", ["id"], ["city"], ["ts"], table_type)
    results = [
        table.bulk_insert(_rows(list(range(120)), 1)),
        table.upsert(_rows(list(range(6)), 2), NO_SMALL_FILES),
        table.insert(_rows([200, 201, 202, 203], 3), NO_SMALL_FILES),
    ]
    return table, results


def _ids(table: pa.Table) -> list[int]:
    return sorted(table.column("id").to_pylist())


def test_window_is_exclusive_at_start_and_inclusive_at_end(tmp_path: Path) -> None:
    table, (first, second, third) = _table(tmp_path / "t")
    assert _ids(table.read_incremental(first.completion_time)) == [0, 1, 2, 3, 4, 5, 200, 201, 202, 203]
    assert _ids(table.read_incremental(first.completion_time, second.completion_time)) == list(range(6))
    assert _ids(table.read_incremental(second.completion_time, third.completion_time)) == [200, 201, 202, 203]
    assert _ids(table.read_incremental(third.completion_time)) == []
    # Hudi 1.0.x's inclusive start.
    inclusive = table.read_incremental(second.completion_time, third.completion_time, inclusive_start=True)
    assert _ids(inclusive) == [0, 1, 2, 3, 4, 5, 200, 201, 202, 203]
    # "earliest" starts before the first commit; records show their latest version as of `end`.
    everything = table.read_incremental("earliest", second.completion_time)
    assert _ids(everything) == list(range(120))
    assert sorted(set(everything.column("ts").to_pylist())) == [1, 2]


def test_start_accepts_14_digit_instants(tmp_path: Path) -> None:
    table, (_, second, _) = _table(tmp_path / "t")
    # A 14-digit instant is the start of that second (milliseconds 000).
    seconds = second.completion_time[:14]
    assert table.read_incremental(seconds).equals(table.read_incremental(seconds + "000"))
    assert table.read_incremental("20000101000000").equals(table.read_incremental("earliest"))


def test_options_match_the_method(tmp_path: Path) -> None:
    table, (first, second, _) = _table(tmp_path / "t")
    options = {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.read.begin.instanttime": first.completion_time,
        "hoodie.datasource.read.end.instanttime": second.completion_time,
    }
    assert table.read(options=options).equals(table.read_incremental(first.completion_time, second.completion_time))
    with pytest.raises(HudiConfigError, match=r"begin\.instanttime"):
        table.read(options={"hoodie.datasource.query.type": "incremental"})


def test_commit_time_holds_the_requested_time_not_the_completion_time(tmp_path: Path) -> None:
    table, (first, second, _) = _table(tmp_path / "t")
    rows = table.read_incremental(first.completion_time, second.completion_time)
    assert set(rows.column("_hoodie_commit_time").to_pylist()) == {second.instant_time}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_only_file_slices_written_in_the_window_are_opened(table_type: str, tmp_path: Path) -> None:
    table, (_, second, third) = _table(tmp_path / "t", table_type)
    touched = {(s.partition_path, s.file_id) for s in third.write_stats}
    all_groups = {(s.partition_path, s.file_id) for s in table.file_slices()}
    assert len(touched) == 4 and len(all_groups) > 12
    with metrics.capture() as window:
        rows = table.read_incremental(second.completion_time)
    assert _ids(rows) == [200, 201, 202, 203]
    assert window.base_files_read + window.log_files_read == len(touched)
    assert window.partitions_listed == 0 and window.metadata_files_read > 0  # listed by the metadata table
    unlisted = HudiTable(table.base_uri, {"hoodie.metadata.enable": "false"})
    with metrics.capture() as from_storage:
        assert _ids(unlisted.read_incremental(second.completion_time)) == [200, 201, 202, 203]
    assert from_storage.partitions_listed == len({p for p, _ in touched})
    with metrics.capture() as snapshot:
        table.read()
    assert snapshot.base_files_read >= len(all_groups) > window.base_files_read


def _clean_older_slices(table: HudiTable) -> list[str]:
    """Removes every base file but the latest of its group, as the cleaner would; returns them."""
    base = Path(table.storage.base_path)
    latest = {s.base_file_path for s in table.file_slices()}
    removed = []
    for path in sorted(base.rglob("*.parquet")):
        relative = str(path.relative_to(base))
        if relative not in latest and not relative.startswith(".hoodie"):
            os.remove(path)
            removed.append(relative)
    return removed


def test_cleaned_instants_fail_or_fall_back_to_a_full_scan(tmp_path: Path) -> None:
    table, (first, second, _) = _table(tmp_path / "t")
    assert _clean_older_slices(table)
    with pytest.raises(IncrementalRangeUnavailableError, match=first.instant_time) as failure:
        table.read_incremental("earliest", first.completion_time)
    assert "hoodie.datasource.read.incr.fallback.fulltablescan.enable" in str(failure.value)
    # The fallback scans the latest snapshot for records the window's commits wrote last.
    fallback = HudiTable(table.base_uri, {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"})
    assert _ids(fallback.read_incremental("earliest", first.completion_time)) == list(range(6, 120))
    # Windows whose slices are intact still read without a scan.
    assert _ids(table.read_incremental(first.completion_time, second.completion_time)) == list(range(6))
    with pytest.raises(IncrementalRangeUnavailableError, match=first.instant_time):
        table.read_cdc(first.completion_time, second.completion_time)
