"""Tables without record key fields: keys generated as Apache Hudi 0.14+ does (`<instant>_<task>_<row>`).

hoodie.properties records no record key fields, commit-time ordering, and the SIMPLE (partitioned)
or NON_PARTITION key generator; every insert-like write adds rows under fresh keys (an upsert
inserts); deletes by key are refused; overwrites replace. hudi-rs reads what we write.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.errors import HudiConfigError
from tests import hudi_rs

ROWS = pa.table({"v": [1, 2, 3, 4], "p": ["a", "a", "b", "b"]})


def options(table_type: str, partitioned: bool, operation: str) -> dict[str, str]:
    chosen = {
        "hoodie.table.name": "keyless",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
    }
    if partitioned:
        chosen["hoodie.datasource.write.partitionpath.field"] = "p"
    return chosen


def properties(path: Path) -> dict[str, str]:
    lines = (path / ".hoodie" / "hoodie.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_every_write_appends_under_generated_keys(tmp_path: Path, table_type: str, partitioned: bool) -> None:
    path = tmp_path / "t"
    results = [
        write_hudi(str(path), ROWS, options(table_type, partitioned, op)) for op in ("insert", "upsert", "bulk_insert")
    ]
    props = properties(path)
    assert "hoodie.table.recordkey.fields" not in props
    assert props["hoodie.record.merge.mode"] == "COMMIT_TIME_ORDERING"
    assert props["hoodie.table.keygenerator.type"] == ("SIMPLE" if partitioned else "NON_PARTITION")
    assert results[1].operation.value == "insert"  # an upsert inserts: new rows carry no stored key
    table = HudiTable(str(path)).read(columns=["_hoodie_record_key", "_hoodie_commit_time", "v"])
    keys = table.column("_hoodie_record_key").to_pylist()
    assert len(keys) == 12 and len(set(keys)) == 12
    expected = {f"{r.instant_time}_0_{row}" for r in results for row in range(4)}
    assert set(keys) == expected
    assert all(
        k.startswith(f"{c}_") for k, c in zip(keys, table.column("_hoodie_commit_time").to_pylist(), strict=True)
    )
    assert sorted(hudi_rs.snapshot(path).column("_hoodie_record_key").to_pylist()) == sorted(keys)


def test_overwrites_replace_and_deletes_by_key_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "t"
    write_hudi(str(path), ROWS, options("MERGE_ON_READ", True, "insert"))
    before = sorted(p.name for p in path.rglob("*") if p.is_file())
    with pytest.raises(HudiConfigError, match="cannot be deleted by key"):
        write_hudi(str(path), ROWS, options("MERGE_ON_READ", True, "delete"))
    with pytest.raises(HudiConfigError, match="cannot delete records by key"):
        write_hudi(str(path), ROWS, options("MERGE_ON_READ", True, "upsert"), deletes=ROWS.select(["p"]))
    assert sorted(p.name for p in path.rglob("*") if p.is_file()) == before
    write_hudi(str(path), ROWS.slice(0, 1), options("MERGE_ON_READ", True, "insert_overwrite"))
    assert sorted(HudiTable(str(path)).read().column("v").to_pylist()) == [1, 3, 4]
    write_hudi(str(path), ROWS.slice(3, 1), options("MERGE_ON_READ", True, "insert_overwrite_table"))
    assert HudiTable(str(path)).read().column("v").to_pylist() == [4]


def test_table_services_keep_the_generated_keys(tmp_path: Path) -> None:
    path = tmp_path / "t"
    for _ in range(3):
        write_hudi(str(path), ROWS, options("MERGE_ON_READ", True, "insert"))
    keys = sorted(HudiTable(str(path)).read(columns=["_hoodie_record_key"]).column(0).to_pylist())
    table = HudiTable(str(path))
    table.cluster(options={"hoodie.clustering.plan.strategy.small.file.limit": str(2**30)})
    table.clean()
    assert sorted(HudiTable(str(path)).read(columns=["_hoodie_record_key"]).column(0).to_pylist()) == keys
