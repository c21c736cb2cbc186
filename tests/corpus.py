"""The conformance corpus: real Hudi tables written by Apache Hudi on Spark, with expected reads.

The corpus lives outside the repository (see :mod:`pipelines.corpus`); :func:`extract` unpacks a
table into a cache folder, once per test session.

Expected files are JSON Lines with the rules of the corpus README; :func:`normalize_rows` turns an
Arrow table into the same form so rows can be compared as multisets.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.corpus import conformance_dir, manifest
from pipelines.corpus import extract as extract_entry


@dataclass(frozen=True)
class CorpusTable:
    """One manifest entry."""

    entry: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.entry["name"])

    @property
    def is_mor(self) -> bool:
        return bool(self.entry["table_type"] == "MOR")

    @property
    def record_key_fields(self) -> list[str]:
        return list(self.entry.get("record_key_fields") or [])

    @property
    def queries(self) -> list[dict[str, Any]]:
        return list(self.entry.get("expected_queries") or [])

    @property
    def instants(self) -> list[dict[str, Any]]:
        return list(self.entry["hudi_rs_read"].get("instants") or [])

    def expected_snapshot(self) -> list[dict[str, Any]]:
        return read_jsonl(conformance_dir() / self.entry["expected_snapshot"])


def corpus_tables() -> list[CorpusTable]:
    return [CorpusTable(e) for e in manifest()["tables"]]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def extract(table: CorpusTable, cache_dir: Path) -> Path:
    """Unpacks the table's zip under `cache_dir` (once) and returns the table base path."""
    return extract_entry(table.entry, cache_dir)


# ---- normalisation to the expected-file form ---------------------------------------------------


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
        return moment.astimezone(datetime.UTC).isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    raise TypeError(f"no JSON form for {type(value).__name__}: {value!r}")


def data_columns(names: Iterable[str]) -> list[str]:
    """Columns the expected files keep: every column not starting with `_hoodie_`."""
    return [n for n in names if not n.startswith("_hoodie_")]


def normalize_rows(table: pa.Table, columns: list[str] | None = None) -> list[dict[str, Any]]:
    """Rows of `table` (restricted to `columns`, default: data columns) in expected-file form."""
    selected = table.select(columns if columns is not None else data_columns(table.column_names))
    rows = [
        {name: _json_value(value) for name, value in row.items()}
        for row in selected.to_pylist(maps_as_pydicts="strict")
    ]
    # A JSON round trip makes floats and nested values compare exactly like the parsed expected file.
    return [json.loads(json.dumps(row)) for row in rows]


def as_multiset(rows: Iterable[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True) for row in rows)
