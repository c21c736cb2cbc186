"""Benchmark: file counts and read times of a Merge-on-Read table before and after its services.

Run: `python -m bench.services [--rows N] [--batches B] [--delta-commits D]`.

Loads N trips rows (:func:`bench.trips.trips`, partitioned by city) as B bulk inserts (so every
partition holds B small base files), applies D upserts of 1% of the keys (plus 0.1% new ones) as
deltacommits (log files), then prints the base and log file counts and the snapshot read time (best
of 3), the time of each service and the same figures after compaction and after clustering
(sort by `ts`, z-order on `ts,fare`). The raw limit is pyarrow reading the same base files.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

from bench.timing import best
from bench.trips import trips, updates
from hudi_core import HudiTable, metrics

NO_INLINE = {"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def report(label: str, table: HudiTable) -> None:
    slices = table.file_slices()
    base_files = sum(1 for s in slices if s.base_file)
    log_files = sum(len(s.log_files) for s in slices)
    with metrics.capture() as io:
        seconds, rows = best(3, table.read)
    paths = [f"{table.storage.base_path}/{s.base_file_path}" for s in slices if s.base_file_path]
    raw, _ = best(3, lambda: pa.concat_tables([pq.read_table(p) for p in paths]))
    print(
        f"  {label:<18} {base_files:>5} base files {log_files:>5} log files   snapshot {seconds:6.2f} s "
        f"({rows.num_rows:,} rows; pyarrow over the base files {raw:5.2f} s, ratio {seconds / raw:4.1f}x; "
        f"{(io.base_files_read + io.log_files_read) // 3} files opened)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--delta-commits", type=int, default=10)
    args = parser.parse_args()
    base = trips(args.rows, 42)
    with tempfile.TemporaryDirectory() as scratch:
        table = HudiTable.create(
            f"{scratch}/trips", base.schema, "trips", ["uuid"], ["city"], ["ts"], "MERGE_ON_READ", NO_INLINE
        )
        step = -(-args.rows // args.batches)
        started = time.perf_counter()
        for first in range(0, args.rows, step):
            table.bulk_insert(base.slice(first, step), NO_INLINE)
        load = time.perf_counter() - started
        started = time.perf_counter()
        for seed in range(args.delta_commits):
            table.upsert(updates(base, 0.01, 0.001, seed), NO_INLINE)
        upserts = time.perf_counter() - started
        print(
            f"MoR trips: {args.rows:,} rows in {args.batches} bulk inserts ({load:.1f} s), "
            f"{args.delta_commits} deltacommits of 1% updates + 0.1% inserts ({upserts:.1f} s)"
        )
        report("before services", table)
        seconds, result = best(1, lambda: table.compact(options=NO_INLINE))
        print(f"  compaction: {seconds:.1f} s, {dict(result.counts)}")
        report("after compaction", table)
        cluster_options = {
            **NO_INLINE,
            "hoodie.clustering.plan.strategy.sort.columns": "ts,fare",
            "hoodie.layout.optimize.strategy": "z-order",
        }
        seconds, result = best(1, lambda: table.cluster(options=cluster_options))
        print(f"  clustering: {seconds:.1f} s, {dict(result.counts)}")
        report("after clustering", table)


if __name__ == "__main__":
    main()
