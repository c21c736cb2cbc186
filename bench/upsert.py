"""Benchmark: upserting 1% updates into Copy-on-Write and Merge-on-Read tables, next to delta-rs MERGE.

Run: `python -m bench.upsert [--rows N] [--repeat K] [--profile]`.

1. Loads N trips rows (:func:`bench.trips.trips`) with our `bulk_insert` into a Copy-on-Write and a
   Merge-on-Read table (default options; record key `uuid`, partition `city`, ordering `ts`) and with
   `deltalake.write_deltalake` into a Delta table partitioned by `city`; prints the load times and the
   sizes on disk.
2. Times, on a fresh copy of each loaded table every time (`shutil.copytree`, not timed), the upsert of
   `updates(base, 0.01, 0.0, seed)` (1% of the keys, uniformly spread, no new keys):

   * ours: `HudiTable.upsert` on CoW and on MoR;
   * delta-rs: `DeltaTable.merge(...).when_matched_update_all().when_not_matched_insert_all()` with
     predicate `t.uuid = s.uuid` and with `t.city = s.city AND t.uuid = s.uuid` (partition pruning);
   * the raw limit: pyarrow reading exactly the base files our CoW upsert rewrote, replacing the
     updated rows and writing them again with the same codec (on the same thread pool size).

   * two floors, pyarrow alone on the same thread pool: reading the `_hoodie_record_key` column of
     every base file of the MoR table (what SIMPLE tagging must read: 1% uniformly spread updates hit
     every file), and writing the rows of the files the CoW upsert rewrote with its codec (read
     beforehand, not timed) -- the least any CoW upsert writing that codec can cost.

   Repetitions run round-robin over the variants (so machine noise hits all of them alike) and the
   median is reported, with the ratios and whether the targets are met: MoR <= 0.1x and CoW <= 1.0x
   of the faster delta-rs merge, and CoW <= 1.2x of the raw rewrite.
3. `--profile`: runs our CoW and MoR upserts once more under pyinstrument, with the Arrow engine's
   thread pool forced to one thread (pyinstrument samples only the calling thread, so pooled work
   would show up as waiting), prints the 15 largest costs and saves the full profiles to
   `bench/profiles/upsert_cow.txt` and `bench/profiles/upsert_mor.txt`.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake
from pyinstrument import Profiler

from bench.trips import trips, updates
from hudi_core import HudiTable, parallel
from hudi_core.file_group.base_file import parquet_writer
from hudi_core.write.client import WriteResult

PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
RECORD_KEY = "uuid"
PARTITION = "city"
ORDERING = "ts"
DELTA_PREDICATES = {
    "delta-rs merge (uuid)": "t.uuid = s.uuid",
    "delta-rs merge (city+uuid)": "t.city = s.city AND t.uuid = s.uuid",
}
MOR_TARGET = 0.1
COW_TARGET = 1.0
RAW_TARGET = 1.2  # our CoW upsert within 20% of pyarrow rewriting the same files


@dataclass
class Variant:
    """One timed upsert: `run(table_dir)` upserts into a fresh copy of `source`."""

    name: str
    source: Path
    run: Callable[[Path], Any]
    times: list[float] = field(default_factory=list)
    first_result: Any = None
    size_after: int = 0
    codec_after: str = "-"

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def dir_size(path: Path) -> int:
    """Bytes of all files under `path`."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


