"""The data every system gets: a seeded trips base and the batches applied to it.

The base is :func:`bench.trips.trips` (seed 42): a uuid record key, an int64 `ts` ordering field, 20
columns of about 200 bytes per row in memory, 20 `city` partitions. The batches:

=====================  =========================================================================
batch                  contents
=====================  =========================================================================
``upsert_1pct``        1% of the keys updated (uniformly spread) plus 1% new keys
``upsert_10pct``       10% of the keys updated (uniformly spread) plus 1% new keys
``upsert_recent``      1% of the keys updated plus 1% new keys, all in the 2 "recent" partitions
``delete_0p5pct``      0.5% of the keys (uniformly spread): `uuid` and `city` only
=====================  =========================================================================

Which partitions are "recent": the trips generator spreads pickup times evenly over every city, so
no city is newer than another by its data. We *designate* the first two cities of the generator's
order (:data:`RECENT_CITIES`, san_francisco and sao_paulo) as the recent ones, the way late
corrections and new trips land in the partitions a pipeline is currently writing.
:func:`bench.trips.updates` with ``concentrated_partitions=2`` draws updated and new rows from those
two only. Uniform random keys touch every file, so Copy-on-Write rewrites the whole table for
everybody; concentrated updates touch 2 of 20 partitions, which is where file-group targeting wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bench.suite.workspace import Workspace
from bench.trips import city_names, trips, updates

BASE_SEED = 42
RECENT_PARTITIONS = 2
RECENT_CITIES: tuple[str, ...] = tuple(city_names(20)[:RECENT_PARTITIONS])
BASE_FILE_ROWS = 500_000  # several source files, so that Spark reads the base in parallel
FILTER_CITY = "tokyo"  # the partition of the one-partition filtered read
FARE_RANGE = (50.0, 60.0)  # the `fare` range of the filtered read (about 1% of the rows)


@dataclass(frozen=True)
class BatchSpec:
    """An upsert batch drawn from the base by :func:`bench.trips.updates`, or a delete batch."""

    name: str
    fraction: float
    new_fraction: float
    seed: int
    concentrated_partitions: int | None = None
    delete: bool = False


BATCHES: dict[str, BatchSpec] = {
    spec.name: spec
    for spec in (
        BatchSpec("upsert_1pct", 0.01, 0.01, 7),
        BatchSpec("upsert_10pct", 0.10, 0.01, 8),
        BatchSpec("upsert_recent", 0.01, 0.01, 9, concentrated_partitions=RECENT_PARTITIONS),
        BatchSpec("delete_0p5pct", 0.005, 0.0, 10, delete=True),
    )
}


def delete_keys(base: pa.Table, fraction: float, seed: int) -> pa.Table:
    """`fraction` of the base's keys, uniformly drawn: the record key and partition columns."""
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(base.num_rows, size=round(fraction * base.num_rows), replace=False))
    return base.select(["uuid", "city"]).take(pa.array(chosen))


def generate(space: Workspace) -> None:
    """Writes the base and every batch of :data:`BATCHES` under `space.input_dir` (skipped if present)."""
    done = space.input_dir / "complete"
    if done.exists():
        return
    base = trips(space.rows, seed=BASE_SEED)
    space.base_dir.mkdir(parents=True, exist_ok=True)
    for index, start in enumerate(range(0, base.num_rows, BASE_FILE_ROWS)):
        # snappy: small on disk, and loading it stays a fraction of any operation's time
        pq.write_table(base.slice(start, BASE_FILE_ROWS), space.base_dir / f"part-{index:05d}.parquet")
    for spec in BATCHES.values():
        if spec.delete:
            batch = delete_keys(base, spec.fraction, spec.seed)
        else:
            batch = updates(base, spec.fraction, spec.new_fraction, spec.seed, spec.concentrated_partitions)
        pq.write_table(batch, space.batch_path(spec.name))
    done.touch()


def load_base(space: Workspace) -> pa.Table:
    """The base rows, in generation order, as one table."""
    files = sorted(str(path) for path in space.base_dir.glob("part-*.parquet"))
    return ds.dataset(files, format="parquet").to_table().combine_chunks()


def load_batch(space: Workspace, name: str) -> pa.Table:
    return pq.read_table(space.batch_path(name)).combine_chunks()
