"""Benchmark: what the metadata table buys -- planning a filtered read, and tagging an upsert.

Run: `python -m bench.metadata [--files N] [--rows N] [--skip-planning] [--skip-tagging]`.

1. Planning (`--files`, default 10,000): a Copy-on-Write table of N small base files (100 partitions
   x N/100 bulk_insert commits, one file per partition and commit) written once with the metadata
   table and `column_stats` + `partition_stats`, and once with `hoodie.metadata.enable=false`. A query
   filtering `fare` to the values of one commit is planned (`HudiTable.plan`) and then read; printed:
   planning time, files opened while reading (Parquet footers parsed), partitions listed on storage,
   metadata-table files read, file slices and partitions pruned. Without the metadata table every
   partition is listed and every file's footer is opened for its statistics; with it, neither.
2. Tagging (`--rows`, default 5,000,000 trips rows, 20 partitions): an upsert of 1% uniformly spread
   updates into fresh copies of one loaded table, tagged with SIMPLE, BLOOM, RECORD_INDEX (the table
   keeps a record index) and BUCKET (a table loaded with the bucket index). Only the time spent in the
   tagging step (`hudi_core.index.tagger.tag`) is reported, with the whole upsert for scale, and the
   raw-pyarrow limit of SIMPLE tagging measured in the same run: reading the `_hoodie_record_key`
   column of every base file.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import hudi_core.write.client as write_client
from bench.trips import trips, updates
from hudi_core import HudiTable, metrics

PLANNING_PARTITIONS = 100
METADATA_ON = {
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.index.partition.stats.enable": "true",
}
METADATA_OFF = {"hoodie.metadata.enable": "false"}
KEY_OPTIONS = {
    "hoodie.datasource.write.recordkey.field": "uuid",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
}


# ---- 1. planning ------------------------------------------------------------------------------


def _planning_batch(commit: int) -> pa.Table:
    ids = np.arange(PLANNING_PARTITIONS) + commit * PLANNING_PARTITIONS
    return pa.table(
        {
            "id": pa.array([f"k{i:08d}" for i in ids]),
            "part": pa.array([f"p{i % PLANNING_PARTITIONS:03d}" for i in ids]),
            "ts": pa.array(np.full(len(ids), commit, dtype=np.int64)),
            "fare": pa.array(commit * 1000.0 + np.arange(len(ids), dtype=np.float64)),
        }
    )


def _planning_table(path: Path, files: int, options: dict[str, str]) -> None:
    table = HudiTable.create(str(path), _planning_batch(0).schema, "plan_bench", ["id"], ["part"], ["ts"])
    write = {**options, "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
    for commit in range(files // PLANNING_PARTITIONS):
        table.bulk_insert(_planning_batch(commit), write)


def bench_planning(files: int, root: Path) -> None:
    print(f"== planning a filtered read on a {files:,}-file table ({PLANNING_PARTITIONS} partitions)")
    commits = files // PLANNING_PARTITIONS
    target = commits // 2
    filters = [("fare", ">=", target * 1000.0), ("fare", "<", target * 1000.0 + 10)]
    for label, options in (("with the metadata table", METADATA_ON), ("without (storage listing)", METADATA_OFF)):
        path = root / label.split()[0]
        started = time.perf_counter()
        _planning_table(path, files, options)
        print(f"  [{label}] wrote {commits} commits in {time.perf_counter() - started:.1f} s")
        table = HudiTable(str(path), options)
        with metrics.capture() as planned:
            started = time.perf_counter()
            plan = table.plan(filters=filters)
            planning = time.perf_counter() - started
        with metrics.capture() as read:
            started = time.perf_counter()
            rows = table.read(filters=filters).num_rows
            reading = time.perf_counter() - started
        print(
            f"  [{label}] planning {planning:.3f} s ({len(plan.slices)} slices planned, "
            f"{planned.partitions_listed} partitions listed, {planned.metadata_files_read} metadata files read, "
            f"{planned.files_pruned} slices and {planned.partitions_pruned} partitions pruned); "
            f"read {reading:.3f} s: {rows} rows, {read.footers_read} files opened, "
            f"{read.base_files_read} base files read"
        )


# ---- 2. tagging -------------------------------------------------------------------------------


@contextmanager
def _timed_tagging() -> Iterator[list[float]]:
    """Times every call of the write client's tagging step."""
    spent: list[float] = []
    original: Callable[..., Any] = vars(write_client)["tag"]

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    vars(write_client)["tag"] = timed
    try:
        yield spent
    finally:
        vars(write_client)["tag"] = original


def _key_read_limit(path: Path) -> float:
    files = [p for p in path.rglob("*.parquet") if ".hoodie" not in p.parts]
    latest: dict[str, Path] = {}
    for file in sorted(files, key=lambda p: p.name.rsplit("_", 1)[-1]):
        latest[file.name.split("_", 1)[0]] = file
    started = time.perf_counter()
    for file in latest.values():
        pq.read_table(file, columns=["_hoodie_record_key"])
    return time.perf_counter() - started


def bench_tagging(rows: int, root: Path) -> None:
    print(f"== tagging an upsert of 1% into {rows:,} rows (CoW, 20 partitions)")
    data = trips(rows)
    batch = updates(data, 0.01, 0.0, 7)
    loaded: dict[str, Path] = {}
    for label, options in (
        ("plain", {"hoodie.metadata.record.index.enable": "true"}),
        ("bucket", {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "8"}),
    ):
        path = root / f"load-{label}"
        started = time.perf_counter()
        HudiTable.create(str(path), data.schema, "tag_bench", ["uuid"], ["city"], ["ts"])
        HudiTable(str(path)).bulk_insert(data, {**KEY_OPTIONS, **options})
        print(f"  loaded the {label} table in {time.perf_counter() - started:.1f} s")
        loaded[label] = path
    limit = _key_read_limit(loaded["plain"])
    print(f"  raw limit: pyarrow reading every base file's record keys {limit:.2f} s")
    for index in ("SIMPLE", "BLOOM", "RECORD_INDEX", "BUCKET"):
        source = loaded["bucket" if index == "BUCKET" else "plain"]
        copy = root / f"run-{index}"
        shutil.copytree(source, copy)
        options = {**KEY_OPTIONS, "hoodie.index.type": index}
        if index == "BUCKET":
            options["hoodie.bucket.index.num.buckets"] = "8"
        with _timed_tagging() as spent:
            started = time.perf_counter()
            result = HudiTable(str(copy)).upsert(batch, options)
            total = time.perf_counter() - started
        tagging = sum(spent)
        print(
            f"  {index:<12} tagging {tagging:6.2f} s ({tagging / limit:5.2f}x the raw key read); "
            f"whole upsert {total:6.2f} s, {result.updates:,} updates"
        )
        shutil.rmtree(copy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--skip-planning", action="store_true")
    parser.add_argument("--skip-tagging", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-metadata-") as root:
        if not args.skip_planning:
            bench_planning(args.files, Path(root))
        if not args.skip_tagging:
            bench_tagging(args.rows, Path(root))


if __name__ == "__main__":
    main()