def _timed(action: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


# ---- loading --------------------------------------------------------------------------------


def create_hudi(path: Path, schema: pa.Schema, table_type: str, options: Mapping[str, str]) -> HudiTable:
    return HudiTable.create(
        str(path), schema, "trips", [RECORD_KEY], [PARTITION], [ORDERING], table_type, dict(options) or None
    )


def load_all(root: Path, base: pa.Table, options: Mapping[str, str]) -> dict[str, Path]:
    """Loads the base into the three tables; prints load times and sizes."""
    paths = {"cow": root / "loaded_cow", "mor": root / "loaded_mor", "delta": root / "loaded_delta"}
    loads: dict[str, float] = {}
    for kind, table_type in (("cow", "COPY_ON_WRITE"), ("mor", "MERGE_ON_READ")):
        table = create_hudi(paths[kind], base.schema, table_type, options)
        loads[kind], _ = _timed(lambda table=table: table.bulk_insert(base, dict(options) or None))  # type: ignore[misc]
    loads["delta"], _ = _timed(lambda: write_deltalake(str(paths["delta"]), base, partition_by=[PARTITION]))
    print("bulk load (one run each):")
    labels = {"cow": "ours bulk_insert CoW", "mor": "ours bulk_insert MoR", "delta": "delta-rs write_deltalake"}
    for kind, path in paths.items():
        files = sum(1 for f in path.rglob("*.parquet"))
        print(
            f"  {labels[kind]:<28} {loads[kind]:8.2f} s   {_mib(dir_size(path)):>12} on disk, "
            f"{files} parquet files, codec {_codec(path)}"
        )
    return paths


def _written_codec(table_dir: Path, result: Any) -> str:
    """The codec of the first base file a Hudi write wrote ("-" for other results or log files only)."""
    if not isinstance(result, WriteResult):
        return "-"
    for stat in result.write_stats:
        if stat.path.endswith(".parquet"):
            return str(pq.ParquetFile(table_dir / stat.path).metadata.row_group(0).column(0).compression).lower()
    return "-"


def _codec(table_dir: Path) -> str:
    first = next(table_dir.rglob("*.parquet"), None)
    if first is None:
        return "-"
    return str(pq.ParquetFile(first).metadata.row_group(0).column(0).compression).lower()


# ---- the upserts ----------------------------------------------------------------------------


def hudi_upsert(batch: pa.Table, options: Mapping[str, str]) -> Callable[[Path], WriteResult]:
    def run(table_dir: Path) -> WriteResult:
        return HudiTable(str(table_dir)).upsert(batch, dict(options) or None)

    return run


def delta_merge(batch: pa.Table, predicate: str) -> Callable[[Path], dict[str, Any]]:
    def run(table_dir: Path) -> dict[str, Any]:
        merger = DeltaTable(str(table_dir)).merge(batch, predicate=predicate, source_alias="s", target_alias="t")
        result: dict[str, Any] = merger.when_matched_update_all().when_not_matched_insert_all().execute()
        return result

    return run


def touched_base_files(result: WriteResult) -> list[str]:
    """The base files (relative paths) a CoW upsert rewrote."""
    return sorted(
        f"{s.partition_path}/{s.prev_base_file}" if s.partition_path else str(s.prev_base_file)
        for s in result.write_stats
        if s.prev_base_file
    )


def replace_rows(old: pa.Table, batch: pa.Table, keys: pa.Array) -> tuple[pa.Table, int]:
    """`old` with every row whose record key `keys` (the batch's key column) holds replaced, in place,
    by the batch's row; returns the table and how many rows were replaced."""
    position = pc.index_in(old.column(RECORD_KEY), value_set=keys)
    matched_old = pc.indices_nonzero(pc.is_valid(position))
    matched_in = pc.take(position, matched_old)
    replacement = old.take(matched_old)
    incoming = batch.take(matched_in)
    for name in batch.column_names:
        index = replacement.schema.get_field_index(name)
        replacement = replacement.set_column(index, name, incoming.column(name).cast(old.schema.field(name).type))
    order = np.arange(old.num_rows, dtype=np.int64)
    order[matched_old.to_numpy()] = old.num_rows + np.arange(len(matched_old), dtype=np.int64)
    return pa.concat_tables([old, replacement]).take(pa.array(order)), len(matched_old)


def raw_rewrite(batch: pa.Table, files: Callable[[], Sequence[str]], codec: Callable[[], str]) -> Callable[[Path], int]:
    """pyarrow alone: read each file, replace the rows whose key the batch holds, write it with `codec()`
    (the codec our upsert wrote, at the level our writer uses)."""
    keys = batch.column(RECORD_KEY).combine_chunks()

    def rewrite(table_dir: Path, relative: str) -> int:
        source = pq.ParquetFile(table_dir / relative)
        old = source.read()
        old = old.replace_schema_metadata(None)  # not the footer's Hudi keys (bloom filter, Avro schema)
        table, matched = replace_rows(old, batch, keys)
        name = codec()
        level = parquet_writer.codec_level(name)
        pq.write_table(table, table_dir / f"{relative}.rewritten.parquet", compression=name, compression_level=level)
        return matched

    def run(table_dir: Path) -> int:
        with ThreadPoolExecutor(max_workers=parallel.default_parallelism()) as pool:
            return sum(pool.map(lambda relative: rewrite(table_dir, relative), files()))

    return run


def raw_key_read(table_dir: Path) -> int:
    """pyarrow alone: the record-key column of every base file (SIMPLE tagging's minimum read)."""

    def keys(path: Path) -> int:
        return int(pq.ParquetFile(path).read(columns=["_hoodie_record_key"]).num_rows)

    with ThreadPoolExecutor(max_workers=parallel.default_parallelism()) as pool:
        return sum(pool.map(keys, sorted(table_dir.rglob("*.parquet"))))


def raw_write_only(files: Callable[[], Sequence[str]], codec: Callable[[], str]) -> Callable[[Path], PartTimed]:
    """pyarrow alone: writes the rows of `files()` with `codec()`; only the writes are timed."""
    loaded: dict[str, pa.Table] = {}

    def run(table_dir: Path) -> PartTimed:
        if not loaded:
            for relative in files():
                loaded[relative] = pq.read_table(table_dir / relative).replace_schema_metadata(None)
        name = codec()
        level = parquet_writer.codec_level(name)

        def write(relative: str) -> int:
            pq.write_table(
                loaded[relative], table_dir / f"{relative}.written.parquet", compression=name, compression_level=level
            )
            return int(loaded[relative].num_rows)

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=parallel.default_parallelism()) as pool:
            rows = sum(pool.map(write, loaded))
        return PartTimed(time.perf_counter() - start, rows)

    return run


