"""The bucket index's CONSISTENT_HASHING engine, without Apache Hudi running (which
`tests/apache_hudi/test_feature_tables.py` adds).

The ring files are compared byte for byte with ones Apache Hudi 1.2 wrote; our writer creates and
follows the rings on a Merge-on-Read table, and refuses what it does not implement (a resize in
flight or never committed, insert_overwrite, Copy-on-Write).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from hudi_core import HudiConfigError, HudiTable
from hudi_core.errors import UnsupportedFeatureError
from hudi_core.index.consistent_hashing import (
    HASHING_METADATA_DIR,
    HashingMetadata,
    HashingNode,
    hash_values,
    load_ring,
)
from hudi_core.storage import Storage
from tests import hudi_rs
from tests.files import file_tree
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

OPTIONS = {
    "hoodie.index.type": "BUCKET",
    "hoodie.index.bucket.engine": "CONSISTENT_HASHING",
    "hoodie.bucket.index.num.buckets": "4",
}

# Written by Apache Hudi 1.2 for partition `nyc` of a table with 4 buckets.
APACHE_INITIAL_RING = b"""{
  "version" : 0,
  "partitionPath" : "nyc",
  "instant" : "00000000000000",
  "numBuckets" : 4,
  "seqNo" : 0,
  "nodes" : [ {
    "value" : 536870912,
    "fileIdPrefix" : "656b7676-8967-3ea8-bb5e-a57b7c57244a",
    "tag" : "NORMAL"
  }, {
    "value" : 1073741824,
    "fileIdPrefix" : "4731f177-bf27-38e5-a0bb-a9f6a918f6ec",
    "tag" : "NORMAL"
  }, {
    "value" : 1610612736,
    "fileIdPrefix" : "d63dbea4-9a9a-3709-8951-63706fb88db5",
    "tag" : "NORMAL"
  }, {
    "value" : 2147483647,
    "fileIdPrefix" : "00b4033f-b851-3eb7-b15c-4962632fdc3f",
    "tag" : "NORMAL"
  } ]
}"""

# Written by Apache Hudi 1.2's resize (clustering 20261125051434779) of a 2-bucket `nyc`.
APACHE_RESIZED_RING = b"""{
  "version" : 0,
  "partitionPath" : "nyc",
  "instant" : "20261125051434779",
  "numBuckets" : 2,
  "seqNo" : 1,
  "nodes" : [ {
    "value" : 536870911,
    "fileIdPrefix" : "3fc2e3a7-8e24-4946-a5b0-f95e2ae18987",
    "tag" : "NORMAL"
  }, {
    "value" : 1073741824,
    "fileIdPrefix" : "727d108c-c704-4810-bd53-f8045a81220d",
    "tag" : "NORMAL"
  }, {
    "value" : 1610612735,
    "fileIdPrefix" : "d9748c6f-c438-462b-9d7e-f5e724f20804",
    "tag" : "NORMAL"
  }, {
    "value" : 2147483647,
    "fileIdPrefix" : "3063fc5d-bd23-4714-af66-e46af1d825c4",
    "tag" : "NORMAL"
  } ]
}"""


def test_the_initial_ring_is_apache_hudis_byte_for_byte() -> None:
    assert HashingMetadata.initial("nyc", 4).to_json() == APACHE_INITIAL_RING


def test_a_resized_ring_reads_and_writes_back_unchanged() -> None:
    ring = HashingMetadata.from_json(APACHE_RESIZED_RING, "test")
    assert [n.value for n in ring.nodes] == [536870911, 1073741824, 1610612735, 2147483647]
    assert ring.to_json() == APACHE_RESIZED_RING


def test_a_hash_goes_to_the_first_node_at_or_above_it_wrapping_to_the_first() -> None:
    ring = HashingMetadata("p", "1", 3, 0, (HashingNode(300, "c"), HashingNode(100, "a"), HashingNode(200, "b")))
    hashes = np.array([0, 100, 101, 200, 250, 300, 301, 2**31 - 1], dtype=np.int64)
    assert ring.file_ids(hashes) == ["a-0", "a-0", "b-0", "b-0", "c-0", "c-0", "a-0", "a-0"]


def test_the_hash_is_xxhash32_of_the_joined_hash_fields_masked() -> None:
    # xxHash32("abc", seed 0) = 0x32D153FF; the mask clears the sign bit of Java's int.
    assert hash_values([pa.array(["abc"])]).tolist() == [0x32D153FF & 0x7FFFFFFF]
    joined = hash_values([pa.array(["ab"]), pa.array(["c"])])
    assert joined.tolist() == hash_values([pa.array(["abc"])]).tolist()


def _ring_file(path: Path, partition: str, instant: str) -> Path:
    return path / HASHING_METADATA_DIR / partition / f"{instant}.hashing_meta"


def _check(path: Path, model: TableModel, what: str) -> None:
    table = HudiTable(str(path))
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(table.read(), COLUMNS)) == expected, f"ours vs model: {what}"
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, f"hudi-rs vs model: {what}"
    storage = Storage(str(path))
    rows = table.read(columns=["id", "city", "_hoodie_file_name"])
    for city in set(rows["city"].to_pylist()):
        ring = load_ring(storage, city, table.timeline)
        assert ring is not None
        stored = rows.filter(pa.compute.equal(rows["city"], city))
        expected_ids = ring.file_ids(hash_values([stored["id"].combine_chunks()]))
        names = stored["_hoodie_file_name"].to_pylist()
        assert all(n.lstrip(".").startswith(f) for f, n in zip(expected_ids, names, strict=True)), what


def test_our_writer_creates_and_follows_the_rings(tmp_path: Path) -> None:
    rng = random.Random(7)
    history = History(rng, partitioned=True)
    path = tmp_path / "table"
    model = TableModel("id", lambda r: r["city"], "ts")
    table = HudiTable.create(str(path), SCHEMA, "ring", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OPTIONS)
    rows = history.fresh(60, 100)
    result = table.insert(pa.Table.from_pylist(rows, schema=SCHEMA))
    model.insert_new(rows, result.instant_time, result.completion_time)
    for city in ("sf", "nyc", "chennai"):
        assert _ring_file(path, city, "00000000000000").read_bytes() == HashingMetadata.initial(city, 4).to_json()
    file_ids = {s.file_id for s in HudiTable(str(path)).file_slices()}
    rings = {n.file_id for c in ("sf", "nyc", "chennai") for n in HashingMetadata.initial(c, 4).nodes}
    assert file_ids <= rings
    _check(path, model, "created")

    table = HudiTable(str(path))
    stored = sorted(key for _, key in model.current)
    rows = [history.row(k, 110 if rng.random() < 0.6 else 5) for k in rng.sample(stored, 20)] + history.fresh(10, 110)
    result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA), OPTIONS)
    model.upsert(rows, result.instant_time, result.completion_time)
    rows = [history.row(k, 120) for k in rng.sample(sorted(key for _, key in model.current), 5)]
    result = table.delete(pa.Table.from_pylist(rows, schema=SCHEMA), OPTIONS)
    model.delete(rows, result.instant_time, result.completion_time)
    _check(path, model, "upserted and deleted")
    assert table.compact(None, {**OPTIONS, "hoodie.compact.inline.max.delta.commits": "1"}) is not None
    _check(path, model, "compacted")

    # Hashing metadata newer than the committed ring, as Apache Hudi judges it:
    storage = Storage(str(path))
    live = {s.file_id for s in HudiTable(str(path)).file_slices() if s.partition_path == "sf"}
    initial = HashingMetadata.initial("sf", 4)
    # - an abandoned resize (instant unknown to the timeline, none of its file groups live) is ignored;
    abandoned = HashingMetadata("sf", "29990101000000000", 4, 1, (HashingNode(2**31 - 1, "9" * 8 + "-fresh"),))
    _ring_file(path, "sf", abandoned.instant).write_bytes(abandoned.to_json())
    assert load_ring(storage, "sf", HudiTable(str(path)).timeline, live) == initial
    rows = history.fresh_in("sf", 2, 130)
    result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA), OPTIONS)
    model.upsert(rows, result.instant_time, result.completion_time)
    _check(path, model, "after an abandoned resize")
    # - one whose file groups are live is the ring (its resize completed, its marker was lost);
    recommitted = HashingMetadata("sf", "29990101000000001", 4, 2, initial.nodes)
    _ring_file(path, "sf", recommitted.instant).write_bytes(recommitted.to_json())
    assert load_ring(storage, "sf", HudiTable(str(path)).timeline, live) == recommitted
    # - one with its commit marker is the ring whatever is live;
    _ring_file(path, "sf", abandoned.instant).with_suffix(".commit").write_bytes(b"")
    _ring_file(path, "sf", recommitted.instant).unlink()
    assert load_ring(storage, "sf", HudiTable(str(path)).timeline, live) == abandoned
    # (A resize whose instant is pending is refused: tests/apache_hudi/test_feature_tables.py.)


def test_consistent_hashing_refuses_what_it_does_not_implement_leaving_the_table_as_it_was(tmp_path: Path) -> None:
    history = History(random.Random(3), partitioned=True)
    cow = tmp_path / "cow"
    HudiTable.create(str(cow), SCHEMA, "t", ["id"], ["city"], ["ts"]).insert(
        pa.Table.from_pylist(history.fresh(5, 1), schema=SCHEMA)
    )
    before = file_tree(cow)
    with pytest.raises(HudiConfigError, match="CONSISTENT_HASHING needs a MERGE_ON_READ table"):
        HudiTable(str(cow)).upsert(pa.Table.from_pylist(history.fresh(2, 2), schema=SCHEMA), OPTIONS)
    assert file_tree(cow) == before
    mor = tmp_path / "mor"
    HudiTable.create(str(mor), SCHEMA, "t", ["id"], ["city"], ["ts"], "MERGE_ON_READ", OPTIONS).insert(
        pa.Table.from_pylist(history.fresh(5, 1), schema=SCHEMA)
    )
    before = file_tree(mor)
    with pytest.raises(UnsupportedFeatureError, match="insert_overwrite"):
        HudiTable(str(mor)).insert_overwrite(pa.Table.from_pylist(history.fresh(2, 2), schema=SCHEMA), OPTIONS)
    assert file_tree(mor) == before, "insert_overwrite"
    stored = HudiTable(str(mor)).read(columns=["city"])["city"][0].as_py()
    with pytest.raises(UnsupportedFeatureError, match="delete_partition"):
        HudiTable(str(mor)).delete_partitions([stored])  # refused by its ring, whatever index the call names
    assert file_tree(mor) == before, "delete_partitions"
    for resize in ("hoodie.bucket.index.split.threshold", "hoodie.bucket.index.merge.threshold"):
        with pytest.raises(HudiConfigError, match=resize.replace(".", r"\.")):
            HudiTable(str(mor)).upsert(
                pa.Table.from_pylist(history.fresh(2, 2), schema=SCHEMA), {**OPTIONS, resize: "1.5"}
            )
        assert file_tree(mor) == before, resize
