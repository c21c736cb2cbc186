"""Bad tables and bad requests raise the specific hudi_core error, and a read never writes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_core import (
    FileFormatError,
    FilterError,
    HudiConfigError,
    HudiTable,
    InstantNotFoundError,
    SchemaError,
    TableNotFoundError,
    TimelineError,
    UnsupportedFeatureError,
    UnsupportedTableVersionError,
)
from hudi_core.config.properties import format_properties, parse_properties

COW = "sample_table/cow/v8_simplekeygen_nonhivestyle"


def _edit_properties(base: Path, **changes: str | None) -> None:
    path = base / ".hoodie" / "hoodie.properties"
    props = parse_properties(path.read_text())
    for name, value in changes.items():
        key = name.replace("__", ".")
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value
    path.write_text(format_properties(props, "edited by test"))


def test_open_missing_path_raises_table_not_found(tmp_path: Path) -> None:
    with pytest.raises(TableNotFoundError, match="does not exist"):
        HudiTable(str(tmp_path / "nowhere"))


def test_open_plain_folder_raises_table_not_found(tmp_path: Path) -> None:
    (tmp_path / "data.parquet").write_bytes(b"PAR1")
    with pytest.raises(TableNotFoundError, match=r"hoodie\.properties does not exist"):
        HudiTable(str(tmp_path))


@pytest.mark.parametrize("key", ["hoodie.table.name", "hoodie.table.type", "hoodie.table.version"])
def test_open_missing_required_property_raises_config_error(key: str, corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    _edit_properties(base, **{key.replace(".", "__"): None})
    with pytest.raises(HudiConfigError, match=f"required option {key} is missing"):
        HudiTable(str(base))


@pytest.mark.parametrize("version", ["5", "7", "10"])
def test_open_unsupported_version_raises(version: str, corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    _edit_properties(base, hoodie__table__version=version)
    with pytest.raises(UnsupportedTableVersionError, match=f"table version {version} is not supported"):
        HudiTable(str(base))


def test_open_layout_mismatch_raises(corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    _edit_properties(base, hoodie__timeline__layout__version="1")
    with pytest.raises(UnsupportedTableVersionError, match="needs timeline layout 2"):
        HudiTable(str(base))


def test_open_lance_base_files_unsupported(corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    _edit_properties(base, hoodie__table__base__file__format="LANCE")
    with pytest.raises(UnsupportedFeatureError, match="LANCE base files"):
        HudiTable(str(base))


def test_open_wrong_checksum_raises(corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    _edit_properties(base, hoodie__table__checksum="12345")
    with pytest.raises(HudiConfigError, match="checksum"):
        HudiTable(str(base))


def test_read_unreadable_instant_raises_file_format_error(corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy(COW)
    completed = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[-1]
    completed.write_bytes(b"Obj\x01garbage that is not avro")
    with pytest.raises(FileFormatError, match=completed.name):
        HudiTable(str(base)).read()


def test_read_unknown_column_raises_schema_error(corpus_table: Callable[[str], Path]) -> None:
    with pytest.raises(SchemaError, match=r"unknown column.*'nope'"):
        HudiTable(str(corpus_table(COW))).read(columns=["id", "nope"])


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ([("id", "~", 1)], "unknown filter operator"),
        ([("nope", "=", 1)], "unknown column 'nope'"),
        ([("id", "in", 1)], "needs a list"),
        ([("id", "=", "not a number")], "does not fit column"),
        ([("arrayField", "=", 1)], "nested column"),
        (["id = 1"], "triple"),
    ],
)
def test_read_bad_filter_raises_filter_error(
    filters: list[object], message: str, corpus_table: Callable[[str], Path]
) -> None:
    with pytest.raises(FilterError, match=message):
        HudiTable(str(corpus_table(COW))).read(filters=filters)  # type: ignore[arg-type]


def test_read_unknown_option_names_closest_key(corpus_table: Callable[[str], Path]) -> None:
    with pytest.raises(HudiConfigError, match=r"did you mean hoodie\.datasource\.query\.type"):
        HudiTable(str(corpus_table(COW))).read(options={"hoodie.datasource.query.typ": "snapshot"})
    with pytest.raises(HudiConfigError, match="invalid value 'fast'"):
        HudiTable(str(corpus_table(COW))).read(options={"hoodie.datasource.query.type": "fast"})


def test_read_bad_instant_raises(corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable(str(corpus_table(COW)))
    with pytest.raises(TimelineError, match="invalid instant time"):
        table.read(as_of="last tuesday")
    with pytest.raises(InstantNotFoundError, match="no instant 20200101000000000"):
        table.timeline.get("20200101000000000")


def test_reads_write_nothing(corpus_copy: Callable[[str], Path]) -> None:
    base = corpus_copy("sample_table/cow/v9_txns_simple_nometa")

    def tree() -> dict[str, tuple[int, int]]:
        return {str(p.relative_to(base)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(base.rglob("*"))}

    before = tree()
    table = HudiTable(str(base))
    table.read()
    table.read(columns=["txn_id"], filters=[("region", "=", "us")])
    table.read(as_of=table.timeline.completed()[2].requested_time)
    table.read_incremental("earliest")
    table.file_slices()
    for bad in ([("nope", "=", 1)], [("txn_id", "~", 1)]):
        with pytest.raises(FilterError):
            table.read(filters=bad)
    assert tree() == before


def test_import_hudi_core_loads_no_spark_or_dagster() -> None:
    code = "import sys, hudi_core; bad = [m for m in ('pyspark', 'dagster') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "[]"