@dataclass(frozen=True)
class PartTimed:
    """Returned by a variant that times only part of its run: the seconds recorded instead."""

    seconds: float
    result: Any


def check_result(name: str, table_dir: Path, base: pa.Table, batch: pa.Table) -> None:
    """Sanity check of one upserted copy (not timed): row count and the sum of fares."""
    if name.startswith("raw"):
        return
    if name.startswith("delta"):
        got = DeltaTable(str(table_dir)).to_pyarrow_table(columns=[RECORD_KEY, "fare"])
    else:
        got = HudiTable(str(table_dir)).read(columns=[RECORD_KEY, "fare"])
    stored = pc.is_in(base.column(RECORD_KEY), value_set=batch.column(RECORD_KEY))
    expected = pc.sum(base.filter(pc.invert(stored)).column("fare")).as_py() + pc.sum(batch.column("fare")).as_py()
    actual = pc.sum(got.column("fare")).as_py()
    if got.num_rows != base.num_rows or abs(actual - expected) > 1e-6 * abs(expected):
        raise AssertionError(
            f"{name}: upserted table has {got.num_rows} rows (expected {base.num_rows}), "
            f"fare sum {actual} (expected {expected})"
        )


def run_variants(variants: Sequence[Variant], repeat: int, scratch: Path, base: pa.Table, batch: pa.Table) -> None:
    """Round-robin repetitions; every run starts from a fresh copy of its loaded table."""
    for repetition in range(repeat):
        for variant in variants:
            target = scratch / "run"
            shutil.copytree(variant.source, target)
            try:
                seconds, result = _timed(lambda variant=variant, target=target: variant.run(target))  # type: ignore[misc]
                if isinstance(result, PartTimed):
                    seconds, result = result.seconds, result.result
                variant.times.append(seconds)
                if repetition == 0:
                    variant.first_result = result
                    variant.size_after = dir_size(target)
                    variant.codec_after = _written_codec(target, result)
                    check_result(variant.name, target, base, batch)
            finally:
                shutil.rmtree(target)
            print(f"  run {repetition + 1}/{repeat}  {variant.name:<34} {seconds:8.2f} s", flush=True)


def _verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "missed"


