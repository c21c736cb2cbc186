"""Seeded random histories: incremental and CDC reads of every window equal an independent model.

Each history (Copy-on-Write or Merge-on-Read; CDC logging off or in one of its three modes) applies
bulk inserts, upserts with late records, inserts, deletes, insert overwrites and partition deletes,
with clustering and (Merge-on-Read) compaction in between.
Then for every pair of commits (a, b) -- and from "earliest" -- the incremental read of (a, b] equals
the model's records written in the window as of b (and hudi-rs agrees), and the CDC read equals the
model's per-commit changes, row for row and in order.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from tests import hudi_rs
from tests.model import TableModel, canonical, table_rows

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("ts", pa.int64()),
        ("city", pa.string()),
        ("fare", pa.float64()),
        ("day", pa.date32()),
        ("amount", pa.decimal128(10, 2)),
    ]
)
COLUMNS = SCHEMA.names
CITIES = ["sf", "nyc", "chennai"]
MODES = (None, "OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER")
CLUSTER = {"hoodie.clustering.plan.strategy.sort.columns": "fare"}


class History:
    """Random rows; with `moves`, an update may move its key to another city (partition)."""

    def __init__(self, rng: random.Random, moves: bool) -> None:
        self.rng = rng
        self.moves = moves
        self.next_key = 0
        self.cities: dict[str, str] = {}

    def row(self, key: str, ts: int, move: bool = True) -> dict[str, Any]:
        if move and self.moves and key in self.cities and self.rng.random() < 0.3:
            self.cities[key] = self.rng.choice(CITIES)
        city = self.cities.setdefault(key, self.rng.choice(CITIES))
        return {
            "id": key,
            "ts": ts,
            "city": city,
            "fare": round(self.rng.uniform(1, 100), 2),
            "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=self.rng.randint(0, 60)),
            "amount": decimal.Decimal(self.rng.randint(-99999, 99999)).scaleb(-2),
        }

    def fresh(self, count: int, ts: int) -> list[dict[str, Any]]:
        rows = [self.row(f"k{self.next_key + i:04d}", ts) for i in range(count)]
        self.next_key += count
        return rows


LOG_COMPACT = {"hoodie.log.compaction.enable": "true", "hoodie.log.compaction.blocks.threshold": "2"}


def run_history(path: str, table_type: str, mode: str | None, seed: str, global_index: bool = False) -> TableModel:
    """Writes one random history to `path` and returns its model."""
    rng = random.Random(seed)
    history = History(rng, moves=global_index)
    options: dict[str, str] = {"hoodie.parquet.small.file.limit": "0"} if rng.random() < 0.5 else {}
    options["hoodie.clean.commits.retained"] = "20"  # every window stays readable
    if global_index:
        options["hoodie.index.type"] = "GLOBAL_SIMPLE"
    create_options = {"hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"} if global_index else {}
    if mode is not None:
        create_options["hoodie.table.cdc.enabled"] = "true"
        create_options["hoodie.table.cdc.supplemental.logging.mode"] = mode
    table = HudiTable.create(path, SCHEMA, "changes", ["id"], ["city"], ["ts"], table_type, create_options)
    model = TableModel("id", lambda r: r["city"], None if global_index else "ts", global_keys=global_index)

    def data(rows: list[dict[str, Any]]) -> pa.Table:
        return pa.Table.from_pylist(rows, schema=SCHEMA)

    rows = history.fresh(24, 100)
    result = table.bulk_insert(data(rows), options)
    model.insert_new(rows, result.instant_time, result.completion_time)
    # Every kind of write, in a random order, and table services (which change no record).
    kinds = ["upsert", "upsert", "upsert", "insert", "delete", "insert_overwrite", "delete_partition", "cluster"]
    if table_type == "MERGE_ON_READ":
        kinds.append("compact")
    rng.shuffle(kinds)
    if global_index:  # replacing partitions would not exercise moves
        kinds = ["upsert" if k in ("insert_overwrite", "delete_partition") else k for k in kinds]
    if table_type == "MERGE_ON_READ":
        # Two logs on the same keys' slices, their log compaction, and a write into its slice after it.
        kinds += ["upsert", "upsert_again", "log_compact", "upsert_again"]
    chosen: list[str] = []
    for step, kind in enumerate(kinds):
        ts = 110 + 10 * step
        stored = sorted({key for _, key in model.current})
        if kind in ("compact", "log_compact", "cluster"):
            if kind == "compact":
                service = table.compact()
            elif kind == "log_compact":
                service = table.log_compact(options=LOG_COMPACT)
                assert service is not None, "no slice had logs to compact"
            else:
                service = table.cluster(options={**options, **CLUSTER})
            if service is not None and service.instant_time is not None:
                model.service(service.instant_time, service.completion_time)
        elif kind in ("upsert", "upsert_again"):
            if kind == "upsert":
                chosen = rng.sample(stored, min(len(stored), 5))
            chosen = [k for k in chosen if k in stored]
            late = 0 if global_index else 1  # late records lose under event-time ordering
            rows = [history.row(k, ts if rng.random() < 0.75 else late) for k in chosen] + history.fresh(2, ts)
            result = table.upsert(data(rows), options)
            model.upsert(rows, result.instant_time, result.completion_time)
        elif kind == "insert":
            rows = history.fresh(4, ts)
            result = table.insert(data(rows), options)
            model.insert_new(rows, result.instant_time, result.completion_time)
        elif kind == "delete":
            rows = [history.row(k, ts, move=False) for k in rng.sample(stored, min(len(stored), 3))]
            result = table.delete(data(rows), options)
            model.delete(rows, result.instant_time, result.completion_time)
        elif kind == "insert_overwrite":
            city = rng.choice(CITIES)
            # Re-inserting stored keys of the city shows as updates; new ones as inserts.
            kept = [k for (c, k) in model.current if c == city][:3]
            rows = [history.row(k, ts) for k in kept] + [r for r in history.fresh(6, ts) if r["city"] == city]
            rows = rows or history.fresh(1, ts)
            result = table.insert_overwrite(data(rows), options)
            model.insert_overwrite(rows, result.instant_time, result.completion_time, whole_table=False)
        else:
            city = rng.choice(CITIES)
            result = table.delete_partitions([city], options)
            model.delete_partitions([city], result.instant_time, result.completion_time)
    return model


def _value(v: Any) -> Any:
    return repr(v)


def cdc_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """CDC output (struct images) as comparable tuples, in output order."""

    def image(value: dict[str, Any] | None) -> Any:
        return None if value is None else tuple(sorted((k, _value(v)) for k, v in value.items()))

    return [(r["op"], r["ts_ms"], image(r["before"]), image(r["after"])) for r in table.to_pylist()]


def windows(model: TableModel) -> list[tuple[str | None, str]]:
    completions = [c.completion for c in model.commits]
    assert all(completions)
    bounds: list[str | None] = [None, *completions]
    return [(a, b) for a, b in itertools.combinations(bounds, 2) if b is not None]


CASES = [
    pytest.param(table_type, mode, id=f"{table_type[:3]}-{mode or 'no-cdc'}")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ")
    for mode in MODES
]


@pytest.mark.parametrize(("table_type", "mode"), CASES)
def test_every_window_matches_model(table_type: str, mode: str | None, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    model = run_history(path, table_type, mode, seed=f"cdc-{table_type}")
    table = HudiTable(path)
    compare_hudi_rs = table_type == "COPY_ON_WRITE"  # hudi-rs MoR windows keep losing late records
    for start, end in windows(model):
        what = f"({start}, {end}]"
        ours = table.read_incremental(start or "earliest", end)
        expected = canonical(model.incremental(start, end, COLUMNS))
        assert canonical(table_rows(ours, COLUMNS)) == expected, f"incremental {what}"
        if compare_hudi_rs:
            theirs = hudi_rs.incremental(path, start or "00000000000000000", end)
            assert canonical(table_rows(theirs, COLUMNS)) == expected, f"hudi-rs incremental {what}"
        changes = table.read_cdc(start or "earliest", end, images="struct")
        assert cdc_rows(changes) == cdc_rows(_model_table(model.changes(start, end, COLUMNS))), f"cdc {what}"


def test_partition_moves_under_a_global_index_are_a_delete_and_an_insert(tmp_path: Path) -> None:
    """As Apache Hudi's CDC reader returns a move: changes are per file group."""
    path = str(tmp_path / "t")
    model = run_history(path, "COPY_ON_WRITE", "DATA_BEFORE_AFTER", seed="moves", global_index=True)
    table = HudiTable(path)
    expected = model.changes(None, None, COLUMNS)
    deleted = {(r["ts_ms"], r["before"]["id"], r["before"]["city"]) for r in expected if r["op"] == "d"}
    inserted = {(r["ts_ms"], r["after"]["id"], r["after"]["city"]) for r in expected if r["op"] == "i"}
    moves = {(ts, key) for ts, key, city in deleted for ts2, key2, city2 in inserted if (ts, key) == (ts2, key2)}
    assert moves, "no move happened"
    assert cdc_rows(table.read_cdc("earliest", images="struct")) == cdc_rows(_model_table(expected))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_json_images_are_identical_in_every_logging_mode(table_type: str, tmp_path: Path) -> None:
    outputs = {}
    for mode in MODES:
        path = str(tmp_path / (mode or "off"))
        run_history(path, table_type, mode, seed="same-history")
        outputs[mode] = HudiTable(path).read_cdc("earliest").drop_columns(["ts_ms"]).to_pylist()
    assert outputs[None], "the history made no changes"
    for mode in MODES[1:]:
        assert outputs[mode] == outputs[None], f"{mode} differs from inferred changes"
    first = next(r for r in outputs[None] if r["after"])
    image = json.loads(first["after"])
    assert set(image) == set(COLUMNS)
    assert isinstance(image["day"], int), "dates are days since the epoch, as Spark holds them"
    assert isinstance(image["amount"], str), "decimals keep their exact digits"


def _model_table(rows: list[dict[str, Any]]) -> pa.Table:
    image = pa.struct(list(SCHEMA))
    schema = pa.schema([("op", pa.string()), ("ts_ms", pa.string()), ("before", image), ("after", image)])
    return pa.Table.from_pylist(rows, schema=schema)
