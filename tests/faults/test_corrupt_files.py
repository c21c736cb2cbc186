"""Corrupt files on disk: each gives a specific error naming the file or key, or a skip exactly where
Hudi skips (a torn log block), which is logged, counted and reported by validation: nothing is
dropped silently, and a write that meets the damage leaves the table as it was.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import FileFormatError, HudiConfigError, HudiTable, TableNotFoundError, metrics
from tests import hudi_rs
from tests.invariants import assert_healthy
from tests.model import canonical, table_rows

SCHEMA = pa.schema([("id", pa.string()), ("v", pa.int64()), ("p", pa.string())])
COLUMNS = SCHEMA.names
OPTIONS = {"hoodie.parquet.small.file.limit": "0"}


def _rows(ids: list[int], v: int) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "v": [v] * len(ids), "p": ["a"] * len(ids)}, schema=SCHEMA)


def _table(base: Path, table_type: str) -> HudiTable:
    table = HudiTable.create(str(base), SCHEMA, "corrupt", ["id"], ["p"], None, table_type, OPTIONS)
    table.insert(_rows(list(range(10)), 0), OPTIONS)
    table.upsert(_rows([1, 2], 7), OPTIONS)
    return table


def _content(base: Path) -> list[tuple[object, ...]]:
    return canonical(table_rows(HudiTable(str(base)).read(), COLUMNS))


def _completed(base: Path) -> list[str]:
    return [i.requested_time for i in HudiTable(str(base)).timeline.completed_data_instants()]


def _assert_refused_and_unchanged(base: Path, error: type[Exception], match: str) -> None:
    """A write meeting the damage fails with `error` and commits nothing (a failed write is rolled back)."""
    before = _completed(base)
    with pytest.raises(error, match=match):
        HudiTable(str(base)).upsert(_rows([1, 3], 9), OPTIONS)
    assert _completed(base) == before, "a write committed over the damage"
    assert not HudiTable(str(base)).timeline.pending()


def test_torn_log_block_is_skipped_as_hudi_skips_it_logged_counted_and_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = tmp_path / "t"
    _table(base, "MERGE_ON_READ")
    (log,) = (base / "a").glob(".*.log.*")
    log.write_bytes(log.read_bytes()[:-20])  # the block's tail (and its length trailer) is lost

    with caplog.at_level(logging.WARNING, logger="hudi_core"), metrics.capture() as read:
        rows = _content(base)
    # The torn block is skipped whole, as Hudi's log reader skips a corrupt block: the update is lost.
    assert rows == canonical(table_rows(_rows(list(range(10)), 0), COLUMNS))
    assert canonical(table_rows(hudi_rs.snapshot(base), COLUMNS)) == rows, "hudi-rs skips it too"
    assert read.corrupt_blocks_skipped == 1
    assert f"skipping corrupt log block in a/{log.name} at offset 0" in caplog.text
    # Validation names the damaged file: the metadata table recorded its committed size.
    validation = HudiTable(str(base)).validate_metadata()
    assert list(validation.size_mismatches) == [f"a/{log.name}"]

    table = HudiTable(str(base))  # the next writer is not blocked: the torn block stays skipped
    table.upsert(_rows([3], 8), OPTIONS)
    values = dict(zip(*table.read(columns=["id", "v"]).to_pydict().values(), strict=True))
    assert values["k3"] == 8 and values["k1"] == 0


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_truncated_parquet_base_file_raises_naming_it_and_a_write_leaves_the_table(
    table_type: str, tmp_path: Path
) -> None:
    base = tmp_path / "t"
    _table(base, table_type)
    expected = _content(base)
    (newest,) = sorted((base / "a").glob("*.parquet"), key=lambda p: p.name)[-1:]
    data = newest.read_bytes()
    newest.write_bytes(data[: len(data) // 2])

    with pytest.raises(FileFormatError, match=rf"{newest.name}: not a readable Parquet file"):
        HudiTable(str(base)).read()
    _assert_refused_and_unchanged(base, FileFormatError, newest.name)

    newest.write_bytes(data)  # the operator restores the file: nothing was lost
    assert _content(base) == expected
    assert_healthy(base)


@pytest.mark.parametrize(
    "content", [b"garbage{{{", b"\x00" * 7, b"Obj\x01\x02\x03"], ids=["text", "zeros", "avro-head"]
)
def test_garbage_completed_instant_file_raises_naming_it(content: bytes, tmp_path: Path) -> None:
    base = tmp_path / "t"
    _table(base, "MERGE_ON_READ")
    instant = sorted((base / ".hoodie" / "timeline").glob("*_*.deltacommit"))[-1]
    original = instant.read_bytes()
    instant.write_bytes(content)

    with pytest.raises(FileFormatError, match=instant.name):
        HudiTable(str(base)).read()
    before = sorted(p.name for p in (base / ".hoodie" / "timeline").iterdir())
    with pytest.raises(FileFormatError, match=instant.name):
        HudiTable(str(base)).upsert(_rows([1], 9), OPTIONS)
    assert sorted(p.name for p in (base / ".hoodie" / "timeline").iterdir()) == before, "the timeline changed"

    instant.write_bytes(original)
    assert_healthy(base)


@pytest.mark.parametrize("key", ["hoodie.table.name", "hoodie.table.type", "hoodie.table.version"])
def test_missing_required_property_raises_naming_the_key(key: str, tmp_path: Path) -> None:
    base = tmp_path / "t"
    _table(base, "COPY_ON_WRITE")
    properties = base / ".hoodie" / "hoodie.properties"
    lines = properties.read_text().splitlines()
    properties.write_text("\n".join(line for line in lines if not line.startswith(f"{key}=")) + "\n")

    for action in (lambda: HudiTable(str(base)).read(), lambda: HudiTable(str(base)).upsert(_rows([1], 9))):
        with pytest.raises(HudiConfigError, match=rf"required option {key} is missing from .*hoodie.properties"):
            action()


@pytest.mark.parametrize(
    ("key", "match"),
    [
        ("hoodie.table.recordkey.fields", "declares no record key field"),
        ("hoodie.table.partition.fields", r"declares no partition fields .* has 1 partition\(s\), e.g. 'a'"),
    ],
)
def test_missing_key_property_reads_but_refuses_writes_that_would_duplicate_keys(
    key: str, match: str, tmp_path: Path
) -> None:
    base = tmp_path / "t"
    _table(base, "MERGE_ON_READ")
    expected = _content(base)
    properties = base / ".hoodie" / "hoodie.properties"
    original = properties.read_text()
    properties.write_text("\n".join(line for line in original.splitlines() if not line.startswith(f"{key}=")) + "\n")

    assert _content(base) == expected  # stored keys and partition paths are in the meta columns
    _assert_refused_and_unchanged(base, HudiConfigError, match)

    properties.write_text(original)
    assert _content(base) == expected
    assert_healthy(base)


def test_missing_properties_file_is_not_a_table(tmp_path: Path) -> None:
    base = tmp_path / "t"
    _table(base, "COPY_ON_WRITE")
    (base / ".hoodie" / "hoodie.properties").unlink()
    with pytest.raises(TableNotFoundError, match=r"hoodie\.properties does not exist"):
        HudiTable(str(base)).read()
