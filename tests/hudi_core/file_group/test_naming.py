from __future__ import annotations

import pytest

from hudi_core.file_group.naming import BaseFileName, LogFileName, parse_base_file_name, parse_log_file_name


def test_parse_base_file_name_round_trips() -> None:
    name = "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet"
    parsed = parse_base_file_name(name)
    assert parsed == BaseFileName(
        "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0", "2-986-2794", "20251220210108078", "parquet"
    )
    assert parsed.name == name


def test_parse_log_file_name_round_trips() -> None:
    name = ".036ded81-0ed4-4e4a-a4cc-e8a7e7f2b2ef-0_20251220210123755.log.1_0-1022-2928"
    parsed = parse_log_file_name(name)
    assert parsed == LogFileName("036ded81-0ed4-4e4a-a4cc-e8a7e7f2b2ef-0", "20251220210123755", 1, "0-1022-2928")
    assert parsed.name == name
    cdc = parse_log_file_name(".f1_20250101000000000.log.2_1-1-1.cdc")
    assert cdc is not None and cdc.is_cdc and cdc.version == 2 and cdc.name == ".f1_20250101000000000.log.2_1-1-1.cdc"


@pytest.mark.parametrize(
    "name",
    [
        "..c887c1e8-5fb9-475e-8171-769c5cf10c61-0_20260409030539332.log.1_0-254-421.crc",
        ".6e1d5cc4-0_2-986-2794_20251220210108078.parquet.crc",
        ".DS_Store",
        ".hoodie_partition_metadata",
        "part-00000-aca49d20-dd56-45fc-8134-5948942a9fb4-c000.snappy.parquet",
        "_SUCCESS",
    ],
)
def test_parse_file_names_junk_rejected(name: str) -> None:
    assert parse_base_file_name(name) is None
    assert parse_log_file_name(name) is None
