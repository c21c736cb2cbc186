"""The registry of timed operations: ours (Arrow and Spark engines) and the peers', grouped by what they do.

Every operation has a `prepare(space, op)` that runs in its child process before the baseline is
taken: it loads the input (the batch, or the base for bulk inserts), copies the fixture a write
needs (never timed), and returns the timed `action`. Names are `<group key>/<system key>`, e.g.
`upsert_1pct/ours_cow`; groups are the rows of one comparison table.

Setup caching: an operation that does exactly what a fixture is made of *produces* it (`produces`):
its first run writes straight into the fixture's folder instead of its scratch copy, so the 5M-row
tables are loaded once per run, by the measured operation itself (our bulk inserts load `hudi_cow`
and `hudi_mor`, our 1% upserts of those leave `hudi_cow_committed` and `hudi_mor_pending`, delta-rs's
write leaves `delta`, pyiceberg's append `iceberg`). The runner builds whatever is still missing
(an operation left out with `--only`, or one that failed) with :mod:`bench.suite.fixtures`, which
builds the same tables the same way.

Targets are evaluated on default options; `tuned=True` marks a variant with non-default options
(printed as such, never used by a target).
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from bench.spark_upsert import options as spark_options
from bench.suite import apache_hudi, peers
from bench.suite.fixtures import BUCKET_INDEX, commit_facts
from bench.suite.inputs import FARE_RANGE, FILTER_CITY, load_base, load_batch
from bench.suite.workspace import Workspace
from hudi_core import HudiTable, WriteResult
from hudi_core.config.write import HudiWriteConfig

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from scripts.apache_hudi import ApacheHudi

SPARK_MASTER = "local[2]"
SPARK_CONF = {"spark.driver.memory": "4g"}
OPEN_REPEATS = 30  # opens timed in one warm process; their median is the figure
GZIP = {HudiWriteConfig.PARQUET_COMPRESSION.key: "gzip"}  # Apache Hudi's default codec
CITY_FILTER = [("city", "=", FILTER_CITY)]
FARE_FILTER = [("fare", ">=", FARE_RANGE[0]), ("fare", "<", FARE_RANGE[1])]


@dataclass(frozen=True)
class Outcome:
    """What one timed action did.

    Attributes:
        rows: rows written, applied or read (for rows/s; 0 when rows do not apply).
        details: facts worth printing (files written, merge metrics).
        seconds: set by an action that times itself (the median of many warm opens); else the wall
            time of the whole action is the figure.
    """

    rows: int
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # recorded for the fixture a producing run leaves


@dataclass(frozen=True)
class Setup:
    """A prepared operation: the timed action, what to do afterwards (not timed), and the fixture this
    run is writing (None unless it is the producing run)."""

    action: Callable[[], Outcome]
    cleanup: Callable[[], None] = lambda: None
    produces: str | None = None


class Cost(Enum):
    """How expensive an operation is, which sets its repetitions (see `runner.repetitions`)."""

    LIGHT = "light"  # seconds at 5M: reads, MoR writes, concentrated upserts
    TARGET = "target"  # a full rewrite some target depends on
    HEAVY = "heavy"  # a full rewrite no target depends on
    ONCE = "once"  # slow peers (pyiceberg upsert) and the Spark engine: one repetition


class Engine(Enum):
    ARROW = "arrow"  # ours, in process: subject to the memory target
    SPARK = "spark"  # ours on Spark local[2]: the JVM's memory is sampled too
    PEER = "peer"
    PEER_SPARK = "peer_spark"  # a peer on Spark (Apache Hudi): its driver's process tree is sampled

    @property
    def samples_process_tree(self) -> bool:
        return self in (Engine.SPARK, Engine.PEER_SPARK)


Prepare = Callable[[Workspace, "Operation"], Setup]


@dataclass(frozen=True)
class Operation:
    """One timed operation.

    Attributes:
        name: `<group>/<system key>`.
        group: the comparison it belongs to (a key of :data:`GROUPS`).
        system: who does it: "ours (Arrow)", "ours (Spark)", "delta-rs", "pyiceberg", "hudi-rs", "raw pyarrow".
        variant: what distinguishes it within the group (table type, predicate, codec).
        prepare: the untimed setup returning the timed action.
        fixtures: the fixtures it reads or copies.
        cost: sets the repetitions.
        engine: ours on Arrow, ours on Spark, or a peer.
        scales: the row counts it runs at (None: every scale of the run).
        tuned: non-default options (never used by a target).
        in_quick: part of `--quick`.
        produces: the fixture its first run leaves behind (setup caching).
    """

    name: str
    group: str
    system: str
    variant: str
    prepare: Prepare
    fixtures: tuple[str, ...] = ()
    cost: Cost = Cost.LIGHT
    engine: Engine = Engine.PEER
    scales: tuple[int, ...] | None = None
    tuned: bool = False
    in_quick: bool = True
    produces: str | None = None

    @property
    def label(self) -> str:
        tuned = " [tuned]" if self.tuned else ""
        return f"{self.system} {self.variant}{tuned}".strip()


# ---- helpers --------------------------------------------------------------------------------------


def _write_outcome(result: WriteResult, rows: int, facts: dict[str, Any] | None = None) -> Outcome:
    counts = {"updates": result.updates, "inserts": result.inserts, "deletes": result.deletes}
    return Outcome(rows, {**counts, "files_written": result.files_written}, facts=facts or {})


def _table_outcome(table: pa.Table) -> Outcome:
    return Outcome(table.num_rows)


def _in_place(space: Workspace, fixture: str) -> Path:
    """A fixture read where it lies: reads never modify it."""
    return space.fixture(fixture)


def _scratch_cleanup(space: Workspace, name: str) -> Callable[[], None]:
    def cleanup() -> None:
        shutil.rmtree(space.scratch(name), ignore_errors=True)

    return cleanup


@dataclass(frozen=True)
class WriteTarget:
    """Where a write operation writes: `path`, and `produces` when that is a fixture's folder."""

    path: Path
    produces: str | None


