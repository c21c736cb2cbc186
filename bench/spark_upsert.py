"""Benchmark: the Spark engine next to the Arrow engine — bulk insert, 1% upsert, count, services.

Run: `python -m bench.spark_upsert [--rows N] [--table-type T] [--master local[2] | --cluster] [--skip-arrow]`.

1. Generates N trips rows (:func:`bench.trips.trips`, in chunks of 1M with seeds 0, 1, ...) as
   Parquet source files, and two 1% update batches (`updates(chunk, 0.01, 0.0, seed)` of every
   chunk, no new keys) likewise; generation is not timed.
2. Spark engine (`hudi_core.spark.write` on `spark.read.parquet(source)`, session on `--master`):
   bulk_insert of the N rows, upserts of the two 1% batches (the session's first upsert pays its
   warm-up; the second is what a pipeline upserting batch after batch sees), a `count()` of the table through
   `spark.read.format("hudi")`, then the table services on Spark: compaction (Merge-on-Read) and
   clustering (`hoodie.clustering.plan.strategy.small.file.limit` above every file: the table's
   files are regrouped).
   `--cluster` runs the session on a standalone cluster of two single-core workers on 127.0.0.1
   (`tests/spark/standalone_cluster.py`) and prints how many tasks each executor ran per phase.
3. Arrow engine (`HudiTable.bulk_insert` / `upsert` twice / `read().num_rows` / `compact` / `cluster`,
   same data and options); skipped with `--skip-arrow` (the 50M run does not fit one process's
   memory by design).
4. The raw limits in the same run: `spark.read.parquet(source).count()`, Spark writing the source
   rows by city as zstd Parquet (its JVM writer, and the same with every row passed through a
   Python `mapInArrow`, as our tasks receive them), Spark joining the update batch's keys with
   every stored key (its JVM reading the base files' key columns: what any upsert run on executors
   must at least do before it writes), and pyarrow reading and rewriting exactly the base files the
   Spark upsert rewrote (CoW only), in our default codec: in process on two threads, and in Spark's
   Python workers with a task per file (what a rewrite run on executors must at least take); and
   Spark counting the update batch's rows per city (the workload profile every Spark upsert,
   Apache Hudi's too, computes before it writes).

Free page reporting is held for the run, as in the full bench (`bench/suite/page_reporting.py`): the
Arrow engine runs after the Spark session in the same process, on memory the JVM just freed.

Peak memory is sampled every 100 ms per phase: the driver JVM's resident set (in local mode it
also runs the executors' JVM side) and the driver Python process's; Python workers are excluded.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

import psutil
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import functions as sf

from bench.suite.page_reporting import held_page_reporting
from bench.trips import trips, updates
from hudi_core import HudiTable
from hudi_core import spark as hudi_spark

CHUNK_ROWS = 1_000_000
SPARK_RUNNING = [False]
RAW_CODEC = {"compression": "zstd", "compression_level": 1}  # our default base-file codec
CLUSTER_ALL = {"hoodie.clustering.plan.strategy.small.file.limit": str(2**40)}


def options(table_type: str, operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "trips",
        "hoodie.datasource.write.recordkey.field": "uuid",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.operation": operation,
    }


def generate(root: Path, rows: int) -> tuple[Path, Path, Path]:
    """Parquet source files for the base rows and two batches of 1% updates."""
    base_dir, update_dir, next_dir = root / "source_base", root / "source_updates", root / "source_updates_next"
    for directory in (base_dir, update_dir, next_dir):
        directory.mkdir()
    for index, start in enumerate(range(0, rows, CHUNK_ROWS)):
        chunk = trips(min(CHUNK_ROWS, rows - start), seed=index)
        pq.write_table(chunk, base_dir / f"part-{index:04d}.parquet")
        pq.write_table(updates(chunk, 0.01, 0.0, seed=1000 + index), update_dir / f"part-{index:04d}.parquet")
        pq.write_table(updates(chunk, 0.01, 0.0, seed=2000 + index), next_dir / f"part-{index:04d}.parquet")
    return base_dir, update_dir, next_dir


class PeakMemory:
    """Samples resident memory of the given processes while a phase runs."""

    def __init__(self, processes: Callable[[], dict[str, psutil.Process]]) -> None:
        self._processes = processes
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()

    def _sample(self) -> None:
        while not self._stop.is_set():
            for name, process in self._processes().items():
                with suppress(psutil.Error):
                    self.peaks[name] = max(self.peaks.get(name, 0), process.memory_info().rss)
            self._stop.wait(0.1)

    @contextmanager
    def watching(self) -> Iterator[PeakMemory]:
        thread = threading.Thread(target=self._sample, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join()


def driver_processes() -> dict[str, psutil.Process]:
    me = psutil.Process()
    found = {"driver python": me}
    if not SPARK_RUNNING[0]:
        return found  # the stopped session's JVM lingers but does no work
    for child in me.children(recursive=True):
        try:
            if "java" in child.name():
                found["driver JVM"] = child
        except psutil.Error:
            continue
    return found


def phase(label: str, action: Callable[[], Any], results: list[tuple[str, float, dict[str, int]]]) -> Any:
    monitor = PeakMemory(driver_processes)
    with monitor.watching():
        start = time.perf_counter()
        value = action()
        elapsed = time.perf_counter() - start
    results.append((label, elapsed, monitor.peaks))
    memory = "  ".join(f"{name} peak {peak / 2**30:.2f} GiB" for name, peak in sorted(monitor.peaks.items()))
    print(f"  {label:<38} {elapsed:9.1f} s   {memory}", flush=True)
    return value


def raw_rewrite_seconds(table_dir: Path, relative_files: list[str], threads: int = 2) -> float:
    """pyarrow reading and writing back the given base files on `threads` threads (as many as
    Spark's local cores): the floor of a Copy-on-Write rewrite."""

    def rewrite(relative: str) -> None:
        table = pq.read_table(table_dir / relative)
        pq.write_table(table, table_dir / f"{relative}.raw", **RAW_CODEC)
        (table_dir / f"{relative}.raw").unlink()

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(rewrite, relative_files))
    return time.perf_counter() - start


