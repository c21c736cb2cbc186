"""Tables loaded once per scale and run (setup caching): read operations use them in place, write
operations on a private copy (`shutil.copytree`, not timed). Nothing here is timed.

=======================  ===================================================================
fixture                  contents
=======================  ===================================================================
``hudi_cow``             our Copy-on-Write table after `bulk_insert` of the base (defaults)
``hudi_mor``             our Merge-on-Read table after `bulk_insert` of the base (defaults)
``hudi_cow_committed``   ``hudi_cow`` plus one `upsert` of ``upsert_1pct`` (its last commit)
``hudi_mor_pending``     ``hudi_mor`` plus one `upsert` of ``upsert_1pct``: one pending 1% log
``delta``                delta-rs `write_deltalake` of the base, partitioned by city
``delta_cdf``            the same with the change data feed on, plus one merge of ``upsert_1pct``
``iceberg``              pyiceberg: a sqlite SQL catalog and a table partitioned by city, appended
``hudi_mor_bucket``      our Merge-on-Read table with the bucket index (4 buckets per partition), bulk loaded
``small``                our Copy-on-Write table of 1,000 rows and 5 commits (the open-table target)
``small_delta``          the same rows and batches as a Delta table (5 versions)
=======================  ===================================================================
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bench.suite import peers
from bench.suite.inputs import load_base, load_batch
from bench.suite.workspace import Workspace
from bench.trips import trips, updates
from hudi_core import HudiTable, WriteResult

SMALL_ROWS = 1_000
SMALL_COMMITS = 5
# The bucket index finds a key's file group by hashing it: no stored key is read. 4 buckets per
# partition keep files as large as the default layout's at 1M rows (Hudi's default of 256 would make
# 5,120 tiny file groups).
BUCKET_INDEX = {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "4"}


def written_base_files(result: WriteResult) -> list[str]:
    """The base files (relative to the table) a commit wrote."""
    return sorted(stat.path for stat in result.write_stats if stat.path.endswith(".parquet"))


def commit_facts(result: WriteResult) -> dict[str, Any]:
    return {
        "instant": result.instant_time,
        "completion": result.completion_time,
        "written_base_files": written_base_files(result),
    }


def _bulk_loaded(table_type: str) -> Callable[[Workspace], dict[str, Any]]:
    def build(space: Workspace) -> dict[str, Any]:
        base = load_base(space)
        name = "hudi_cow" if table_type == "COPY_ON_WRITE" else "hudi_mor"
        table = peers.create_hudi(space.fixture(name), base.schema, table_type)
        return commit_facts(table.bulk_insert(base))

    return build


def _bucket_loaded(space: Workspace) -> dict[str, Any]:
    base = load_base(space)
    table = peers.create_hudi(space.fixture("hudi_mor_bucket"), base.schema, "MERGE_ON_READ", BUCKET_INDEX)
    return commit_facts(table.bulk_insert(base, BUCKET_INDEX))


def _upserted(source: str, target: str) -> Callable[[Workspace], dict[str, Any]]:
    def build(space: Workspace) -> dict[str, Any]:
        shutil.copytree(space.fixture(source), space.fixture(target))
        loaded = space.facts()[source]
        result = HudiTable(str(space.fixture(target))).upsert(load_batch(space, "upsert_1pct"))
        return {"previous_completion": loaded["completion"], **commit_facts(result)}

    return build


def _delta(space: Workspace) -> dict[str, Any]:
    peers.delta_write(space.fixture("delta"), load_base(space))
    return {}


def _delta_cdf(space: Workspace) -> dict[str, Any]:
    path = space.fixture("delta_cdf")
    peers.delta_write(path, load_base(space), change_data_feed=True)
    peers.delta_merge(path, load_batch(space, "upsert_1pct"), peers.DELTA_PREDICATES["city+uuid"])
    return {"version": peers.delta_version(path)}


def _iceberg(space: Workspace) -> dict[str, Any]:
    base = load_base(space)
    table = peers.iceberg_create(space.fixture("iceberg"), base.schema)
    peers.iceberg_append(table, base)
    return {}


def _small(space: Workspace) -> dict[str, Any]:
    base = trips(SMALL_ROWS, seed=1)
    table = peers.create_hudi(space.fixture("small"), base.schema, "COPY_ON_WRITE")
    table.bulk_insert(base)
    for seed in range(SMALL_COMMITS - 1):
        table.upsert(updates(base, 0.05, 0.01, seed))
    return {}


def _small_delta(space: Workspace) -> dict[str, Any]:
    base = trips(SMALL_ROWS, seed=1)
    path = space.fixture("small_delta")
    peers.delta_write(path, base)
    for seed in range(SMALL_COMMITS - 1):
        peers.delta_merge(path, updates(base, 0.05, 0.01, seed), peers.DELTA_PREDICATES["city+uuid"])
    return {}


@dataclass(frozen=True)
class Fixture:
    name: str
    build: Callable[[Workspace], dict[str, Any]]
    needs: tuple[str, ...] = ()


FIXTURES: dict[str, Fixture] = {
    fixture.name: fixture
    for fixture in (
        Fixture("hudi_cow", _bulk_loaded("COPY_ON_WRITE")),
        Fixture("hudi_mor", _bulk_loaded("MERGE_ON_READ")),
        Fixture("hudi_cow_committed", _upserted("hudi_cow", "hudi_cow_committed"), needs=("hudi_cow",)),
        Fixture("hudi_mor_pending", _upserted("hudi_mor", "hudi_mor_pending"), needs=("hudi_mor",)),
        Fixture("hudi_mor_bucket", _bucket_loaded),
        Fixture("delta", _delta),
        Fixture("delta_cdf", _delta_cdf),
        Fixture("iceberg", _iceberg),
        Fixture("small", _small),
        Fixture("small_delta", _small_delta),
    )
}


def with_dependencies(names: Iterable[str]) -> list[str]:
    """`names` and the fixtures they are built from, in build order."""
    ordered: list[str] = []

    def add(name: str) -> None:
        for need in FIXTURES[name].needs:
            add(need)
        if name not in ordered:
            ordered.append(name)

    for name in names:
        add(name)
    return ordered


def build(space: Workspace, names: Iterable[str], log: Callable[[str], None] = print) -> None:
    """Builds the fixtures `names` need that this scale does not have yet."""
    for name in with_dependencies(names):
        if space.fixture(name).exists() and name in space.facts():
            continue
        shutil.rmtree(space.fixture(name), ignore_errors=True)
        space.fixture(name).parent.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        facts = FIXTURES[name].build(space)
        space.record_facts(name, facts)
        log(f"  fixture {name:<20} {time.perf_counter() - start:7.1f} s")
