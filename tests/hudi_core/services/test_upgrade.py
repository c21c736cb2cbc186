"""Version-6 tables of the conformance corpus (written by Apache Hudi 0.x) upgraded by our first write.

The write re-upserts two stored rows unchanged, so the table's content must not change: the
snapshot equals the corpus's expected rows, hudi-rs reads the same, and time travel to every
instant completed before the upgrade returns what it returned at version 6 (the completion times
taken from the instant files' modification times keep the slices and the visible instants).
Refusals change nothing: with `hoodie.write.auto.upgrade=false`, and on a Merge-on-Read table with
a deltacommit in flight.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import HudiError, UnsupportedTableVersionError
from hudi_core.lifecycle.crash import CRASH_POINTS, ENV_VAR
from hudi_core.storage import Storage
from hudi_core.table.state import load_table_state
from tests import hudi_rs
from tests.corpus import CorpusTable, as_multiset, corpus_tables, extract, normalize_rows

V6_TABLES = [
    t
    for t in corpus_tables()
    if t.entry["table_version"] == 6 and t.entry["expected_row_count"] and "uncommitted" not in t.name
]
PENDING_DELTACOMMIT_TABLE = "quickstart_trips_table/mor/avro/table_uncommitted_log_v6"
REPO_ROOT = Path(__file__).resolve().parents[3]


def tree_digest(base: Path) -> dict[str, str]:
    """Every file under the table with a digest of its bytes (what "unchanged" means)."""
    return {
        str(p.relative_to(base)): hashlib.sha256(p.read_bytes()).hexdigest() for p in base.rglob("*") if p.is_file()
    }


def rows(table: pa.Table) -> list[str]:
    return as_multiset(normalize_rows(table))


@pytest.mark.parametrize("corpus", [pytest.param(t, id=t.name) for t in V6_TABLES])
def test_the_first_write_upgrades_a_version_6_table_keeping_its_content_and_history(
    corpus: CorpusTable, corpus_cache: Path, tmp_path: Path
) -> None:
    base = tmp_path / "table"
    shutil.copytree(extract(corpus, corpus_cache), base)  # copytree keeps modification times
    before = HudiTable(str(base))
    snapshot = before.read()
    instants = [i for i in before.timeline.completed_data_instants()]
    travelled = {i.requested_time: rows(before.read(as_of=i.requested_time)) for i in instants}

    unchanged = snapshot.slice(0, 2).drop_columns([c for c in snapshot.column_names if c.startswith("_hoodie_")])
    before.upsert(unchanged)

    after = HudiTable(str(base))
    assert after.table_config.version == 8
    assert after.timeline.layout_version == 2
    expected = as_multiset(corpus.expected_snapshot())
    assert rows(after.read()) == expected
    assert rows(hudi_rs.snapshot(base)) == expected
    for instant in instants:
        assert rows(after.read(as_of=instant.requested_time)) == travelled[instant.requested_time], (
            f"time travel to {instant.requested_time}"
        )
    old = {(i.requested_time, i.action) for i in instants}
    new = {(i.requested_time, i.action) for i in after.timeline.completed_data_instants()}
    assert old <= new, "every completed write instant of version 6 is on the upgraded timeline"
    assert not any(p.name[0].isdigit() for p in (base / ".hoodie").iterdir()), "no layout-1 instant file is left"


def test_with_auto_upgrade_off_the_write_is_refused_and_the_table_unchanged(corpus_cache: Path, tmp_path: Path) -> None:
    corpus = next(t for t in V6_TABLES if t.is_mor)
    base = tmp_path / "table"
    shutil.copytree(extract(corpus, corpus_cache), base)
    table = HudiTable(str(base))
    snapshot = table.read()
    digest = tree_digest(base)
    with pytest.raises(UnsupportedTableVersionError, match=r"hoodie\.write\.auto\.upgrade=false"):
        table.upsert(snapshot.slice(0, 1), {"hoodie.write.auto.upgrade": "false"})
    with pytest.raises(UnsupportedTableVersionError, match="upgrades it to version 8 only"):
        table.upsert(snapshot.slice(0, 1), {"hoodie.write.table.version": "9"})
    assert tree_digest(base) == digest


def test_a_merge_on_read_table_with_a_deltacommit_in_flight_is_refused_and_unchanged(
    corpus_cache: Path, tmp_path: Path
) -> None:
    corpus = next(t for t in corpus_tables() if t.name == PENDING_DELTACOMMIT_TABLE)
    base = tmp_path / "table"
    shutil.copytree(extract(corpus, corpus_cache), base)
    state = load_table_state(Storage(str(base)))
    pending = [i.requested_time for i in state.timeline.pending()]
    assert pending, "the corpus table keeps a deltacommit in flight"
    table = HudiTable(str(base))
    snapshot = table.read()
    digest = tree_digest(base)
    with pytest.raises(HudiError, match=f"deltacommit\\(s\\) {pending[0]}"):
        table.upsert(snapshot.slice(0, 1).drop_columns([c for c in snapshot.column_names if c.startswith("_hoodie_")]))
    assert tree_digest(base) == digest


CHILD = """
import sys
from hudi_core import HudiTable
table = HudiTable(sys.argv[1])
stored = table.read()
table.upsert(stored.slice(0, 2).drop_columns([c for c in stored.column_names if c.startswith("_hoodie_")]))
"""
CRASH_TABLES = {
    "MERGE_ON_READ": "sample_table/mor/parquet/v6_nonpartitioned_rollback",
    "COPY_ON_WRITE": "sample_table/cow/v6_simplekeygen_nonhivestyle",
}
UPGRADE_POINTS = [
    pytest.param(point, table_type, id=f"{point}-{table_type}")
    for point in CRASH_POINTS
    if point.startswith("upgrade.")
    for table_type in CRASH_TABLES
    if table_type == "MERGE_ON_READ" or point != "upgrade.after_compaction"
]


@pytest.mark.parametrize(("point", "table_type"), UPGRADE_POINTS)
def test_an_upgrade_killed_at_any_point_leaves_the_table_readable_and_the_next_write_finishes_it(
    point: str, table_type: str, corpus_cache: Path, tmp_path: Path
) -> None:
    corpus = next(t for t in corpus_tables() if t.name == CRASH_TABLES[table_type])
    base = tmp_path / "table"
    shutil.copytree(extract(corpus, corpus_cache), base)
    expected = as_multiset(corpus.expected_snapshot())
    last_v6 = HudiTable(str(base)).timeline.instants()[-1].requested_time
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), ENV_VAR: point}
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(base)], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert rows(HudiTable(str(base)).read()) == expected, f"read after a crash at {point}"

    subprocess.run([sys.executable, "-c", CHILD, str(base)], env={**env, ENV_VAR: ""}, check=True, timeout=120)
    after = HudiTable(str(base))
    assert after.table_config.version == 8
    assert rows(after.read()) == expected
    assert rows(hudi_rs.snapshot(base)) == expected
    assert not any(p.name[0].isdigit() for p in (base / ".hoodie").iterdir()), "no layout-1 instant file is left"
    if table_type == "MERGE_ON_READ":  # compacted: no slice goes on from version 6's log files
        assert all(s.base_instant > last_v6 for s in after.plan().slices)