def report(variants: Mapping[str, Variant], repeat: int) -> None:
    print(f"\nupsert of {variants['cow'].first_result.updates:,} updates, median of {repeat} (all runs in s):")
    for variant in variants.values():
        runs = ", ".join(f"{t:.2f}" for t in variant.times)
        print(f"  {variant.name:<34} {variant.median:8.2f} s   [{runs}]   {_mib(variant.size_after)} after")
    for key in ("delta_uuid", "delta_city"):
        metrics = variants[key].first_result or {}
        summary = {k: metrics.get(k) for k in ("num_target_files_removed", "num_target_files_added")}
        print(f"  {variants[key].name}: {summary}")
    cow, mor, raw = variants["cow"], variants["mor"], variants["raw"]
    print(
        f"  CoW upsert rewrote {len(touched_base_files(cow.first_result))} base files "
        f"({cow.first_result.files_written} files written); MoR upsert wrote {mor.first_result.files_written} files"
    )
    delta = min((variants["delta_uuid"], variants["delta_city"]), key=lambda v: v.median)
    print(f"\nratios (against the faster delta-rs merge, {delta.name}: {delta.median:.2f} s):")
    for label, ours, target in (("MoR", mor, MOR_TARGET), ("CoW", cow, COW_TARGET)):
        ratio = ours.median / delta.median
        others = ", ".join(
            f"{ours.median / v.median:.2f}x of {v.name}" for v in (variants["delta_uuid"], variants["delta_city"])
        )
        print(f"  ours {label} / delta-rs = {ratio:6.2f}x  (target <= {target}x: {_verdict(ratio, target)}; {others})")
    for label, ours, target, floor in (
        ("MoR", mor, MOR_TARGET, variants.get("key_floor")),
        ("CoW", cow, COW_TARGET, variants.get("write_floor")),
    ):
        if floor is None:
            continue
        allowed = target * delta.median
        reachable = "reachable" if floor.median <= allowed else "below the floor: unreachable with this codec"
        print(
            f"  {label} target {allowed:.2f} s vs floor ({floor.name}) {floor.median:.2f} s: {reachable}; "
            f"ours {ours.median / floor.median:.2f}x the floor"
        )
    ratio = cow.median / raw.median
    print(
        f"  ours CoW / raw pyarrow rewrite = {ratio:6.2f}x  (target <= {RAW_TARGET}x: {_verdict(ratio, RAW_TARGET)}; "
        f"raw rewrite {raw.median:.2f} s, codec {cow.codec_after}"
        f"{f' level {level}' if (level := parquet_writer.codec_level(cow.codec_after)) is not None else ''})"
    )


# ---- profiling ------------------------------------------------------------------------------


@dataclass
class Cost:
    seconds: float = 0.0
    lines: dict[str, float] = field(default_factory=dict)


def _walk(frame: Any) -> Iterator[Any]:
    yield frame
    for child in frame.children:
        if not child.is_synthetic:
            yield from _walk(child)


def _is_ours(frame: Any) -> bool:
    path = frame.file_path or ""
    return "/hudi_core/" in path or "/bench/" in path


def _short(path: str | None) -> str:
    if not path:
        return "?"
    for marker in ("/hudi_core/", "/site-packages/", "/bench/"):
        if marker in path:
            return (
                marker.strip("/") + "/" + path.split(marker, 1)[1]
                if marker != "/site-packages/"
                else path.split(marker, 1)[1]
            )
    return path.rsplit("/", 2)[-1]


def top_costs(root: Any, count: int = 15) -> str:
    """Two rankings of own time: by project function (library calls made directly from it count as its
    own), and by innermost Python function (with the project function it was called from)."""
    by_project: dict[tuple[str, str], Cost] = {}
    by_leaf: dict[tuple[str, str, str], float] = {}
    owner: dict[int, Any] = {}
    for frame in _walk(root):
        parent_owner = owner.get(id(frame.parent)) if frame.parent is not None else None
        project: Any = frame if _is_ours(frame) else parent_owner
        owner[id(frame)] = project
        where: tuple[str, str] = (
            (project.function, f"{_short(project.file_path)}:{project.line_no}") if project is not None else ("-", "-")
        )
        cost = by_project.setdefault(where, Cost())
        if project is not None and project is frame:  # the lines it was at, over all its samples (callees included)
            for attribute, seconds in project.attributes.items():
                if attribute.startswith("l"):
                    cost.lines[attribute[1:]] = cost.lines.get(attribute[1:], 0.0) + seconds
        own = frame.total_self_time
        if own <= 0:
            continue
        cost.seconds += own
        leaf = (frame.function, f"{_short(frame.file_path)}:{frame.line_no}", f"{where[0]} ({where[1]})")
        by_leaf[leaf] = by_leaf.get(leaf, 0.0) + own
    total = root.time
    out = [
        f"  total {total:.2f} s",
        "  by project function (own time incl. the library calls it makes directly; hot lines incl. callees):",
    ]
    for (name, location), cost in sorted(by_project.items(), key=lambda item: -item[1].seconds)[:count]:
        hot = sorted(cost.lines.items(), key=lambda item: -item[1])[:3]
        lines = ", ".join(f"l{line} {seconds:.2f}s" for line, seconds in hot)
        out.append(f"    {cost.seconds:7.2f} s {100 * cost.seconds / total:5.1f}%  {name:<28} {location:<48} {lines}")
    out.append("  by innermost Python function (own time) <- project function it was reached from:")
    for (name, location, via), seconds in sorted(by_leaf.items(), key=lambda item: -item[1])[:count]:
        out.append(f"    {seconds:7.2f} s {100 * seconds / total:5.1f}%  {name:<28} {location:<44} <- {via}")
    return "\n".join(out)


