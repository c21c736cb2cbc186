"""Copy-on-Write merges find the records they replace at the rows the index found them at (no
second key join), and a merged file's bloom filter grows from the old file's instead of rehashing
every key. Whatever the index could not pin to a single row is merged by key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.file_group.base_file.bloom_filter import BloomFilter
from hudi_core.index import tagger
from hudi_core.write import handles

OPTIONS = {
    "hoodie.table.name": "merge_by_position",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "p",
}


def rows(ids: list[int], ts: int, value: str, partition: str = "a") -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i:04d}" for i in ids],
            "ts": [ts] * len(ids),
            "p": [partition] * len(ids),
            "v": [value] * len(ids),
        }
    )


def latest_base_file(path: Path) -> Path:
    return max((path / "a").glob("*.parquet"), key=lambda f: f.name.rsplit("_", 1)[1])


def footer_bloom(file: Path) -> BloomFilter:
    footer = pq.ParquetFile(file).metadata.metadata
    return BloomFilter.deserialize(
        footer[b"org.apache.hudi.bloomfilter"], footer[b"hoodie_bloom_filter_type_code"].decode()
    )


def values(path: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in HudiTable(str(path)).read(columns=["id", "v"]).to_pylist():
        found.setdefault(row["id"], []).append(row["v"])
    return found


def test_updates_deletes_and_inserts_merge_at_the_found_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_hudi(str(tmp_path), rows(list(range(0, 300, 2)), 1, "v1"), OPTIONS)
    old = footer_bloom(latest_base_file(tmp_path))

    def no_key_join(*args: object) -> None:
        raise AssertionError("merged by key although every located record had its position")

    monkeypatch.setattr(handles, "_by_keys", no_key_join)
    # Updates (one of them older than the stored row), and new keys padding the small file.
    batch = pa.concat_tables([rows([10, 4, 250], 2, "v2"), rows([6], 0, "stale"), rows([1, 3], 2, "new")])
    write_hudi(str(tmp_path), batch, OPTIONS)
    write_hudi(str(tmp_path), rows([8, 2], 3, ""), {**OPTIONS, "hoodie.datasource.write.operation": "delete"})

    result = values(tmp_path)
    assert len(result) == 150 - 2 + 2
    assert result["k0010"] == result["k0004"] == result["k0250"] == ["v2"]
    assert result["k0001"] == result["k0003"] == ["new"]
    assert result["k0006"] == ["v1"] and result["k0012"] == ["v1"]
    assert "k0008" not in result and "k0002" not in result

    # The filter of the merged file is the old one plus the two inserted keys.
    merged = latest_base_file(tmp_path)
    grown = footer_bloom(merged)
    assert grown.sized_like(old)
    assert grown.current_row_records == old.current_row_records + 2
    keys = pq.read_table(merged, columns=["_hoodie_record_key"]).column(0)
    assert grown.might_contain(keys).all()


def test_a_key_the_file_holds_twice_is_merged_by_key_into_every_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    duplicates = {
        **OPTIONS,
        "hoodie.datasource.write.operation": "insert",
        "hoodie.combine.before.insert": "false",
    }
    write_hudi(str(tmp_path), pa.concat_tables([rows([1, 2, 3], 1, "v1"), rows([2], 1, "copy")]), duplicates)
    stored = pq.read_table(latest_base_file(tmp_path), columns=["_hoodie_record_key"]).column(0).to_pylist()
    assert stored.count("k0002") == 2

    seen: list[tagger.Tags] = []
    real_tag = tagger.tag

    def recording(*args: object, **kwargs: object) -> tagger.Tags:
        seen.append(real_tag(*args, **kwargs))  # type: ignore[arg-type]
        return seen[-1]

    monkeypatch.setattr("hudi_core.write.decisions.tag", recording)
    write_hudi(str(tmp_path), rows([2, 3, 9], 2, "v2"), OPTIONS)
    # Found, but with no single row to name: no position.
    (tags,) = seen
    assert tags.file_ids.is_valid().to_pylist() == [True, True, False]
    assert tags.base_positions is not None
    assert tags.base_positions.to_pylist() == [None, stored.index("k0003"), None]
    assert values(tmp_path) == {"k0001": ["v1"], "k0002": ["v2", "v2"], "k0003": ["v2"], "k0009": ["v2"]}


def test_a_position_that_does_not_hold_its_key_falls_back_to_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_hudi(str(tmp_path), rows(list(range(20)), 1, "v1"), OPTIONS)
    real_tag = tagger.tag

    def shifted(*args: object, **kwargs: object) -> tagger.Tags:
        tags = real_tag(*args, **kwargs)  # type: ignore[arg-type]
        assert tags.base_positions is not None
        moved = pc.add(tags.base_positions, 1)  # every position one row off
        return tagger.Tags(tags.file_ids, tags.partitions, tags.stored_ordering, moved)

    monkeypatch.setattr("hudi_core.write.decisions.tag", shifted)
    write_hudi(str(tmp_path), rows([3, 7, 25], 2, "v2"), OPTIONS)
    result = values(tmp_path)
    assert len(result) == 21
    assert result["k0003"] == result["k0007"] == result["k0025"] == ["v2"]
    assert all(result[f"k{i:04d}"] == ["v1"] for i in range(20) if i not in (3, 7))


def test_a_filter_sized_differently_from_the_write_is_built_anew(tmp_path: Path) -> None:
    write_hudi(str(tmp_path), rows(list(range(50)), 1, "v1"), OPTIONS)
    write_hudi(str(tmp_path), rows([5, 60], 2, "v2"), {**OPTIONS, "hoodie.index.bloom.num_entries": "1000"})
    merged = latest_base_file(tmp_path)
    bloom = footer_bloom(merged)
    fresh = BloomFilter.create(num_entries=1000)
    assert bloom.sized_like(fresh) and bloom.current_row_records == 51
    keys = pq.read_table(merged, columns=["_hoodie_record_key"]).column(0)
    assert bloom.might_contain(keys).all()
    assert not np.any(bloom.might_contain(pa.array([f"x{i}" for i in range(200)])))


def test_an_unreadable_old_filter_is_rebuilt_from_the_keys(tmp_path: Path) -> None:
    write_hudi(str(tmp_path), rows(list(range(30)), 1, "v1"), OPTIONS)
    base = latest_base_file(tmp_path)
    parquet = pq.ParquetFile(base)
    footer = dict(parquet.metadata.metadata)
    footer[b"org.apache.hudi.bloomfilter"] = b"not a bloom filter"
    data = parquet.read()
    parquet.close()
    with pq.ParquetWriter(base, data.schema, store_schema=False) as writer:
        writer.write_table(data)
        writer.add_key_value_metadata({k.decode(): v.decode() for k, v in footer.items()})
    assert pq.ParquetFile(base).metadata.metadata[b"org.apache.hudi.bloomfilter"] == b"not a bloom filter"
    write_hudi(str(tmp_path), rows([2, 40], 2, "v2"), OPTIONS)
    merged = latest_base_file(tmp_path)
    bloom = footer_bloom(merged)
    assert bloom.current_row_records == 31
    assert bloom.might_contain(pq.read_table(merged, columns=["_hoodie_record_key"]).column(0)).all()
    assert values(tmp_path)["k0002"] == values(tmp_path)["k0040"] == ["v2"]
