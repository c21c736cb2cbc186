"""Benchmark: an incremental read of a 1% commit next to a full snapshot read, and its CDC read.

Run: `python -m bench.incremental [--rows N] [--table-type COPY_ON_WRITE|MERGE_ON_READ]`.

Loads N trips rows (:func:`bench.trips.trips`, partitioned by city) with `bulk_insert`, upserts 1% of
the keys concentrated in one partition (as a day's late corrections would be), then times (best of
3) the snapshot read, the incremental read of the upsert's window, and the CDC read of that window,
printing the ratios and the files each one opened (`hudi_core.metrics`).
"""

from __future__ import annotations

import argparse
import tempfile

from bench.timing import best
from bench.trips import trips, updates
from hudi_core import HudiTable, metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--table-type", default="COPY_ON_WRITE", choices=["COPY_ON_WRITE", "MERGE_ON_READ"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    base = trips(args.rows, 42)
    batch = updates(base, 0.01, 0.0, 7, concentrated_partitions=1)
    with tempfile.TemporaryDirectory() as scratch:
        table = HudiTable.create(f"{scratch}/trips", base.schema, "trips", ["uuid"], ["city"], ["ts"], args.table_type)
        load, first = best(1, lambda: table.bulk_insert(base))
        upsert, second = best(1, lambda: table.upsert(batch))
        print(
            f"{args.table_type}: {args.rows:,} rows loaded in {load:.2f} s; "
            f"upsert of {batch.num_rows:,} rows in {upsert:.2f} s"
        )
        with metrics.capture() as full_io:
            snapshot_s, snapshot = best(args.repeat, table.read)
        window = (first.completion_time, second.completion_time)
        with metrics.capture() as incr_io:
            incremental_s, incremental = best(args.repeat, lambda: table.read_incremental(*window))
        with metrics.capture() as cdc_io:
            cdc_s, cdc = best(args.repeat, lambda: table.read_cdc(*window))
        for name, seconds, rows, io in (
            ("snapshot", snapshot_s, snapshot.num_rows, full_io),
            ("incremental (1% commit)", incremental_s, incremental.num_rows, incr_io),
            ("cdc (1% commit)", cdc_s, cdc.num_rows, cdc_io),
        ):
            files = (io.base_files_read + io.log_files_read) // args.repeat
            print(
                f"  {name:<24} {seconds:7.3f} s  {rows:>10,} rows  {files:>4} files opened per read  "
                f"{snapshot_s / seconds:6.1f}x faster than the snapshot"
            )


if __name__ == "__main__":
    main()