def raw_rewrite_in_tasks_seconds(spark: Any, table_dir: Path, relative_files: list[str]) -> float:
    """The same rewrite run by Spark's Python workers, one task per file (the best balance any
    task layout can have): the floor of a Copy-on-Write rewrite run on executors."""
    root = str(table_dir)

    def rewrite_in_task(files: Iterator[str]) -> Iterator[int]:
        for relative in files:
            source = f"{root}/{relative}"
            pq.write_table(pq.read_table(source), f"{source}.raw", **RAW_CODEC)
            Path(f"{source}.raw").unlink()
            yield 1

    start = time.perf_counter()
    spark.sparkContext.parallelize(relative_files, len(relative_files)).mapPartitions(rewrite_in_task).count()
    return time.perf_counter() - start


def raw_bulk_seconds(source_dir: Path, target_dir: Path, threads: int = 2) -> float:
    """pyarrow reading the source files and writing them as zstd Parquet: the floor of a bulk insert."""
    target_dir.mkdir()

    def copy(source: Path) -> None:
        pq.write_table(pq.read_table(source), target_dir / source.name, **RAW_CODEC)

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(copy, sorted(source_dir.glob("*.parquet"))))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--table-type", default="COPY_ON_WRITE", choices=["COPY_ON_WRITE", "MERGE_ON_READ"])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--cluster", action="store_true", help="a standalone cluster of 2 single-core workers")
    parser.add_argument("--executor-memory", default="3g", help="--cluster: each executor's memory")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--skip-arrow", action="store_true")
    parser.add_argument("--root", type=Path, default=None, help="work directory (default: a temp dir)")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="bench-spark-", dir=args.root))
    try:
        with ExitStack() as stack:
            reporting = stack.enter_context(held_page_reporting(lambda line: print(line, flush=True)))
            print(f"freed memory: free page reporting {reporting}", flush=True)
            master, conf = args.master, {"spark.driver.memory": args.driver_memory}
            if args.cluster:
                from tests.spark.standalone_cluster import standalone_cluster  # noqa: PLC0415 - bench tooling

                memory = f"{int(args.executor_memory.rstrip('g')) + 1}g"
                cluster = stack.enter_context(standalone_cluster(root / "cluster", 2, memory, args.executor_memory))
                master, conf = cluster.master_url, {**conf, **cluster.session_conf()}
            run(args, root, master, conf)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(args: argparse.Namespace, root: Path, master: str, conf: dict[str, str]) -> None:
    results: list[tuple[str, float, dict[str, int]]] = []
    print(f"{args.rows:,} rows, {args.table_type}, Spark {master}; work dir {root}", flush=True)
    start = time.perf_counter()
    base_dir, update_dir, next_dir = generate(root, args.rows)
    print(f"  generated sources in {time.perf_counter() - start:.1f} s (not part of any figure)", flush=True)

    spark = hudi_spark.session(master, **conf)
    spark.sparkContext.setLogLevel("ERROR")
    SPARK_RUNNING[0] = True
    spark_table = str(root / "spark_table")
    tasks = ExecutorTasks(spark) if args.cluster else None
    print("Spark engine:")

    def spark_phase(label: str, action: Callable[[], Any]) -> Any:
        value = phase(label, action, results)
        if tasks is not None:
            print(f"    tasks per executor: {tasks.since_last()}", flush=True)
        return value

    raw_count = spark_phase("raw: spark.read.parquet(...).count()", lambda: spark.read.parquet(str(base_dir)).count())
    spark_raw = str(root / "spark_raw")
    spark_phase(
        "raw: Spark writing the rows by city, zstd",
        lambda: (
            spark.read.parquet(str(base_dir))
            .write.partitionBy("city")
            .option("compression", "zstd")
            .parquet(f"{spark_raw}/plain")
        ),
    )
    spark_phase(
        "raw: the same through a Python mapInArrow",
        lambda: (
            spark.read.parquet(str(base_dir))
            .mapInArrow(passed_through, spark.read.parquet(str(base_dir)).schema)
            .write.partitionBy("city")
            .option("compression", "zstd")
            .parquet(f"{spark_raw}/python")
        ),
    )
    spark_phase(
        "bulk_insert",
        lambda: hudi_spark.write(
            spark.read.parquet(str(base_dir)), spark_table, options(args.table_type, "bulk_insert")
        ),
    )
    # The floor of any upsert run by Spark's executors: finding which incoming keys the table holds.
    # Spark's own JVM reads the stored keys (vectorized Parquet, no Python) and joins them.
    stored = [f"{spark_table}/{s.base_file_path}" for s in HudiTable(spark_table).file_slices() if s.base_file_path]
    spark_phase(
        "raw: Spark joining the batch's keys with the stored ones",
        lambda: (
            spark.read.parquet(str(update_dir))
            .select("uuid", "city")
            .join(
                spark.read.parquet(*stored).select(
                    sf.col("_hoodie_record_key").alias("uuid"), sf.col("_hoodie_partition_path").alias("city")
                ),
                ["uuid", "city"],
            )
            .count()
        ),
    )
    key_floor = results[-1][1]
    # What any Spark upsert learns before it writes (Apache Hudi's workload profile): the batch's
    # rows per partition, counted by Spark's JVM alone.
    spark_phase(
        "raw: Spark counting the batch's rows per city",
        lambda: spark.read.parquet(str(update_dir)).groupBy("city").count().collect(),
    )
    profile_floor = results[-1][1]
    upsert = spark_phase(
        "upsert 1%",
        lambda: hudi_spark.write(spark.read.parquet(str(update_dir)), spark_table, options(args.table_type, "upsert")),
    )
    spark_upsert = results[-1][1]
    # The session's second upsert: the code paths and JIT-compiled plans are warm, as in a pipeline
    # that upserts batch after batch (the first pays about a second of warm-up).
    next_upsert = spark_phase(
        "upsert 1% again (session's second)",
        lambda: hudi_spark.write(spark.read.parquet(str(next_dir)), spark_table, options(args.table_type, "upsert")),
    )
    spark_next = results[-1][1]
    count = spark_phase("count (snapshot)", lambda: spark.read.format("hudi").load(spark_table).count())
    assert count == raw_count == args.rows, (count, raw_count)
    print(f"  upsert: {upsert.updates:,} updates, {upsert.inserts:,} inserts, {upsert.files_written} files written")
    if args.table_type == "MERGE_ON_READ":
        compacted = spark_phase("compaction", lambda: hudi_spark.compact(spark, spark_table))
        print(f"  compaction: {describe(compacted)}")
    clustered = spark_phase("clustering", lambda: hudi_spark.cluster(spark, spark_table, CLUSTER_ALL))
    print(f"  clustering: {describe(clustered)}")
    rewritten = [
        f"{s.partition_path}/{s.prev_base_file}"
        for s in next_upsert.write_stats
        if s.prev_base_file and s.path.endswith(".parquet")
    ]
    rewrite_in_tasks = None
    if rewritten:
        rewrite_in_tasks = raw_rewrite_in_tasks_seconds(spark, Path(spark_table), rewritten)
        print(
            f"  raw: the same files rewritten by pyarrow in Spark's Python workers, a task per file: "
            f"{rewrite_in_tasks:.1f} s (Spark's second upsert = {spark_next / rewrite_in_tasks:.2f}x)"
        )
        raw = raw_rewrite_seconds(Path(spark_table), rewritten)
        print(
            f"  raw: pyarrow re-reading and rewriting the {len(rewritten)} base files: {raw:.1f} s "
            f"(Spark's second upsert = {spark_next / raw:.2f}x)"
        )
    spark_bulk = next(seconds for label, seconds, _ in results if label == "bulk_insert")
    spark.stop()
    SPARK_RUNNING[0] = False

    if not args.skip_arrow:
        print("Arrow engine (in process):")
        arrow_table = str(root / "arrow_table")
        base = pq.read_table(base_dir)
        batch = pq.read_table(update_dir)
        created = HudiTable.create(arrow_table, base.schema, "trips", ["uuid"], ["city"], ["ts"], args.table_type)
        phase("bulk_insert", lambda: created.bulk_insert(base), results)
        arrow_bulk = results[-1][1]
        phase("upsert 1%", lambda: HudiTable(arrow_table).upsert(batch), results)
        arrow_upsert = results[-1][1]
        next_batch = pq.read_table(next_dir)
        phase("upsert 1% again (second)", lambda: HudiTable(arrow_table).upsert(next_batch), results)
        arrow_next = results[-1][1]
        arrow_count = phase("count (snapshot)", lambda: HudiTable(arrow_table).read(columns=["uuid"]).num_rows, results)
        assert arrow_count == args.rows
        if args.table_type == "MERGE_ON_READ":
            phase("compaction", lambda: HudiTable(arrow_table).compact(), results)
        phase("clustering", lambda: HudiTable(arrow_table).cluster(options=CLUSTER_ALL), results)
        raw_bulk = raw_bulk_seconds(base_dir, root / "raw_bulk")
        print(f"  raw: pyarrow reading the source and writing it as zstd Parquet: {raw_bulk:.1f} s")
        print(
            f"Spark bulk_insert / raw: {spark_bulk / raw_bulk:.2f}x, "
            f"Arrow bulk_insert / raw: {arrow_bulk / raw_bulk:.2f}x"
        )
        print(f"Spark bulk_insert / Arrow bulk_insert: {spark_bulk / arrow_bulk:.2f}x")
        first, second = spark_upsert / arrow_upsert, spark_next / arrow_next
        print(f"Spark upsert / Arrow upsert: {first:.2f}x (first), {second:.2f}x (second)")
        floor = key_floor / arrow_upsert
        print(f"floor: Spark joining the batch's keys with the stored ones / Arrow upsert: {floor:.2f}x")
        if rewrite_in_tasks is not None:
            in_tasks = rewrite_in_tasks / arrow_next
            print(f"floor: the rewrite in Spark's Python workers / Arrow's second upsert: {in_tasks:.2f}x")
            both = (profile_floor + rewrite_in_tasks) / arrow_next
            print(f"floor: the batch's count per city and that rewrite / Arrow's second upsert: {both:.2f}x")
    total = sum(seconds for _, seconds, _ in results)
    print(f"total measured: {total / 60:.1f} min")


def passed_through(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The identity, run in Spark's Python workers: the cost of moving rows through Arrow."""
    yield from batches


def describe(result: Any) -> str:
    """What a service did, briefly."""
    if result is None:
        return "nothing to do"
    return ", ".join(f"{name} {count:,}" for name, count in sorted(result.counts.items())) or "done"


class ExecutorTasks:
    """Tasks each executor of a cluster session ran, from Spark's REST API, phase by phase."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._seen: dict[str, int] = self._totals()

    def _totals(self) -> dict[str, int]:
        from tests.spark.standalone_cluster import executors_of  # noqa: PLC0415 - bench tooling

        return {e["id"]: int(e["totalTasks"]) for e in executors_of(self._spark) if e["id"] != "driver"}

    def since_last(self) -> dict[str, int]:
        totals = self._totals()
        ran = {executor: count - self._seen.get(executor, 0) for executor, count in totals.items()}
        self._seen = totals
        return ran


if __name__ == "__main__":
    pa.set_cpu_count(2)
    main()
