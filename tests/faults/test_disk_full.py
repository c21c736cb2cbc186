"""A full disk at every write an operation makes: the operation fails cleanly or, once its data
committed, succeeds with a warning; either way nothing is lost and nothing is left behind.

Each sweep runs an operation once to count its writes, then once per write N (every one, or a
seeded sample when there are many) on a fresh copy of the table, with the Nth write failing with
ENOSPC (:mod:`tests.faults.faulty_storage`). After each run: the table reads at its last commit, the
error or warning names the file and the cause, no lock, heartbeat, temporary or stale file is left,
markers belong only to pending instants, every data file on storage is one the timeline references
(`orphan_files()` and a direct listing), the metadata table agrees with storage, and the next write
succeeds once the space is back, leaving the table fully settled.

A last test fills a real tmpfs (mounted by the test where it may; skipped otherwise).
"""

from __future__ import annotations

import errno
import os
import posixpath
import random
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiStorageError, HudiTable, WriteResult
from hudi_core.concurrency.storage_lock import LOCK_FILE
from hudi_core.file_group.naming import parse_base_file_name, parse_log_file_name
from hudi_core.lifecycle.heartbeat import HEARTBEAT_DIR
from hudi_core.lifecycle.markers import TEMP_DIR
from hudi_core.table.listing import list_partitions
from hudi_core.timeline.instant import Action
from tests.faults.faulty_storage import inject
from tests.faults.tables import SCHEMA, rows, values
from tests.invariants import assert_healthy

PARTITIONS = ("a", "b", "c")
BASE_OPTIONS = {"hoodie.parquet.small.file.limit": "0"}
SAMPLE = 14  # runs per sweep at most (a seeded sample beyond that keeps the sweeps within seconds)
ENOSPC_TEXT = "No space left on device"

Content = dict[str, int]


def _batch(ids: Iterable[int], v: int) -> pa.Table:
    return rows(ids, v, PARTITIONS)


def _apply(content: Content, batch: pa.Table) -> Content:
    return {**content, **dict(zip(batch.column("id").to_pylist(), batch.column("v").to_pylist(), strict=True))}


def _data_files(base: Path) -> set[str]:
    table = HudiTable(str(base))
    return {
        posixpath.join(partition, entry.name) if partition else entry.name
        for partition, entries in list_partitions(table.storage).items()
        for entry in entries
        if not entry.is_dir and (parse_base_file_name(entry.name) or parse_log_file_name(entry.name))
    }


def _instant_of(path: str) -> str:
    name = posixpath.basename(path)
    parsed = parse_base_file_name(name) or parse_log_file_name(name)
    assert parsed is not None, name
    return parsed.instant_time


@dataclass(frozen=True)
class Scenario:
    """A table (an insert and `seeds` upserts), and the operation swept: an upsert of `batch()`."""

    name: str
    table_type: str
    options: dict[str, str]
    seeds: int  # upserts after the first insert
    service: str | None  # the inline service the swept upsert runs (sweep only after the commit)
    seed_options: dict[str, str] = field(default_factory=dict)  # for the seed writes only

    def build(self, base: Path) -> None:
        options = {**self.options, **self.seed_options}
        table = HudiTable.create(str(base), SCHEMA, "full", ["id"], ["p"], None, self.table_type, options)
        table.insert(_batch(range(12), 0), options)
        for round_ in range(1, self.seeds + 1):
            table.upsert(_batch(range(0, 12, 2), round_), options)

    def batch(self) -> pa.Table:
        return _batch([*range(0, 12, 3), 13, 14], 100)  # updates in every partition and two inserts

    def run(self, base: Path) -> WriteResult:
        return HudiTable(str(base)).upsert(self.batch(), self.options)


SCENARIOS = [
    Scenario("upsert-cow", "COPY_ON_WRITE", BASE_OPTIONS, 0, None),
    Scenario("upsert-mor", "MERGE_ON_READ", BASE_OPTIONS, 1, None),
    Scenario(
        "inline-compaction",
        "MERGE_ON_READ",
        {**BASE_OPTIONS, "hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"},
        0,
        "compaction",
    ),
    Scenario("inline-clean", "COPY_ON_WRITE", {**BASE_OPTIONS, "hoodie.clean.commits.retained": "1"}, 2, "clean"),
    Scenario(
        "inline-archival",
        "COPY_ON_WRITE",
        {
            **BASE_OPTIONS,
            "hoodie.clean.automatic": "false",
            "hoodie.keep.min.commits": "2",
            "hoodie.keep.max.commits": "3",
            "hoodie.clean.commits.retained": "1",
        },
        3,
        "archive",
        {"hoodie.archive.automatic": "false"},
    ),
]


