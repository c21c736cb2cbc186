"""The partition-value property shared by the API, CLI, Spark and S3 tests: whatever string a
partition column holds, a write either keeps every file under the table's base path and every
committed row reads back (in our reader and in hudi-rs), or is refused with a SchemaError naming the
column before anything is written.

Values mix path separators, dots, `.hoodie`, percent escapes, control characters, unicode and
lengths around the 255-byte limit of a file name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hudi_core import HudiTable, SchemaError
from tests import hudi_rs
from tests.hudi_core.write.test_write_bad_input import _snapshot
from tests.model import TRIPS_SCHEMA, canonical, table_rows

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
OPTIONS = {
    "hoodie.table.name": "values",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.operation": "upsert",
}
CANARY = b"must survive"

_PIECES = [
    *("/", ".", "..", "\\", "%", "%2F", "=", " ", ":", "*", "?", "#", "~", "-", "_"),
    *("\x00", "\n", "\t", "\x1f", "\x7f", "\x85", "\u2028", "\ufeff"),
    *("é", "日本", "😀", "a", "b7", ".hoodie", "__HIVE_DEFAULT_PARTITION__"),
]
_PIECE = st.one_of(st.text(alphabet="abcXYZ019", min_size=1, max_size=4), st.sampled_from(_PIECES))
VALUES = st.one_of(
    st.lists(_PIECE, min_size=1, max_size=6).map("".join),
    st.lists(st.lists(_PIECE, min_size=1, max_size=2).map("".join), min_size=2, max_size=3).map("/".join),
    st.text(max_size=12),
    st.builds(lambda char, count: char * count, st.sampled_from(["x", "é", "日"]), st.integers(60, 300)),
)
BATCHES = st.lists(VALUES, min_size=1, max_size=2)
# Run first by every test (`with_examples`): multi-level, hidden, unicode and escape-like values that
# must be written, then values that must be refused, alone and next to a legal one.
EXPLICIT = [
    ["americas/united_states/san_francisco", ".hidden", "a b%2F=:*😀"],
    [".."],
    ["ok", "a\nb"],
]


def with_examples(test: Callable[[list[str]], None]) -> Callable[[list[str]], None]:
    for values in reversed(EXPLICIT):
        test = example(values=values)(test)
    return test


def property_settings(max_examples: int) -> settings:
    """Reproducible in CI (a fixed derivation of examples), with no per-example deadline."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


Listing = Mapping[str, object]


def local_lake(root: Path) -> tuple[Path, Path]:
    """The base path of a table two folders below `root` (`lake/t`), and a canary file beside the
    table's folder (another at `root`)."""
    base = root / "lake" / "t"
    base.parent.mkdir(parents=True)
    canary = root / "lake" / "canary"
    canary.write_bytes(CANARY)
    (root / "canary").write_bytes(CANARY)
    return base, canary


def local_listing(root: Path) -> Listing:
    """Every folder and file (size and hash) under `root`, by relative path."""
    return _snapshot(root)


class ValueChecker:
    """Writes batches of partition values into one table and checks the property after each.

    Args:
        base: the table's base path or URI.
        folder: the table's folder, relative to the root that `listing` lists.
        listing: lists everything under the root that holds the table and a canary beside it.
        write: writes rows (list of dicts of SCHEMA) with the engine under test; raises SchemaError
            when it refuses them.
    """

    def __init__(
        self,
        base: str,
        folder: str,
        listing: Callable[[], Listing],
        write: Callable[[list[dict[str, Any]]], object],
    ) -> None:
        self.base = base
        self.folder = folder
        self.listing = listing
        self.write = write
        self.accepted: dict[str, dict[str, Any]] = {}
        self.refused = 0
        self._ids: Iterator[int] = itertools.count()

    def check(self, values: list[str]) -> None:
        rows = [{"id": f"k{next(self._ids)}", "ts": 1, "city": value, "fare": 1.0} for value in values]
        before = self.listing()
        try:
            self.write(rows)
        except SchemaError as e:
            assert "partition field 'city'" in str(e), str(e)
            assert self.listing() == before, f"the refused write of {values!r} changed files"
            self.refused += 1
            return
        after = self.listing()
        changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        outside = sorted(p for p in changed if p != self.folder and not p.startswith(self.folder + "/"))
        assert not outside, f"writing {values!r} changed files outside the table: {outside}"
        self.accepted.update((row["id"], row) for row in rows)
        expected = canonical(table_rows(pa.Table.from_pylist(list(self.accepted.values()), schema=SCHEMA), COLUMNS))
        assert canonical(table_rows(HudiTable(self.base).read(), COLUMNS)) == expected, f"ours after {values!r}"
        listed = HudiTable(self.base, {"hoodie.metadata.enable": "false"}).read()
        assert canonical(table_rows(listed, COLUMNS)) == expected, f"ours, listing storage, after {values!r}"
        assert canonical(table_rows(hudi_rs.snapshot(self.base), COLUMNS)) == expected, f"hudi-rs after {values!r}"

    def run(self, max_examples: int) -> None:
        """Checks the explicit examples and `max_examples` generated batches, then that both
        outcomes were seen (else the property proved little)."""

        @property_settings(max_examples)
        @with_examples
        @given(values=BATCHES)
        def check(values: list[str]) -> None:
            self.check(values)

        check()
        assert self.accepted and self.refused, (len(self.accepted), self.refused)


def write_options(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {**OPTIONS, **(extra or {})}
