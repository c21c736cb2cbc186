"""Tables without record key fields between Apache Hudi 1.2 and us: each reads and continues the
other's, keys generated as `<instant>_<task>_<row>` on both sides and never colliding."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from scripts.apache_hudi import ApacheHudi

pytestmark = pytest.mark.apache_hudi

ROWS = pa.table({"v": [1, 2, 3, 4], "p": ["a", "a", "b", "b"]})


def options(operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "keyless",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.datasource.write.operation": operation,
        "hoodie.write.table.version": "8",
    }


def keys_and_values(table: pa.Table) -> list[tuple[str, int]]:
    return sorted(zip(table.column("_hoodie_record_key").to_pylist(), table.column("v").to_pylist(), strict=True))


def test_apache_hudi_and_we_continue_each_others_keyless_tables(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    write_hudi(str(ours), ROWS, options("insert"))
    apache_hudi.write(ours, ROWS, options("insert"))  # Apache Hudi continues our table
    write_hudi(str(ours), ROWS, options("upsert"))  # an upsert inserts
    theirs_view = keys_and_values(apache_hudi.read(ours))
    our_view = keys_and_values(HudiTable(str(ours)).read())
    assert our_view == theirs_view and len(our_view) == 12 and len({k for k, _ in our_view}) == 12
    instants = {k.rsplit("_", 2)[0] for k, _ in our_view}
    assert len(instants) == 3  # one key prefix per commit, Apache Hudi's included

    theirs = tmp_path / "theirs"
    apache_hudi.write(theirs, ROWS, options("insert"))
    write_hudi(str(theirs), ROWS.slice(0, 2), options("insert"))  # we continue Apache Hudi's table
    rows = keys_and_values(HudiTable(str(theirs)).read())
    assert rows == keys_and_values(apache_hudi.read(theirs))
    assert sorted(v for _, v in rows) == [1, 1, 2, 2, 3, 4] and len({k for k, _ in rows}) == 6