def profile_upserts(paths: Mapping[str, Path], scratch: Path, batch: pa.Table, options: Mapping[str, str]) -> None:
    PROFILE_DIR.mkdir(exist_ok=True)
    original = parallel.default_parallelism
    parallel.default_parallelism = lambda: 1
    try:
        for kind, label in (("cow", "CoW"), ("mor", "MoR")):
            target = scratch / f"profile_{kind}"
            shutil.copytree(paths[kind], target)
            try:
                gc.collect()
                profiler = Profiler(interval=0.001)
                profiler.start()
                start = time.perf_counter()
                HudiTable(str(target)).upsert(batch, dict(options) or None)
                wall = time.perf_counter() - start
                profiler.stop()
            finally:
                shutil.rmtree(target)
            session = profiler.last_session
            assert session is not None
            root = session.root_frame()
            text = top_costs(root) if root is not None else "  (no samples)"
            print(f"\nprofile: our {label} upsert on one thread, {wall:.2f} s wall")
            print(text)
            out = PROFILE_DIR / f"upsert_{kind}.txt"
            tree = profiler.output_text(show_all=True, processor_options={"filter_threshold": 0.002})
            out.write_text(f"our {label} upsert, one thread, {wall:.2f} s wall\n\n{text}\n\n{tree}")
            print(f"  full profile: {out}")
    finally:
        parallel.default_parallelism = original


# ---- main -----------------------------------------------------------------------------------


def _parse_options(values: Sequence[str]) -> dict[str, str]:
    options = {}
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep:
            raise SystemExit(f"--hudi-option expects KEY=VALUE, got {value!r}")
        options[key.strip()] = setting.strip()
    return options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7, help="seed of the update batch (the base uses 42)")
    parser.add_argument("--profile", action="store_true", help="also profile our upserts with pyinstrument")
    parser.add_argument(
        "--hudi-option", action="append", default=[], metavar="KEY=VALUE", help="a Hudi option for our tables"
    )
    parser.add_argument("--workdir", default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    options = _parse_options(args.hudi_option)

    base = trips(args.rows)
    batch = updates(base, 0.01, 0.0, args.seed)
    print(
        f"{args.rows:,} base rows ({base.nbytes / args.rows:.0f} B/row in memory, "
        f"{len(base.column(PARTITION).unique())} partitions); batch of {batch.num_rows:,} updates, 0 new keys; "
        f"Hudi options {options or 'default'}; {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory(prefix="bench-upsert-", dir=args.workdir) as tmp:
        scratch = Path(tmp)
        paths = load_all(scratch, base, options)
        cow = Variant("ours upsert CoW", paths["cow"], hudi_upsert(batch, options))
        variants = {
            "cow": cow,
            "mor": Variant("ours upsert MoR", paths["mor"], hudi_upsert(batch, options)),
            "delta_uuid": Variant(
                "delta-rs merge (uuid)", paths["delta"], delta_merge(batch, DELTA_PREDICATES["delta-rs merge (uuid)"])
            ),
            "delta_city": Variant(
                "delta-rs merge (city+uuid)",
                paths["delta"],
                delta_merge(batch, DELTA_PREDICATES["delta-rs merge (city+uuid)"]),
            ),
            "raw": Variant(
                "raw pyarrow rewrite (CoW files)",
                paths["cow"],
                raw_rewrite(batch, lambda: touched_base_files(cow.first_result), lambda: cow.codec_after),
            ),
        }
        print(f"\ntimed upserts ({args.repeat} round(s), each on a fresh copy):")
        run_variants(list(variants.values()), args.repeat, scratch, base, batch)
        variants["key_floor"] = Variant("raw pyarrow: read all record keys", paths["mor"], raw_key_read)
        variants["write_floor"] = Variant(
            "raw pyarrow: write rewritten rows",
            paths["cow"],
            raw_write_only(lambda: touched_base_files(cow.first_result), lambda: cow.codec_after),
        )
        print(f"\nfloors ({args.repeat} round(s)):")
        run_variants([variants["key_floor"], variants["write_floor"]], args.repeat, scratch, base, batch)
        report(variants, args.repeat)
        if args.profile:
            profile_upserts(paths, scratch, batch, options)


if __name__ == "__main__":
    main()
