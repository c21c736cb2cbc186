"""Table version 6: our writer's upgrade equals Apache Hudi 1.2's own, and both sides go on from it.

Apache Hudi 1.2 writes a version-6 table (``hoodie.write.table.version=6``, metadata table on,
archival and — Merge-on-Read — compaction inline, the last compaction only planned so a pending
plan crosses the upgrade). Two copies (file times kept) are upgraded by the same upsert: one by
Apache Hudi with ``hoodie.write.table.version=8``, one by us. Then:

* hoodie.properties agree on what version 8 declares (layout, initial version, key generator by
  class and type, merge mode, payload class and strategy id);
* every instant of the version-6 history, archived or active, has the same requested time,
  completion time and action on both timelines (the legacy archive became LSM history on both);
* Apache Hudi, hudi-rs and we read our upgraded table as the model, and its metadata table passes
  Apache Hudi's ``validate_metadata_table_files``;
* Apache Hudi writes on top of our upgraded table, and everyone reads the model again.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.table import HudiTableConfig
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.apache_hudi.tables import full_run_only, writer_options
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

DECLARED_BY_VERSION_8 = (
    HudiTableConfig.VERSION,
    HudiTableConfig.TIMELINE_LAYOUT_VERSION,
    HudiTableConfig.INITIAL_VERSION,
    HudiTableConfig.TIMELINE_PATH,
    HudiTableConfig.KEY_GENERATOR_TYPE,
    HudiTableConfig.KEY_GENERATOR_CLASS,
    HudiTableConfig.RECORD_MERGE_MODE,
    HudiTableConfig.PAYLOAD_CLASS,
    HudiTableConfig.RECORD_MERGE_STRATEGY_ID,
)


def declared(path: Path) -> dict[str, str | None]:
    """What version 8 declares in a table's hoodie.properties (an older key spelling counts)."""
    raw = HudiTable(str(path)).table_config.raw
    return {o.key: next((raw[k] for k in (o.key, *o.aliases) if k in raw), None) for o in DECLARED_BY_VERSION_8}


def history(path: Path, before: str, pending: list[str]) -> set[tuple[str, str | None, str]]:
    """(requested, completion, action) of every completed instant requested at or before `before`;
    an instant `pending` at version 6 completed during the upgrade, at its own time on each side."""
    timeline = HudiTable(str(path)).timeline
    active = {(i.requested_time, i.completion_time, i.action.value) for i in timeline.instants() if i.is_completed}
    archived = {(a.requested_time, a.completion_time, a.action) for a in timeline.archived()}
    return {
        (requested, None if requested in pending else completion, action)
        for requested, completion, action in active | archived
        if requested <= before
    }


