"""How each system measured next to us does an operation, on the same data.

* delta-rs (`deltalake`): `write_deltalake` partitioned by city; `DeltaTable.merge` with
  `when_matched_update_all().when_not_matched_insert_all()` for upserts and `when_matched_delete()`
  for the delete batch (a key list too long for a `delete(predicate)` string); `to_pyarrow_table`
  for reads; `load_cdf` of one version for the incremental read.
* pyiceberg with a sqlite SQL catalog: `append` and `upsert(join_cols=["uuid"])`.
* hudi-rs (`hudi`, the Rust reader's Python bindings) reading our tables.
* raw pyarrow, the limit: writing the same rows partitioned by city, reading the latest base files,
  and rewriting only the base files an operation must touch -- with our writer's codec and level,
  on as many threads as our Arrow engine uses. It knows in advance which files hold the batch's
  keys (finding them is part of every real system's job, not of the limit).

pyiceberg is imported only where used: it alone takes a second to import, which every child
process running another system's operation would pay.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake
from hudi import HudiQueryType, HudiReadOptions, HudiTableBuilder

from bench.upsert import create_hudi as _create_hudi
from bench.upsert import delta_merge as _delta_merge
from bench.upsert import replace_rows
from hudi_core import HudiTable
from hudi_core.config.write import DEFAULT_PARQUET_CODEC
from hudi_core.file_group.base_file.parquet_writer import codec_level
from hudi_core.parallel import default_parallelism

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table as IcebergTable

RECORD_KEY = "uuid"
PARTITION = "city"
ORDERING = "ts"
META_RECORD_KEY = "_hoodie_record_key"
DELTA_PREDICATES = {"uuid": "t.uuid = s.uuid", "city+uuid": "t.city = s.city AND t.uuid = s.uuid"}
ICEBERG_TABLE = "bench.trips"

Filters = Sequence[tuple[str, str, Any]] | None


# ---- ours (shared by the fixtures and the operations) ---------------------------------------------


def create_hudi(path: Path, schema: pa.Schema, table_type: str, options: dict[str, str] | None = None) -> HudiTable:
    """An empty table of ours: key `uuid`, partition `city`, ordering `ts`, default options."""
    return _create_hudi(path, schema, table_type, options or {})


def latest_base_files(table_dir: Path) -> list[str]:
    """The base files (relative paths) of the latest file slices of our table."""
    slices = HudiTable(str(table_dir)).file_slices()
    return sorted(path for path in (s.base_file_path for s in slices) if path)


# ---- delta-rs -------------------------------------------------------------------------------------


def delta_write(path: Path, data: pa.Table, change_data_feed: bool = False) -> None:
    configuration = {"delta.enableChangeDataFeed": "true"} if change_data_feed else None
    write_deltalake(str(path), data, partition_by=[PARTITION], configuration=configuration)


def delta_merge(path: Path, batch: pa.Table, predicate: str) -> dict[str, Any]:
    """Upsert: update the matched rows, insert the others (the metrics delta-rs returns)."""
    return _delta_merge(batch, predicate)(path)


def delta_delete(path: Path, keys: pa.Table, predicate: str) -> dict[str, Any]:
    merger = DeltaTable(str(path)).merge(keys, predicate=predicate, source_alias="s", target_alias="t")
    result: dict[str, Any] = merger.when_matched_delete().execute()
    return result


def delta_read(path: Path, filters: Filters = None) -> pa.Table:
    return DeltaTable(str(path)).to_pyarrow_table(filters=list(filters) if filters else None)


def delta_version(path: Path) -> int:
    return int(DeltaTable(str(path)).version())


def delta_changes(path: Path, version: int) -> pa.Table:
    """The change data feed of one version (delta-rs's incremental read of one commit)."""
    return DeltaTable(str(path)).load_cdf(starting_version=version, ending_version=version).read_all()


def delta_open(path: Path) -> int:
    """Opens the table and reads its schema and latest version."""
    table = DeltaTable(str(path))
    return len(table.schema().fields) + table.version()


# ---- pyiceberg ------------------------------------------------------------------------------------


def _iceberg_catalog(root: Path) -> SqlCatalog:
    from pyiceberg.catalog.sql import SqlCatalog  # noqa: PLC0415 - a second to import; only iceberg runs need it

    return SqlCatalog("bench", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/warehouse")


def iceberg_create(root: Path, schema: pa.Schema) -> IcebergTable:
    """An empty table partitioned by city (identity) in a new sqlite catalog under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    catalog = _iceberg_catalog(root)
    catalog.create_namespace("bench")
    table = catalog.create_table(ICEBERG_TABLE, schema=schema)
    with table.update_spec() as spec:
        spec.add_identity(PARTITION)
    return table


def iceberg_load(root: Path) -> IcebergTable:
    return _iceberg_catalog(root).load_table(ICEBERG_TABLE)


def iceberg_append(table: IcebergTable, data: pa.Table) -> None:
    table.append(data)


def iceberg_upsert(table: IcebergTable, batch: pa.Table) -> dict[str, int]:
    result = table.upsert(batch, join_cols=[RECORD_KEY])
    return {"rows_updated": result.rows_updated, "rows_inserted": result.rows_inserted}


# ---- hudi-rs --------------------------------------------------------------------------------------


def _hudi_rs_table(path: Path) -> Any:
    return HudiTableBuilder.from_base_uri(str(path)).build()


def hudi_rs_read(path: Path, filters: Filters = None) -> pa.Table:
    """hudi-rs snapshot read; its filters are strings and prune partitions and files."""
    table = _hudi_rs_table(path)
    options = HudiReadOptions()
    if filters:
        options = options.with_filters([(column, op, str(value)) for column, op, value in filters])
    batches = table.read(options)
    return pa.Table.from_batches(batches, schema=batches[0].schema if batches else None)


def hudi_rs_incremental(path: Path, start: str) -> pa.Table:
    """hudi-rs incremental read of the commits completed after `start`."""
    options = HudiReadOptions().with_query_type(HudiQueryType.Incremental).with_start_timestamp(start)
    batches = _hudi_rs_table(path).read(options)
    return pa.Table.from_batches(batches, schema=batches[0].schema if batches else None)


def hudi_rs_open(path: Path) -> int:
    """Opens the table and reads its schema and timeline."""
    table = _hudi_rs_table(path)
    return len(table.get_schema()) + len(table.get_timeline().get_completed_commits())


# ---- raw pyarrow: the limit -----------------------------------------------------------------------


@dataclass(frozen=True)
class Codec:
    """A Parquet codec as pyarrow takes it."""

    name: str
    level: int | None = None

    @classmethod
    def ours(cls) -> Codec:
        """What our base-file writer uses by default (zstd, at its level)."""
        return cls(DEFAULT_PARQUET_CODEC, codec_level(DEFAULT_PARQUET_CODEC))


def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=default_parallelism(), thread_name_prefix="raw")


def raw_partitioned_write(data: pa.Table, out_dir: Path, codec: Codec) -> int:
    """The rows of `data` split by city, one Parquet file per city; returns the rows written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cities = data.column(PARTITION).unique().to_pylist()

    def write(city: str) -> int:
        part = data.filter(pc.equal(data.column(PARTITION), city))
        pq.write_table(part, out_dir / f"{city}.parquet", compression=codec.name, compression_level=codec.level)
        return int(part.num_rows)

    with _pool() as pool:
        return sum(pool.map(write, cities))


def with_meta_columns(data: pa.Table, instant: str = "20250101000000000") -> pa.Table:
    """`data` with the five columns every Hudi base file carries first (commit time, sequence number,
    record key, partition path, file name), valued as our writer values them: what a raw write of
    the same rows in Hudi's layout must compress too."""
    count = data.num_rows
    numbers = pc.cast(pa.array(np.arange(count, dtype=np.int64)), pa.string())
    file_names = pc.binary_join_element_wise(
        pa.scalar("00000000-0000-0000-0000-000000000000-0_0-1-0_"), pa.scalar(instant), ".parquet", ""
    )
    meta = {
        "_hoodie_commit_time": pa.array([instant] * count, pa.string()),
        "_hoodie_commit_seqno": pc.binary_join_element_wise(f"{instant}_0", numbers, "_"),
        "_hoodie_record_key": data.column(RECORD_KEY),
        "_hoodie_partition_path": data.column(PARTITION),
        "_hoodie_file_name": pa.array([file_names.as_py()] * count, pa.string()),
    }
    columns = [*meta.values(), *data.columns]
    return pa.Table.from_arrays(columns, names=[*meta, *data.column_names])


@dataclass(frozen=True)
class Touched:
    """What an update or delete batch must touch in a table: the base files holding its keys, and
    the batch rows whose keys the table does not hold (inserts)."""

    files: list[str]
    new_rows: pa.Table


def touched_by(table_dir: Path, batch: pa.Table) -> Touched:
    """Finds the latest base files holding the batch's keys (not timed: the limit knows them)."""
    keys = batch.column(RECORD_KEY).combine_chunks()
    found = pa.array(np.zeros(len(keys), dtype=bool))
    files = []
    for relative in latest_base_files(table_dir):
        stored = pq.read_table(table_dir / relative, columns=[META_RECORD_KEY]).column(0)
        hits = pc.is_in(keys, value_set=stored)
        if pc.any(hits).as_py():
            files.append(relative)
            found = pc.or_(found, hits)
    return Touched(files, batch.filter(pc.invert(found)))


def raw_merge(
    table_dir: Path, touched: Touched, batch: pa.Table, out_dir: Path, codec: Codec, delete: bool = False
) -> int:
    """Rewrites the touched files with the batch's rows replacing (or, with `delete`, removing) the
    stored ones, and writes the batch's new rows; returns the rows written."""
    keys = batch.column(RECORD_KEY).combine_chunks()
    out_dir.mkdir(parents=True, exist_ok=True)

    def rewrite(relative: str) -> int:
        old = pq.read_table(table_dir / relative).replace_schema_metadata(None)
        if delete:
            new = old.filter(pc.invert(pc.is_in(old.column(RECORD_KEY), value_set=keys)))
        else:
            new, _ = replace_rows(old, batch, keys)
        target = out_dir / relative.replace("/", "__")
        pq.write_table(new, target, compression=codec.name, compression_level=codec.level)
        return int(new.num_rows)

    with _pool() as pool:
        written = sum(pool.map(rewrite, touched.files))
    if touched.new_rows.num_rows and not delete:
        written += raw_partitioned_write(touched.new_rows, out_dir / "inserts", codec)
    return written


def raw_read(
    table_dir: Path, files: Sequence[str], filters: Filters = None, columns: list[str] | None = None
) -> pa.Table:
    """pyarrow reading the given files of a table (multi-threaded), with row filters if given."""
    return pq.read_table(
        [str(table_dir / relative) for relative in files],
        filters=list(filters) if filters else None,
        columns=columns,
    )


def raw_key_scan(table_dir: Path, files: Sequence[str]) -> int:
    """pyarrow reading the record-key column of the given base files (all latest ones: what tagging a
    uniformly spread batch must read at least, the floor of an upsert that looks keys up in files)."""

    def keys(relative: str) -> int:
        return int(pq.read_table(table_dir / relative, columns=[META_RECORD_KEY]).num_rows)

    with _pool() as pool:
        return sum(pool.map(keys, files))