def _write_target(space: Workspace, op: Operation, source: str | None = None) -> WriteTarget:
    """The fixture `op` produces if it does not exist yet (copied from `source` first, if given); else a
    private copy of `source` (or an empty folder) in the scratch. Copying is never timed."""
    if op.produces is not None and not space.has_fixture(op.produces):
        path = space.fixture(op.produces)
        shutil.rmtree(path, ignore_errors=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        if source is not None:
            shutil.copytree(space.fixture(source), path)
        return WriteTarget(path, op.produces)
    if source is not None:
        return WriteTarget(space.copy_fixture(source, op.name), None)
    return WriteTarget(space.fresh_scratch(op.name) / "table", None)


# ---- ours, Arrow engine ---------------------------------------------------------------------------


def ours_bulk_insert(table_type: str) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        base = load_base(space)
        target = _write_target(space, op)
        table = peers.create_hudi(target.path, base.schema, table_type)

        def action() -> Outcome:
            result = table.bulk_insert(base)
            return _write_outcome(result, base.num_rows, commit_facts(result))

        return Setup(action, _scratch_cleanup(space, op.name), target.produces)

    return prepare


def ours_write(fixture: str, batch_name: str, delete: bool = False, options: dict[str, str] | None = None) -> Prepare:
    """Upsert (or delete) a batch into a private copy of `fixture`; opening the table is timed too."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        batch = load_batch(space, batch_name)
        target = _write_target(space, op, fixture)
        path = str(target.path)
        previous = space.facts()[fixture]["completion"]

        def action() -> Outcome:
            table = HudiTable(path)
            result = table.delete(batch, options) if delete else table.upsert(batch, options)
            return _write_outcome(result, batch.num_rows, {"previous_completion": previous, **commit_facts(result)})

        return Setup(action, _scratch_cleanup(space, op.name), target.produces)

    return prepare


def ours_read(fixture: str, filters: peers.Filters = None) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        path = str(_in_place(space, fixture))
        return Setup(lambda: _table_outcome(HudiTable(path).read(filters=list(filters) if filters else None)))

    return prepare


def ours_read_batches(fixture: str) -> Prepare:
    """Streams the whole table (`read_batches`), holding one batch at a time."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        path = str(_in_place(space, fixture))

        def action() -> Outcome:
            rows = 0
            for batch in HudiTable(path).read_batches():
                rows += batch.num_rows
            return Outcome(rows)

        return Setup(action)

    return prepare


def ours_incremental(fixture: str) -> Prepare:
    """Reads what the fixture's last commit changed (commits completed after the one before it)."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        path = str(_in_place(space, fixture))
        start = space.facts()[fixture]["previous_completion"]
        return Setup(lambda: _table_outcome(HudiTable(path).read_incremental(start)))

    return prepare


def ours_compaction(space: Workspace, op: Operation) -> Setup:
    path = str(space.copy_fixture("hudi_mor_pending", op.name))

    def action() -> Outcome:
        result = HudiTable(path).compact()
        counts = dict(result.counts) if result is not None else {}
        return Outcome(int(counts.get("records", 0)), counts)

    return Setup(action, _scratch_cleanup(space, op.name))


def _warm_median(open_once: Callable[[], object]) -> Outcome:
    """Opens once to warm the process (imports, pools, caches), then times :data:`OPEN_REPEATS` opens."""
    open_once()
    times = []
    for _ in range(OPEN_REPEATS):
        start = time.perf_counter()
        open_once()
        times.append(time.perf_counter() - start)
    return Outcome(0, {"opens": OPEN_REPEATS, "fastest_ms": round(1000 * min(times), 2)}, statistics.median(times))


def ours_open(space: Workspace, op: Operation) -> Setup:
    path = str(_in_place(space, "small"))

    def open_once() -> object:
        table = HudiTable(path)
        return (table.schema, table.timeline)

    return Setup(lambda: _warm_median(open_once))


# ---- ours, Spark engine ---------------------------------------------------------------------------


def _spark_session() -> SparkSession:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark only in Spark runs

    spark = hudi_spark.session(SPARK_MASTER, **SPARK_CONF)
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(1000).count()  # the JVM's first job loads classes: not part of any figure
    return spark


def spark_bulk_insert(space: Workspace, op: Operation) -> Setup:
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark only in Spark runs

    spark = _spark_session()
    path = str(space.fresh_scratch(op.name) / "table")

    def action() -> Outcome:
        source = spark.read.parquet(str(space.base_dir))
        result = hudi_spark.write(source, path, spark_options("COPY_ON_WRITE", "bulk_insert"))
        return _write_outcome(result, space.rows)

    def cleanup() -> None:
        spark.stop()
        _scratch_cleanup(space, op.name)()

    return Setup(action, cleanup)


def spark_upsert(fixture: str, table_type: str, batch_name: str) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark only in Spark runs

        spark = _spark_session()
        path = str(space.copy_fixture(fixture, op.name))
        rows = load_batch(space, batch_name).num_rows

        def action() -> Outcome:
            source = spark.read.parquet(str(space.batch_path(batch_name)))
            return _write_outcome(hudi_spark.write(source, path, spark_options(table_type, "upsert")), rows)

        def cleanup() -> None:
            spark.stop()
            _scratch_cleanup(space, op.name)()

        return Setup(action, cleanup)

    return prepare


def spark_read(fixture: str) -> Prepare:
    """Every column of every row through the `hudi` data source, into Spark's no-op sink."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        spark = _spark_session()
        path = str(_in_place(space, fixture))

        def action() -> Outcome:
            spark.read.format("hudi").load(path).write.format("noop").mode("overwrite").save()
            return Outcome(space.rows)

        return Setup(action, spark.stop)

    return prepare


# ---- Apache Hudi on Spark ------------------------------------------------------------------------


def _apache_setup(space: Workspace, op: Operation, run: Callable[[ApacheHudi], int]) -> Setup:
    driver, startup = apache_hudi.start_driver(space, op.name)

    def action() -> Outcome:
        return Outcome(run(driver), {"spark_startup_s": round(startup, 1)})

    def cleanup() -> None:
        driver.stop()
        _scratch_cleanup(space, op.name)()
        _scratch_cleanup(space, f"{op.name}-driver")()

    return Setup(action, cleanup)


def apache_bulk_insert(space: Workspace, op: Operation) -> Setup:
    table = space.fresh_scratch(op.name) / "table"
    options = spark_options("COPY_ON_WRITE", "bulk_insert")

    def run(driver: ApacheHudi) -> int:
        driver.write_files(table, space.base_dir, options, "overwrite")
        return space.rows

    return _apache_setup(space, op, run)


def apache_upsert(fixture: str, table_type: str, batch_name: str) -> Prepare:
    """A batch upserted into a private copy of our fixture table (version 8, kept)."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        table = space.copy_fixture(fixture, op.name)
        rows = int(load_batch(space, batch_name).num_rows)
        options = {**spark_options(table_type, "upsert"), **apache_hudi.CONTINUE_VERSION_8}

        def run(driver: ApacheHudi) -> int:
            driver.write_files(table, space.batch_path(batch_name), options)
            return rows

        return _apache_setup(space, op, run)

    return prepare


def apache_read(fixture: str, incremental: bool = False) -> Prepare:
    """Every column of the snapshot (or of the fixture's last commit) into Spark's no-op sink."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        table = _in_place(space, fixture)
        options = None
        if incremental:
            start = space.facts()[fixture]["previous_completion"]
            options = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": start}
        rows = space.rows if not incremental else 0

        def run(driver: ApacheHudi) -> int:
            driver.scan(table, options)
            return rows

        return _apache_setup(space, op, run)

    return prepare


# ---- delta-rs -------------------------------------------------------------------------------------


def delta_bulk_write(space: Workspace, op: Operation) -> Setup:
    base = load_base(space)
    target = _write_target(space, op)

    def action() -> Outcome:
        peers.delta_write(target.path, base)
        return Outcome(base.num_rows)

    return Setup(action, _scratch_cleanup(space, op.name), target.produces)


def delta_write_batch(batch_name: str, predicate: str, delete: bool = False) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        batch = load_batch(space, batch_name)
        path = space.copy_fixture("delta", op.name)

        def action() -> Outcome:
            if delete:
                metrics = peers.delta_delete(path, batch, predicate)
            else:
                metrics = peers.delta_merge(path, batch, predicate)
            keep = ("num_target_rows_updated", "num_target_rows_inserted", "num_target_rows_deleted")
            files = ("num_target_files_added", "num_target_files_removed")
            return Outcome(batch.num_rows, {k: metrics.get(k) for k in (*keep, *files)})

        return Setup(action, _scratch_cleanup(space, op.name))

    return prepare


def delta_read(filters: peers.Filters = None) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        path = _in_place(space, "delta")
        return Setup(lambda: _table_outcome(peers.delta_read(path, filters)))

    return prepare


def delta_changes(space: Workspace, op: Operation) -> Setup:
    path = _in_place(space, "delta_cdf")
    version = space.facts()["delta_cdf"]["version"]
    return Setup(lambda: _table_outcome(peers.delta_changes(path, version)))


def delta_open(space: Workspace, op: Operation) -> Setup:
    path = _in_place(space, "small_delta")
    return Setup(lambda: _warm_median(lambda: peers.delta_open(path)))


# ---- pyiceberg ------------------------------------------------------------------------------------


def iceberg_append(space: Workspace, op: Operation) -> Setup:
    base = load_base(space)
    target = _write_target(space, op)
    table = peers.iceberg_create(target.path, base.schema)

    def action() -> Outcome:
        peers.iceberg_append(table, base)
        return Outcome(base.num_rows)

    return Setup(action, _scratch_cleanup(space, op.name), target.produces)


def iceberg_upsert(space: Workspace, op: Operation) -> Setup:
    # The catalog holds absolute paths, so a copy would still point at the fixture: this one-repetition
    # operation upserts into the fixture itself, which no other operation uses.
    batch = load_batch(space, "upsert_1pct")
    table = peers.iceberg_load(_in_place(space, "iceberg"))
    return Setup(lambda: Outcome(batch.num_rows, peers.iceberg_upsert(table, batch)))


# ---- hudi-rs --------------------------------------------------------------------------------------


def hudi_rs_read(fixture: str, filters: peers.Filters = None) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        path = _in_place(space, fixture)
        return Setup(lambda: _table_outcome(peers.hudi_rs_read(path, filters)))

    return prepare


def hudi_rs_incremental(fixture: str) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        path = _in_place(space, fixture)
        start = space.facts()[fixture]["previous_completion"]
        return Setup(lambda: _table_outcome(peers.hudi_rs_incremental(path, start)))

    return prepare


def hudi_rs_open(space: Workspace, op: Operation) -> Setup:
    path = _in_place(space, "small")
    return Setup(lambda: _warm_median(lambda: peers.hudi_rs_open(path)))


# ---- raw pyarrow ----------------------------------------------------------------------------------


def raw_bulk_write(space: Workspace, op: Operation) -> Setup:
    base = load_base(space)
    out = space.fresh_scratch(op.name)
    codec = peers.Codec.ours()
    return Setup(lambda: Outcome(peers.raw_partitioned_write(base, out, codec)), _scratch_cleanup(space, op.name))


def raw_bulk_write_with_meta(space: Workspace, op: Operation) -> Setup:
    """The same rows with Hudi's five meta columns added beforehand (not timed), written by city."""
    rows = peers.with_meta_columns(load_base(space))
    out = space.fresh_scratch(op.name)
    codec = peers.Codec.ours()
    return Setup(lambda: Outcome(peers.raw_partitioned_write(rows, out, codec)), _scratch_cleanup(space, op.name))


def raw_rewrite(fixture: str, batch_name: str, delete: bool = False, compaction: bool = False) -> Prepare:
    """Rewrites only the base files holding the batch's keys and writes its new rows. As the limit of a
    compaction (`compaction=True`): no new rows (they are in new base files already), and the rows
    counted are those written, as a compaction counts the records it compacted."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        batch = load_batch(space, batch_name)
        table_dir = _in_place(space, fixture)
        touched = peers.touched_by(table_dir, batch)
        if compaction:
            touched = peers.Touched(touched.files, touched.new_rows.slice(0, 0))
        out = space.fresh_scratch(op.name)
        codec = peers.Codec.ours()

        def action() -> Outcome:
            written = peers.raw_merge(table_dir, touched, batch, out, codec, delete=delete)
            return Outcome(written if compaction else batch.num_rows, {"files_rewritten": len(touched.files)})

        return Setup(action, _scratch_cleanup(space, op.name))

    return prepare


def raw_read(fixture: str, filters: peers.Filters = None, partition: str | None = None) -> Prepare:
    """Reads the latest base files of the fixture (those of one partition, if given)."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        table_dir = _in_place(space, fixture)
        files = peers.latest_base_files(table_dir)
        if partition is not None:
            files = [f for f in files if f.startswith(f"{partition}/")]
        return Setup(lambda: _table_outcome(peers.raw_read(table_dir, files, filters)))

    return prepare


def raw_commit_read(fixture: str) -> Prepare:
    """Reads the base files the fixture's last commit wrote, keeping the rows that commit wrote."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        table_dir = _in_place(space, fixture)
        facts = space.facts()[fixture]
        only_commit = [("_hoodie_commit_time", "=", facts["instant"])]
        return Setup(lambda: _table_outcome(peers.raw_read(table_dir, facts["written_base_files"], only_commit)))

    return prepare


def raw_merge_on_read_commit_read(copy_on_write: str, merge_on_read: str) -> Prepare:
    """The least any reader does for a Merge-on-Read incremental read of the same 1% commit: the
    commit's rows read as Parquet (the Copy-on-Write twin's files, its rows: Parquet is the fastest
    data block format Hudi has), and the ordering column of every base file the commit's logs
    update (under event-time ordering a logged record is a change only if it beats the stored one)."""

    def prepare(space: Workspace, op: Operation) -> Setup:
        cow_dir, mor_dir = _in_place(space, copy_on_write), _in_place(space, merge_on_read)
        facts = space.facts()[copy_on_write]
        only_commit = [("_hoodie_commit_time", "=", facts["instant"])]
        slices = HudiTable(str(mor_dir)).file_slices()
        merged_with = sorted(s.base_file_path for s in slices if s.has_logs and s.base_file_path)

        def action() -> Outcome:
            rows = peers.raw_read(cow_dir, facts["written_base_files"], only_commit)
            peers.raw_read(mor_dir, merged_with, columns=[peers.ORDERING])
            return _table_outcome(rows)

        return Setup(action)

    return prepare


def raw_key_scan(fixture: str) -> Prepare:
    def prepare(space: Workspace, op: Operation) -> Setup:
        table_dir = _in_place(space, fixture)
        files = peers.latest_base_files(table_dir)
        return Setup(lambda: Outcome(peers.raw_key_scan(table_dir, files)))

    return prepare


# ---- the registry ---------------------------------------------------------------------------------

OURS = "ours (Arrow)"
OURS_SPARK = "ours (Spark)"
DELTA = "delta-rs"
ICEBERG = "pyiceberg"
HUDI_RS = "hudi-rs"
RAW = "raw pyarrow"
APACHE = apache_hudi.SYSTEM
SPARK_SCALES = (1_000_000,)  # a 5M Spark bulk insert and upserts would take a fifth of the 45 minutes
SMALL_SCALES = (1_000_000,)  # the small table is the same at every scale
# Limits of the full rewrites no target uses are measured at 1M only: at 5M they would cost minutes of
# the 45 that the targets' repetitions need (their ratio to ours does not change with scale).
INFO_LIMIT_SCALES = (1_000_000,)
TUNED_SCALES = (1_000_000,)  # the bucket-index variant needs its own 5M load otherwise

GROUPS: dict[str, str] = {
    "bulk_insert": "bulk insert of the base",
    "upsert_1pct": "upsert 1% + 1% new keys (uniform)",
    "upsert_10pct": "upsert 10% + 1% new keys (uniform)",
    "upsert_recent": "upsert 1% + 1% new keys in the 2 recent partitions",
    "delete": "delete 0.5% of the keys (uniform)",
    "snapshot_read": "snapshot read (all columns)",
    "read_partition": f"filtered read: one partition (city = {FILTER_CITY})",
    "read_fare": f"filtered read: {FARE_RANGE[0]:g} <= fare < {FARE_RANGE[1]:g}",
    "incremental": "incremental read of the last commit (1% upsert)",
    "compaction": "compaction of one pending 1% log",
    "open": "open a small table (schema + timeline, warm process)",
}


def _operations() -> list[Operation]:
    uuid, city_uuid = peers.DELTA_PREDICATES["uuid"], peers.DELTA_PREDICATES["city+uuid"]
    arrow, spark = Engine.ARROW, Engine.SPARK
    target, heavy, once = Cost.TARGET, Cost.HEAVY, Cost.ONCE
    cow, mor, cow_1, mor_1 = "hudi_cow", "hudi_mor", "hudi_cow_committed", "hudi_mor_pending"
    apache = Engine.PEER_SPARK
    return [
        # bulk insert: ours and delta-rs's and pyiceberg's first runs load the fixtures
        Operation("bulk_insert/ours_cow", "bulk_insert", OURS, "CoW", ours_bulk_insert("COPY_ON_WRITE"),
                  cost=target, engine=arrow, produces=cow),
        Operation("bulk_insert/ours_mor", "bulk_insert", OURS, "MoR", ours_bulk_insert("MERGE_ON_READ"),
                  cost=once, engine=arrow, produces=mor),
        Operation("bulk_insert/spark_cow", "bulk_insert", OURS_SPARK, "CoW", spark_bulk_insert,
                  cost=once, engine=spark, scales=SPARK_SCALES, in_quick=False),
        Operation("bulk_insert/delta", "bulk_insert", DELTA, "write_deltalake", delta_bulk_write,
                  cost=heavy, produces="delta"),
        Operation("bulk_insert/apache_cow", "bulk_insert", APACHE, "CoW", apache_bulk_insert, cost=once,
                  engine=apache, in_quick=False),
        Operation("bulk_insert/iceberg", "bulk_insert", ICEBERG, "append", iceberg_append,
                  cost=once, produces="iceberg", in_quick=False),
        Operation("bulk_insert/raw", "bulk_insert", RAW, "write by city (zstd 1)", raw_bulk_write, cost=target),
        Operation("bulk_insert/raw_with_meta", "bulk_insert", RAW, "write by city, with the 5 meta columns (zstd 1)",
                  raw_bulk_write_with_meta, cost=heavy),
        # upsert 1%, uniform: our first runs leave the tables with one 1% commit / one pending 1% log
        Operation("upsert_1pct/ours_cow", "upsert_1pct", OURS, "CoW", ours_write(cow, "upsert_1pct"), (cow,),
                  cost=target, engine=arrow, produces=cow_1),
        Operation("upsert_1pct/ours_mor", "upsert_1pct", OURS, "MoR", ours_write(mor, "upsert_1pct"), (mor,),
                  engine=arrow, produces=mor_1),
        Operation("upsert_1pct/ours_cow_gzip", "upsert_1pct", OURS, "CoW, gzip codec (Apache Hudi's default)",
                  ours_write(cow, "upsert_1pct", options=GZIP), (cow,), cost=heavy, engine=arrow, tuned=True),
        Operation("upsert_1pct/ours_mor_bucket", "upsert_1pct", OURS, "MoR, bucket index (4 per partition)",
                  ours_write("hudi_mor_bucket", "upsert_1pct", options=BUCKET_INDEX), ("hudi_mor_bucket",),
                  engine=arrow, scales=TUNED_SCALES, tuned=True),
        Operation("upsert_1pct/spark_cow", "upsert_1pct", OURS_SPARK, "CoW",
                  spark_upsert(cow, "COPY_ON_WRITE", "upsert_1pct"), (cow,), once, spark, SPARK_SCALES, in_quick=False),
        Operation("upsert_1pct/spark_mor", "upsert_1pct", OURS_SPARK, "MoR",
                  spark_upsert(mor, "MERGE_ON_READ", "upsert_1pct"), (mor,), once, spark, SPARK_SCALES, in_quick=False),
        Operation("upsert_1pct/apache_cow", "upsert_1pct", APACHE, "CoW, into our table",
                  apache_upsert(cow, "COPY_ON_WRITE", "upsert_1pct"), (cow,), once, apache, in_quick=False),
        Operation("upsert_1pct/apache_mor", "upsert_1pct", APACHE, "MoR, into our table",
                  apache_upsert(mor, "MERGE_ON_READ", "upsert_1pct"), (mor,), once, apache, in_quick=False),
        Operation("upsert_1pct/delta_uuid", "upsert_1pct", DELTA, "merge on uuid",
                  delta_write_batch("upsert_1pct", uuid), ("delta",), target),
        Operation("upsert_1pct/delta_city_uuid", "upsert_1pct", DELTA, "merge on city+uuid",
                  delta_write_batch("upsert_1pct", city_uuid), ("delta",), target),
        Operation("upsert_1pct/iceberg", "upsert_1pct", ICEBERG, "upsert on uuid", iceberg_upsert, ("iceberg",),
                  once, in_quick=False),
        Operation("upsert_1pct/raw_rewrite", "upsert_1pct", RAW, "rewrite of touched files",
                  raw_rewrite(cow, "upsert_1pct"), (cow,), target),
        Operation("upsert_1pct/raw_key_scan", "upsert_1pct", RAW, "read every record key",
                  raw_key_scan(mor), (mor,)),
        # upsert 10%, uniform
        Operation("upsert_10pct/ours_cow", "upsert_10pct", OURS, "CoW", ours_write(cow, "upsert_10pct"), (cow,),
                  cost=heavy, engine=arrow, in_quick=False),
        Operation("upsert_10pct/ours_mor", "upsert_10pct", OURS, "MoR", ours_write(mor, "upsert_10pct"), (mor,),
                  cost=heavy, engine=arrow, in_quick=False),
        Operation("upsert_10pct/delta_city_uuid", "upsert_10pct", DELTA, "merge on city+uuid",
                  delta_write_batch("upsert_10pct", city_uuid), ("delta",), heavy, in_quick=False),
        Operation("upsert_10pct/raw_rewrite", "upsert_10pct", RAW, "rewrite of touched files",
                  raw_rewrite(cow, "upsert_10pct"), (cow,), heavy, scales=INFO_LIMIT_SCALES, in_quick=False),
        # upsert concentrated in the 2 recent partitions
        Operation("upsert_recent/ours_cow", "upsert_recent", OURS, "CoW", ours_write(cow, "upsert_recent"), (cow,),
                  engine=arrow),
        Operation("upsert_recent/ours_mor", "upsert_recent", OURS, "MoR", ours_write(mor, "upsert_recent"), (mor,),
                  engine=arrow),
        Operation("upsert_recent/delta_uuid", "upsert_recent", DELTA, "merge on uuid",
                  delta_write_batch("upsert_recent", uuid), ("delta",)),
        Operation("upsert_recent/delta_city_uuid", "upsert_recent", DELTA, "merge on city+uuid",
                  delta_write_batch("upsert_recent", city_uuid), ("delta",)),
        Operation("upsert_recent/raw_rewrite", "upsert_recent", RAW, "rewrite of touched files",
                  raw_rewrite(cow, "upsert_recent"), (cow,)),
        # delete
        Operation("delete/ours_cow", "delete", OURS, "CoW", ours_write(cow, "delete_0p5pct", delete=True), (cow,),
                  cost=heavy, engine=arrow, in_quick=False),
        Operation("delete/ours_mor", "delete", OURS, "MoR", ours_write(mor, "delete_0p5pct", delete=True), (mor,),
                  engine=arrow),
        Operation("delete/delta", "delete", DELTA, "merge on city+uuid, delete matched",
                  delta_write_batch("delete_0p5pct", city_uuid, delete=True), ("delta",), heavy, in_quick=False),
        Operation("delete/raw_rewrite", "delete", RAW, "rewrite of touched files",
                  raw_rewrite(cow, "delete_0p5pct", delete=True), (cow,), heavy, scales=INFO_LIMIT_SCALES,
                  in_quick=False),
        # snapshot read
        Operation("snapshot_read/ours_cow", "snapshot_read", OURS, "CoW", ours_read(cow), (cow,), engine=arrow),
        Operation("snapshot_read/ours_mor_pending", "snapshot_read", OURS, "MoR, one pending 1% log",
                  ours_read(mor_1), (mor_1,), engine=arrow),
        Operation("snapshot_read/ours_cow_batches", "snapshot_read", OURS, "CoW, streamed (read_batches)",
                  ours_read_batches(cow), (cow,), engine=arrow),
        Operation("snapshot_read/spark_cow", "snapshot_read", OURS_SPARK, "CoW", spark_read(cow), (cow,), once,
                  spark, SPARK_SCALES, in_quick=False),
        Operation("snapshot_read/apache_cow", "snapshot_read", APACHE, "CoW, into the no-op sink", apache_read(cow),
                  (cow,), once, apache, in_quick=False),
        Operation("snapshot_read/apache_mor_pending", "snapshot_read", APACHE,
                  "MoR, one pending 1% log, into the no-op sink", apache_read(mor_1), (mor_1,), once, apache,
                  in_quick=False),
        Operation("snapshot_read/hudi_rs_cow", "snapshot_read", HUDI_RS, "CoW", hudi_rs_read(cow), (cow,)),
        Operation("snapshot_read/hudi_rs_mor_pending", "snapshot_read", HUDI_RS, "MoR, one pending 1% log",
                  hudi_rs_read(mor_1), (mor_1,)),
        Operation("snapshot_read/delta", "snapshot_read", DELTA, "to_pyarrow_table", delta_read(), ("delta",)),
        Operation("snapshot_read/raw", "snapshot_read", RAW, "read of the latest base files (CoW)", raw_read(cow),
                  (cow,)),
        # filtered reads
        Operation("read_partition/ours_cow", "read_partition", OURS, "CoW", ours_read(cow, CITY_FILTER), (cow,),
                  engine=arrow),
        Operation("read_partition/hudi_rs_cow", "read_partition", HUDI_RS, "CoW", hudi_rs_read(cow, CITY_FILTER),
                  (cow,)),
        Operation("read_partition/delta", "read_partition", DELTA, "filters", delta_read(CITY_FILTER), ("delta",)),
        Operation("read_partition/raw", "read_partition", RAW, "read of the partition's files",
                  raw_read(cow, partition=FILTER_CITY), (cow,)),
        Operation("read_fare/ours_cow", "read_fare", OURS, "CoW", ours_read(cow, FARE_FILTER), (cow,), engine=arrow),
        Operation("read_fare/hudi_rs_cow", "read_fare", HUDI_RS, "CoW", hudi_rs_read(cow, FARE_FILTER), (cow,)),
        Operation("read_fare/delta", "read_fare", DELTA, "filters", delta_read(FARE_FILTER), ("delta",)),
        Operation("read_fare/raw", "read_fare", RAW, "filtered read of the latest base files",
                  raw_read(cow, FARE_FILTER), (cow,)),
        # incremental read of the last commit
        Operation("incremental/ours_cow", "incremental", OURS, "CoW", ours_incremental(cow_1), (cow_1,),
                  engine=arrow),
        Operation("incremental/ours_mor", "incremental", OURS, "MoR", ours_incremental(mor_1), (mor_1,),
                  engine=arrow),
        Operation("incremental/apache_cow", "incremental", APACHE, "CoW, into the no-op sink",
                  apache_read(cow_1, incremental=True), (cow_1,), once, apache, in_quick=False),
        Operation("incremental/apache_mor", "incremental", APACHE, "MoR, into the no-op sink",
                  apache_read(mor_1, incremental=True), (mor_1,), once, apache, in_quick=False),
        Operation("incremental/hudi_rs_cow", "incremental", HUDI_RS, "CoW", hudi_rs_incremental(cow_1), (cow_1,)),
        Operation("incremental/delta_cdf", "incremental", DELTA, "load_cdf of the last version", delta_changes,
                  ("delta_cdf",)),
        Operation("incremental/raw_cow", "incremental", RAW, "read of the commit's files, its rows",
                  raw_commit_read(cow_1), (cow_1,)),
        Operation("incremental/raw_mor", "incremental", RAW,
                  "read of the commit's rows as Parquet and the ordering column of the files its logs update",
                  raw_merge_on_read_commit_read(cow_1, mor_1), (cow_1, mor_1)),
        # compaction
        Operation("compaction/ours_mor", "compaction", OURS, "MoR", ours_compaction, (mor_1,), heavy, arrow,
                  in_quick=False),
        Operation("compaction/raw_rewrite", "compaction", RAW, "rewrite of the base files the log touches",
                  raw_rewrite(mor, "upsert_1pct", compaction=True), (mor,), heavy, scales=INFO_LIMIT_SCALES,
                  in_quick=False),
        # opening a small table
        Operation("open/ours", "open", OURS, "HudiTable + schema + timeline", ours_open, ("small",),
                  engine=arrow, scales=SMALL_SCALES),
        Operation("open/hudi_rs", "open", HUDI_RS, "HudiTable + schema + timeline", hudi_rs_open, ("small",),
                  scales=SMALL_SCALES),
        Operation("open/delta", "open", DELTA, "DeltaTable + schema + version", delta_open, ("small_delta",),
                  scales=SMALL_SCALES),
    ]  # fmt: skip


OPERATIONS: dict[str, Operation] = {op.name: op for op in _operations()}


def select(patterns: Sequence[str] | None, quick: bool) -> list[Operation]:
    """The operations of a run, in registry order: those whose name contains one of `patterns`."""
    chosen = [op for op in OPERATIONS.values() if not quick or op.in_quick]
    if patterns:
        chosen = [op for op in chosen if any(pattern in op.name for pattern in patterns)]
    return chosen