@pytest.mark.parametrize("table_type", [full_run_only("COPY_ON_WRITE", id="COPY_ON_WRITE"), "MERGE_ON_READ"])
def test_our_upgrade_of_a_version_6_table_equals_apache_hudis_and_both_go_on_from_it(
    apache_hudi: ApacheHudi, table_type: str, tmp_path: Path
) -> None:
    name = f"v6_{table_type[:3].lower()}"
    options = {
        **writer_options(name, table_type),
        "hoodie.metadata.enable": "true",
        "hoodie.keep.min.commits": "3",
        "hoodie.keep.max.commits": "4",
        "hoodie.clean.commits.retained": "2",
        "hoodie.compact.inline.max.delta.commits": "3",
        # The data table archives only what its metadata table has compacted past.
        "hoodie.metadata.compact.max.delta.commits": "3",
    }
    version_6 = {**options, "hoodie.write.table.version": "6"}
    rng = random.Random(f"version-6-{table_type}")
    rows_of = History(rng, partitioned=True)
    source = tmp_path / "v6"
    model = TableModel("id", lambda r: r["city"], "ts")

    def apache_writes(path: Path, rows: list[dict[str, Any]], operation: str, extra: dict[str, str]) -> None:
        apache_hudi.write(
            path,
            pa.Table.from_pylist(rows, schema=SCHEMA),
            {**extra, "hoodie.datasource.write.operation": operation},
            "overwrite" if not path.exists() else "append",
        )
        getattr(model, "insert_new" if operation == "insert" else operation)(rows, "apache", None)

    apache_writes(source, rows_of.fresh(16, 100), "insert", version_6)
    for ts in range(110, 140, 10):  # with the delete and the planned upsert: 6 delta commits, 3 per compaction
        stored = sorted(key for _, key in model.current)
        late = [rows_of.row(key, ts if rng.random() < 0.7 else 5) for key in rng.sample(stored, 4)]
        apache_writes(source, [*late, *rows_of.fresh(2, ts)], "upsert", version_6)
    stored = sorted(key for _, key in model.current)
    apache_writes(source, [rows_of.row(key, 170) for key in rng.sample(stored, 2)], "delete", version_6)
    if table_type == "MERGE_ON_READ":  # the last compaction is planned, not run: a pending plan
        planned = {**version_6, "hoodie.compact.inline": "false", "hoodie.compact.schedule.inline": "true"}
        stored = sorted(key for _, key in model.current)
        apache_writes(source, [rows_of.row(key, 180) for key in rng.sample(stored, 3)], "upsert", planned)
    assert HudiTable(str(source)).table_config.version == 6
    legacy_archive = source / ".hoodie" / HudiTable(str(source)).table_config.archivelog_folder
    assert any(legacy_archive.glob(".commits_.archive.*")), "the version-6 history reached the legacy archive"
    last_v6 = HudiTable(str(source)).timeline.instants()[-1].requested_time
    pending_v6 = [i.requested_time for i in HudiTable(str(source)).timeline.pending()]
    assert (table_type == "MERGE_ON_READ") == bool(pending_v6)

    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    shutil.copytree(source, theirs)
    shutil.copytree(source, ours)
    stored = sorted(key for _, key in model.current)
    upsert = [rows_of.row(key, 190) for key in rng.sample(stored, 3)] + rows_of.fresh(2, 190)
    apache_hudi.write(
        theirs,
        pa.Table.from_pylist(upsert, schema=SCHEMA),
        {**options, "hoodie.write.table.version": "8", "hoodie.datasource.write.operation": "upsert"},
    )
    HudiTable(str(ours)).upsert(pa.Table.from_pylist(upsert, schema=SCHEMA))
    model.upsert(upsert, "upgrade", None)
    expected = canonical(model.snapshot(COLUMNS))

    assert declared(ours) == declared(theirs)
    assert history(ours, last_v6, pending_v6) == history(theirs, last_v6, pending_v6)
    assert {(p, None, "commit") for p in pending_v6} <= history(ours, last_v6, pending_v6), "the pending compaction ran"
    for reader, read in (
        ("Apache Hudi (its upgrade)", lambda: apache_hudi.read(theirs)),
        ("ours", lambda: HudiTable(str(ours)).read()),
        ("Apache Hudi", lambda: apache_hudi.read(ours)),
        ("hudi-rs", lambda: hudi_rs.snapshot(ours)),
    ):
        assert canonical(table_rows(read(), COLUMNS)) == expected, f"{reader} vs model after the upgrade"
    apache_hudi.sql(f"CREATE TABLE {name}_ours USING hudi LOCATION '{ours}'")
    mismatches = apache_hudi.sql(f"CALL validate_metadata_table_files(table => '{name}_ours')")
    assert mismatches is not None and mismatches.to_pylist() == []

    stored = sorted(key for _, key in model.current)
    more = [rows_of.row(key, 200) for key in rng.sample(stored, 3)] + rows_of.fresh(2, 200)
    apache_writes(ours, more, "upsert", {**options, "hoodie.write.table.version": "8"})
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(apache_hudi.read(ours), COLUMNS)) == expected, "Apache Hudi after its write on ours"
    assert canonical(table_rows(HudiTable(str(ours)).read(), COLUMNS)) == expected, "ours after Apache Hudi's write"
    assert HudiTable(str(ours)).table_config.version == 8
