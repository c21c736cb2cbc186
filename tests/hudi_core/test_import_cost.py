"""`import hudi_core` loads only what reading and writing a table needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import hudi_core


def test_importing_hudi_core_loads_no_pandas_dagster_or_pyspark() -> None:
    probe = "import sys, json, hudi_core; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    )
    unwanted = {name.split(".")[0] for name in loaded} & {"pandas", "dagster", "pyspark"}
    assert not unwanted, f"import hudi_core loads {sorted(unwanted)}"


def test_the_types_the_facade_returns_are_exported(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64())])
    table = hudi_core.HudiTable.create(str(tmp_path / "t"), schema, "t", ["id"], None, ["ts"], "MERGE_ON_READ")
    result = table.upsert(pa.table({"id": ["a"], "ts": [1]}))
    table.upsert(pa.table({"id": ["a"], "ts": [2]}))
    assert isinstance(result, hudi_core.WriteResult)
    assert isinstance(table.table_config, hudi_core.TableConfig)
    assert isinstance(table.plan(), hudi_core.ScanPlan)
    assert isinstance(table.compact(None, {"hoodie.compact.inline.max.delta.commits": "1"}), hudi_core.ServiceResult)
    assert {"ScanPlan", "ServiceResult", "TableConfig", "WriteResult"} <= set(hudi_core.__all__)


def test_the_facades_old_module_path_still_works_with_a_deprecation_warning() -> None:
    import hudi_core.table  # noqa: PLC0415

    with pytest.warns(DeprecationWarning, match=r"hudi_core\.table\.HudiTable moved to hudi_core\.hudi_table"):
        old = hudi_core.table.HudiTable
    assert old is hudi_core.HudiTable
    with pytest.raises(AttributeError):
        _ = hudi_core.table.no_such_name
