from __future__ import annotations

import pytest

from hudi_core.config.properties import format_properties, parse_properties, table_checksum


def test_parse_properties_java_escapes_unescaped() -> None:
    text = (
        "#Properties saved on 2025-07-13T01:01:15.180328Z\n"
        "#Sun Jul 13 01:01:15 UTC 2025\n"
        'hoodie.table.create.schema={"type"\\:"record","a\\=b"\\:1}\n'
        "hoodie.table.name = trips\n"
        "key\\ with\\ space:value\n"
        "! bang comment\n"
        "multi=one\\\n"
        "    two\n"
        "unicode=caf\\u00e9\n"
    )
    assert parse_properties(text) == {
        "hoodie.table.create.schema": '{"type":"record","a=b":1}',
        "hoodie.table.name": "trips",
        "key with space": "value",
        "multi": "onetwo",
        "unicode": "café",
    }


def test_format_properties_round_trips() -> None:
    props = {"a:b": "x=y", "schema": '{"type":"record"}', "spaces": " lead", "uni": "café", "empty": ""}
    text = format_properties(props, "Properties saved on now")
    assert text.startswith("#Properties saved on now\n#")
    assert parse_properties(text) == props
    assert 'schema={"type"\\:"record"}' in text


@pytest.mark.parametrize(
    ("database", "table", "checksum"),
    [
        ("default", "v8_empty", 640695144),
        ("default", "v8_trips_8i3u1d", 1197752875),
        (None, "v8_trips_8i3u1d_metadata", 380169000),
    ],
)
def test_table_checksum_matches_hudi(database: str | None, table: str, checksum: int) -> None:
    assert table_checksum(database, table) == checksum
