"""Another process writing a table while a sensor waits (tests_airflow/test_commit_sensor.py):
`python -m tests_airflow.table_writer PATH MARKER` waits for MARKER, compacts, waits, upserts."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pyarrow as pa

from hudi_core import HudiTable, write_hudi

OPTIONS = {
    "hoodie.table.name": "events",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.compact.inline": "false",
}
COMPACT_NOW = {"hoodie.compact.inline.max.delta.commits": "1"}


def rows(ids: range, ts: int) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids), "value": [float(i) for i in ids]})


def main(path: str, marker: str) -> None:
    deadline = time.monotonic() + 120
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    if HudiTable(path).compact(options=COMPACT_NOW) is None:
        raise SystemExit("nothing to compact")
    time.sleep(3)  # several polls of the trigger see only the compaction
    write_hudi(path, rows(range(1, 10, 8), 30), OPTIONS)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
