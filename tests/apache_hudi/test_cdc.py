"""Change data capture, both ways, in every supplemental logging mode.

* Apache Hudi 1.2 reads the change feed of our tables: the seeded CDC histories of the interop
  suite (bulk insert, upserts with late records, inserts, deletes, insert_overwrite, a partition
  delete, clustering and — Merge-on-Read — compaction; and a global index moving keys between
  partitions) give the same change rows through Apache Hudi's CDC query as through ours, over the
  whole timeline and a seeded window.
* We read the change feed of tables Apache Hudi writes (insert, upsert with late records, delete;
  Merge-on-Read with its compaction inline) as Apache Hudi reads it.

Rows are compared as multisets of (op, ts_ms, before, after) with the images parsed from JSON.
Apache Hudi's images also carry the `_hoodie_*` columns of rows taken from base files, which ours
never do, and it renders decimal values as `{"zero": false}` (a Java bean, not the number): the
comparison leaves out the meta columns and the decimal column.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from scripts.apache_hudi import ApacheHudi
from tests.apache_hudi.tables import full_run_only, writer_options
from tests.interop.test_incremental_cdc import SCHEMA, History, run_history
from tests.model import TableModel

pytestmark = pytest.mark.apache_hudi

MODES = ("OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER")
DECIMAL_COLUMN = "amount"


def cdc_query(start: str = "0", end: str | None = None) -> dict[str, str]:
    options = {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.query.incremental.format": "cdc",
        "hoodie.datasource.read.begin.instanttime": start,
    }
    if end is not None:
        options["hoodie.datasource.read.end.instanttime"] = end
    return options


def _image(text: str | None) -> str | None:
    value = json.loads(text) if text else None
    if value is None:
        return None
    kept = {k: v for k, v in value.items() if not k.startswith("_hoodie_") and k != DECIMAL_COLUMN}
    return json.dumps(kept, sort_keys=True)


def changes(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted((r["op"], str(r["ts_ms"]), _image(r["before"]), _image(r["after"])) for r in table.to_pylist())


CASES = [
    pytest.param(table_type, mode, False, id=f"{table_type[:3].lower()}-{mode}")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for mode in MODES
] + [pytest.param("COPY_ON_WRITE", "DATA_BEFORE_AFTER", True, id="cow-global-index-moves")]


@pytest.mark.parametrize(("table_type", "mode", "global_index"), CASES)
def test_apache_hudi_reads_our_change_feed(
    apache_hudi: ApacheHudi, table_type: str, mode: str, global_index: bool, tmp_path: Path
) -> None:
    path = str(tmp_path / "table")
    seed = "moves" if global_index else f"cdc-{table_type}"
    model = run_history(path, table_type, mode, seed=seed, global_index=global_index)
    ours = HudiTable(path)
    everything = changes(ours.read_cdc("earliest"))
    assert everything, "the history made changes"
    assert changes(apache_hudi.read(path, cdc_query())) == everything, "whole timeline"

    writes = [c for c in model.commits if not c.is_service]
    first, last = sorted(random.Random(seed).sample(range(len(writes)), 2))
    start, end = writes[first].completion, writes[last].completion
    assert start is not None and end is not None
    window = changes(ours.read_cdc(start, end))
    assert changes(apache_hudi.read(path, cdc_query(start, end))) == window, f"window ({start}, {end}]"


# CI reads every logging mode, and both table types; the full run every pair.
IN_CI = {("MERGE_ON_READ", "OP_KEY_ONLY"), ("MERGE_ON_READ", "DATA_BEFORE_AFTER"), ("COPY_ON_WRITE", "DATA_BEFORE")}
READ_CASES = [
    pytest.param(table_type, mode, id=f"{table_type[:3].lower()}-{mode}")
    if (table_type, mode) in IN_CI
    else full_run_only(table_type, mode, id=f"{table_type[:3].lower()}-{mode}")
    for table_type in ("MERGE_ON_READ", "COPY_ON_WRITE")
    for mode in MODES
]


@pytest.mark.parametrize(("table_type", "mode"), READ_CASES)
def test_we_read_the_change_feed_apache_hudi_writes(
    apache_hudi: ApacheHudi, table_type: str, mode: str, tmp_path: Path
) -> None:
    rng = random.Random(f"apache-cdc-{table_type}-{mode}")
    history = History(rng, moves=False)
    path = tmp_path / "table"
    options = {
        **writer_options("apache_cdc", table_type),
        "hoodie.table.cdc.enabled": "true",
        "hoodie.table.cdc.supplemental.logging.mode": mode,
        "hoodie.write.table.version": "8",
        "hoodie.compact.inline": str(table_type == "MERGE_ON_READ").lower(),
        "hoodie.compact.inline.max.delta.commits": "2",
    }
    model = TableModel("id", lambda r: r["city"], "ts")

    def write(rows: list[dict[str, Any]], operation: str) -> None:
        mode_ = "overwrite" if not path.exists() else "append"
        apache_hudi.write(
            path,
            pa.Table.from_pylist(rows, schema=SCHEMA),
            {**options, "hoodie.datasource.write.operation": operation},
            mode_,
        )
        getattr(model, "insert_new" if operation == "insert" else operation)(rows, "apache", None)

    write(history.fresh(12, 100), "insert")
    for ts in (110, 120):
        stored = sorted(key for _, key in model.current)
        write(
            [history.row(k, ts if rng.random() < 0.7 else 1) for k in rng.sample(stored, 4)] + history.fresh(2, ts),
            "upsert",
        )
    stored = sorted(key for _, key in model.current)
    write([history.row(k, 130) for k in rng.sample(stored, 3)], "delete")

    theirs = changes(apache_hudi.read(path, cdc_query()))
    assert theirs
    assert changes(HudiTable(str(path)).read_cdc("earliest")) == theirs