def _commit_index(writes: list[tuple[str, str]], base: Path) -> int:
    """How many writes the swept upsert made up to and including publishing its completed instant."""
    timeline_dir = str(base / ".hoodie" / "timeline") + "/"
    for number, (kind, path) in enumerate(writes, start=1):
        name = path[len(timeline_dir) :] if path.startswith(timeline_dir) else ""
        if kind == "link" and "_" in name and name.endswith(("commit", "deltacommit")):
            return number
    raise AssertionError("the upsert published no completed instant")


def _sample(writes: list[tuple[str, str]], first: int, seed: str) -> list[int]:
    """The writes from `first` on to fail: all, or when too many, the first of each kind (lock,
    heartbeat, instant file, marker, data file, metadata table, history; by stream, rename and
    link) and a seeded sample of the others."""
    numbers = list(range(first, len(writes) + 1))
    if len(numbers) <= SAMPLE:
        return numbers
    firsts: dict[tuple[str, str], int] = {}
    for number in numbers:
        kind, path = writes[number - 1]
        firsts.setdefault((kind, _category(path)), number)
    others = [n for n in numbers if n not in firsts.values()]
    extra = random.Random(seed).sample(others, max(0, min(len(others), SAMPLE - len(firsts))))
    return sorted({*firsts.values(), *extra})


def _category(path: str) -> str:
    for marker, category in (
        ("/.hoodie/.locks/", "lock"),
        ("/.hoodie/.heartbeat/", "heartbeat"),
        ("/.hoodie/.temp/", "marker"),
        ("/.hoodie/metadata/", "metadata table"),
        ("/.hoodie/timeline/history/", "history"),
        ("/.hoodie/timeline/", "instant"),
    ):
        if marker in path:
            return category
    return "data"


def _referenced(base: Path) -> set[str]:
    """Data files the completed instants of the active timeline name in their write stats."""
    timeline = HudiTable(str(base)).timeline
    paths: set[str] = set()
    for instant in timeline.completed():
        if instant.action in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT):
            for stat in timeline.commit_metadata(instant).write_stats():
                paths.add(stat.path)
                paths.update(stat.cdc_stats or {})
    return paths


def _leftovers(base: Path) -> list[str]:
    """Temporary files of atomic writes, stale lock files set aside, partial lock files."""
    return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.name.endswith(".tmp") or ".stale-" in p.name)


def assert_nothing_left_behind(base: Path, before: set[str]) -> None:
    """What a failed (or warned) operation may leave: pending instants with their files and
    markers, for the next run to finish or roll back; nothing else."""
    table = HudiTable(str(base))
    pending = {i.requested_time for i in table.timeline.pending()}
    assert not (base / LOCK_FILE).exists(), "the table lock stayed held"
    heartbeats = sorted(os.listdir(base / HEARTBEAT_DIR)) if (base / HEARTBEAT_DIR).exists() else []
    assert heartbeats == [], f"heartbeats left: {heartbeats}"
    markers = set(os.listdir(base / TEMP_DIR)) if (base / TEMP_DIR).exists() else set()
    assert markers <= pending, f"marker directories of no pending instant: {sorted(markers - pending)}"
    assert _leftovers(base) == []
    assert table.orphan_files() == [], f"orphans: {table.orphan_files()}"
    unreferenced = sorted(p for p in _data_files(base) - before - _referenced(base) if _instant_of(p) not in pending)
    assert unreferenced == [], f"files no instant references: {unreferenced}"
    validation = table.validate_metadata()
    assert validation.ok, f"metadata table out of step with storage: {validation}"


