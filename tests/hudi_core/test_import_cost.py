"""`import hudi_core` loads only what reading and writing a table needs."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_hudi_core_loads_no_pandas_dagster_or_pyspark() -> None:
    probe = "import sys, json, hudi_core; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    )
    unwanted = {name.split(".")[0] for name in loaded} & {"pandas", "dagster", "pyspark"}
    assert not unwanted, f"import hudi_core loads {sorted(unwanted)}"
