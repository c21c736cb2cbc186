"""A bounded soak: two writers and a service runner on one Merge-on-Read table under optimistic
concurrency with the record-key check, with the metadata table keeping files, column stats and the
record index, for 300+ commits. Between rounds and at the end: the metadata table agrees with
storage (validate_metadata), nothing is pending or orphaned, and our reader and hudi-rs both equal
a model that replays every acknowledged write in completion order.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable, WriteConflictError, WriteResult
from hudi_core.timeline.instant import Action
from tests import hudi_rs
from tests.concurrency.options import occ
from tests.invariants import assert_healthy
from tests.model import TRIPS_SCHEMA, TableModel, canonical, table_rows

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
CITIES = ("sf", "nyc", "la", "chi")
OPTIONS = occ(
    "InProcessLockProvider",
    **{
        "hoodie.client.heartbeat.interval_in_ms": "1000",
        "hoodie.index.type": "RECORD_INDEX",
        "hoodie.metadata.record.index.enable": "true",
        "hoodie.metadata.index.column.stats.enable": "true",
        "hoodie.metadata.compact.max.delta.commits": "8",
        "hoodie.parquet.small.file.limit": "2000",  # small inserts go to existing groups, bigger ones start new
        "hoodie.clean.commits.retained": "4",
        "hoodie.keep.min.commits": "6",
        "hoodie.keep.max.commits": "9",
        "hoodie.log.compaction.blocks.threshold": "3",
        "hoodie.clustering.plan.strategy.sort.columns": "fare",
        "hoodie.clustering.plan.strategy.max.num.groups": "2",  # small plans: writers mostly miss them
        # Both writers may upsert a key a delete removed: concurrent inserts of one new key land in
        # different file groups, and only the key check makes the later one retry (Hudi's OCC alone
        # stores the key twice).
        "hoodie.write.concurrency.check.key.overlap": "true",
    },
)
ROUNDS = 3
COMMITS_PER_WRITER_PER_ROUND = 45  # 2 writers x 45 x 3 rounds = 270 writes, plus the service commits (300+ in all)


@dataclass
class SoakLog:
    """What happened, shared by the threads (guarded by `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[tuple[str, str, str, list[dict[str, Any]]]] = field(default_factory=list)  # op, instant, done
    aborted: int = 0
    services: Counter[str] = field(default_factory=Counter)
    keys: list[str] = field(default_factory=list)
    clock: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    errors: list[BaseException] = field(default_factory=list)

    def thread(self, target: Callable[..., None], *args: object) -> threading.Thread:
        """A thread running `target(*args)` whose exception, if any, is kept for the test to raise."""

        def run() -> None:
            try:
                target(*args)
            except BaseException as e:
                with self.lock:
                    self.errors.append(e)

        return threading.Thread(target=run)


def _write(log: SoakLog, operation: str, rows: list[dict[str, Any]], action: Callable[[], WriteResult]) -> None:
    """Runs a write, retrying lost conflicts (a rejected attempt must leave nothing behind)."""
    while True:
        try:
            result = action()
        except WriteConflictError:
            with log.lock:
                log.aborted += 1
            continue
        assert result.completion_time is not None
        with log.lock:
            log.acknowledged.append((operation, result.instant_time, result.completion_time, rows))
            if operation == "upsert":
                log.keys.extend(r["id"] for r in rows)
        return


def _writer(path: Path, name: str, seed: int, log: SoakLog, commits: int) -> None:
    rng = random.Random(seed)
    table = HudiTable(str(path), OPTIONS)
    for n in range(commits):
        with log.lock:
            known = list(dict.fromkeys(log.keys))
            stamps = [next(log.clock) for _ in range(12)]
        if n % 10 == 9 and known:  # a delete of a few stored keys
            ids = rng.sample(known, min(3, len(known)))
            rows = [{"id": i, "ts": stamps.pop(), "city": i.split("-")[0], "fare": 0.0} for i in ids]
            _write(log, "delete", rows, lambda rows=rows: table.delete(pa.Table.from_pylist(rows, schema=SCHEMA)))
            continue
        updated = rng.sample(known, min(len(known), rng.randint(0, 6)))
        fresh = [f"{rng.choice(CITIES)}-{name}{n:03d}{i}" for i in range(rng.randint(1, 5))]
        rows = [
            {"id": i, "ts": stamps.pop(), "city": i.split("-")[0], "fare": round(rng.uniform(1, 100), 2)}
            for i in [*updated, *fresh]
        ]
        _write(log, "upsert", rows, lambda rows=rows: table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA)))


def _services(path: Path, log: SoakLog, stop: threading.Event) -> None:
    table = HudiTable(str(path), OPTIONS)
    services: list[tuple[str, Callable[[], object]]] = [
        ("compaction", lambda: table.compact(None, OPTIONS)),
        ("log_compaction", lambda: table.log_compact(None, OPTIONS)),
        ("clustering", lambda: table.cluster(None, OPTIONS)),
        ("clean", lambda: table.clean(OPTIONS)),
        ("archive", lambda: table.archive(OPTIONS)),
    ]
    for name, run in itertools.cycle(services):
        if stop.wait(0.2):
            return
        try:
            done = run()
        except WriteConflictError:
            continue  # a plan that lost to a writer is rolled back; the next turn plans again
        if done is not None:
            with log.lock:
                log.services[name] += 1


def _model(log: SoakLog) -> TableModel:
    model = TableModel("id", lambda row: row["city"], "ts")
    for operation, instant, completion, rows in sorted(log.acknowledged, key=lambda a: a[2]):
        getattr(model, operation)(rows, instant, completion)
    return model


@pytest.mark.slow
def test_soak_two_writers_and_services_keep_metadata_and_content_right(tmp_path: Path) -> None:
    path = tmp_path / "t"
    HudiTable.create(str(path), SCHEMA, "soak", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OPTIONS)
    log = SoakLog()
    for round_number in range(ROUNDS):
        stop = threading.Event()
        writers = [
            log.thread(_writer, path, name, 100 * round_number + i, log, COMMITS_PER_WRITER_PER_ROUND)
            for i, name in enumerate(("w0", "w1"))
        ]
        services = log.thread(_services, path, log, stop)
        for thread in (*writers, services):
            thread.start()
        for thread in writers:
            thread.join(timeout=600)
        stop.set()
        services.join(timeout=600)
        if log.errors:
            raise log.errors[0]

        assert_healthy(path)
        expected = canonical(_model(log).snapshot(COLUMNS))
        assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == expected, f"round {round_number}"
        assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, f"round {round_number}"

    timeline = HudiTable(str(path)).timeline
    commits = len(timeline.archived_data_instants()) + len(timeline.completed_data_instants())
    print(
        f"soak: {len(log.acknowledged)} writes acknowledged, {log.aborted} aborted and retried, "
        f"services {dict(log.services)}, {commits} data instants committed"
    )
    assert len(log.acknowledged) == ROUNDS * 2 * COMMITS_PER_WRITER_PER_ROUND
    assert commits >= 300
    # Writers clean inline after each commit, so the service thread's clean may find nothing left to
    # delete on a busy machine: count the table's completed cleans, whoever ran them.
    cleans = [i for i in timeline.completed() if i.action is Action.CLEAN]
    cleans += [a for a in timeline.archived() if a.action == "clean"]
    assert log.services["compaction"] and log.services["archive"] and cleans