def _settle(base: Path, options: dict[str, str]) -> None:
    """Runs the services a failed run left pending (their next run finishes them)."""
    table = HudiTable(str(base))
    for instant in table.timeline.pending():
        action = table.timeline.pending_action(instant)
        if action is Action.COMPACTION:
            table.compact(instant.requested_time, options)
        elif action is Action.CLEAN:
            table.clean(options)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each scenario's table before the swept operation, built once."""
    built: dict[str, Path] = {}
    for scenario in SCENARIOS:
        base = tmp_path_factory.mktemp("seed") / scenario.name
        scenario.build(base)
        built[scenario.name] = base
    return built


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_full_disk_at_any_write_loses_nothing_and_leaves_nothing(
    scenario: Scenario, seeds: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = seeds[scenario.name]
    before_content = values(seed)
    before_files = _data_files(seed)
    after_content = _apply(before_content, scenario.batch())

    counted = tmp_path / "counted"
    shutil.copytree(seed, counted)
    with monkeypatch.context() as patch:
        full = inject(patch)
        result = scenario.run(counted)
    if scenario.service is not None:
        assert scenario.service in [s.action for s in result.table_services], "the swept service did not run"
    first = _commit_index(full.writes, counted) + 1 if scenario.service else 1

    for number in _sample(full.writes, first, scenario.name):
        base = tmp_path / f"n{number}"
        shutil.copytree(seed, base)
        with monkeypatch.context() as patch:
            full = inject(patch, fail_at=number, at_close=number % 2 == 0)
            try:
                outcome: WriteResult | HudiStorageError = scenario.run(base)
            except HudiStorageError as e:
                outcome = e
        where = f"write {number} ({full.failed})"
        assert full.failed is not None, f"{where}: the fault was never reached"
        failed_path = full.failed[1]
        if isinstance(outcome, HudiStorageError):
            assert ENOSPC_TEXT in str(outcome) and failed_path in str(outcome), f"{where}: {outcome}"
            assert values(base) == before_content, f"{where}: the failed write changed the table"
            expected = before_content
        else:
            warnings = outcome.service_warnings
            assert len(warnings) == 1 and failed_path in warnings[0] and ENOSPC_TEXT in warnings[0], (
                f"{where}: the failure after the commit is not reported: {warnings}"
            )
            assert values(base) == after_content, f"{where}: the committed write is not what reads"
            expected = after_content
        assert_nothing_left_behind(base, before_files)

        recovery = _batch([1, 2, 15], 200)
        HudiTable(str(base)).upsert(recovery, scenario.options)  # the space is back
        _settle(base, scenario.options)
        assert values(base) == _apply(expected, recovery), where
        assert_nothing_left_behind(base, before_files)
        assert_healthy(base)
        assert not (base / TEMP_DIR).exists() or os.listdir(base / TEMP_DIR) == []
        shutil.rmtree(base)


# ---- a real full disk ---------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[], Path]]:
    """A 6 MiB tmpfs at a fresh directory (root may mount one; otherwise the test is skipped)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount_point)],
        check=False,
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield lambda: mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def _fill(disk: Path, leave: int) -> Path:
    """Fills the disk with one file until the file system refuses more, then frees `leave` bytes."""
    path = disk / f"filler-{uuid.uuid4().hex}"
    chunk = b"\0" * (64 * 1024)
    with open(path, "wb", buffering=0) as sink:
        try:
            while True:
                sink.write(chunk)
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
    os.truncate(path, max(0, path.stat().st_size - leave))
    return path


BLOB_SCHEMA = SCHEMA.append(pa.field("blob", pa.string()))


def _incompressible(ids: range, v: int, size: int = 512) -> pa.Table:
    """Rows carrying `size` random bytes each (hex): compression cannot shrink them."""
    return pa.table(
        {
            "id": [f"k{i}" for i in ids],
            "v": [v] * len(ids),
            "p": [PARTITIONS[i % 3] for i in ids],
            "blob": [os.urandom(size).hex() for _ in ids],
        },
        schema=BLOB_SCHEMA,
    )


def test_a_log_append_on_a_full_tmpfs_is_rolled_back_and_the_next_write_succeeds_once_space_is_back(
    small_disk: Callable[[], Path],
) -> None:
    disk = small_disk()
    base = disk / "t"
    options = dict(BASE_OPTIONS)
    table = HudiTable.create(str(base), BLOB_SCHEMA, "full", ["id"], ["p"], None, "MERGE_ON_READ", options)
    table.insert(_incompressible(range(30), 0), options)
    before_content = values(base)
    before_files = _data_files(base)

    filler = _fill(disk, leave=256 * 1024)  # room for the lock, the instant and a log file; not three
    # Updates only: each partition's file group gets a log file of about 240 KiB.
    logs = rf"cannot write {re.escape(str(base))}/[abc]/\.[^/ ]+\.log\.[^/ ]+: .*{ENOSPC_TEXT}"
    with pytest.raises(HudiStorageError, match=logs):
        HudiTable(str(base)).upsert(_incompressible(range(30), 1, size=12 * 1024), options)
    assert values(base) == before_content
    assert_nothing_left_behind(base, before_files)
    assert not HudiTable(str(base)).timeline.pending(), "the rollback itself found no room"

    filler.unlink()  # space is back
    HudiTable(str(base)).upsert(_incompressible(range(0, 40), 2), options)
    assert values(base) == {f"k{i}": 2 for i in range(40)}
    assert_healthy(base)
