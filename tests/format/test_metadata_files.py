"""Our metadata table next to the ones Apache Hudi wrote into the conformance tables, structure by
structure: hoodie.properties keys, file and file-group names, log-block headers, the HFile file
info, the record schema (ours is Hudi 1.0's; the corpus was written by 1.1, a superset), keys and
the file group each key lands in, and the commit metadata of the metadata table's deltacommits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.properties import parse_properties
from hudi_core.file_group.base_file.hfile import read_hfile_cells, read_hfile_info
from hudi_core.file_group.log_file.format import BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.metadata.keys import file_group_index
from hudi_core.metadata.record import SCHEMA_V8, decode
from hudi_core.timeline.serde import decode_instant_content

CORPUS = "sample_table/mor/avro/v9_txns_complex_meta"
OPTIONS = {
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.index.partition.stats.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
}
_FILE_GROUP = re.compile(r"^(files|col-stats|record-index|partition-stats|bloom-filters)-\d{4}-0$")


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mdt") / "t"
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("region", pa.string())])
    table = HudiTable.create(str(base), schema, "ours", ["id"], ["region"], ["ts"], "MERGE_ON_READ")
    for ts in range(1, 4):
        rows = [{"id": f"k{i}", "ts": ts, "region": ("eu", "us")[i % 2]} for i in range(ts * 5)]
        table.upsert(pa.Table.from_pylist(rows, schema=schema), OPTIONS)
    return base / ".hoodie" / "metadata"


@pytest.fixture(scope="module")
def theirs(corpus_table: Callable[[str], Path]) -> Path:
    return corpus_table(CORPUS) / ".hoodie" / "metadata"


def _properties(mdt: Path) -> dict[str, str]:
    return parse_properties((mdt / ".hoodie" / "hoodie.properties").read_text())


@pytest.mark.conformance
def test_metadata_table_properties_match_hudi_keys_and_values(ours: Path, theirs: Path) -> None:
    mine, real = _properties(ours), _properties(theirs)
    assert set(mine) == set(real)
    differing = {k for k in mine if mine[k] != real[k]}
    # Version 8 (ours) vs 9 (the corpus), and the name (with its checksum) of another table.
    assert differing <= {
        "hoodie.table.version",
        "hoodie.table.initial.version",
        "hoodie.table.name",
        "hoodie.table.checksum",
    }


def _log_files(mdt: Path) -> list[Path]:
    return [p for p in mdt.glob("*/.*") if ".log." in p.name]


@pytest.mark.conformance
def test_file_names_headers_and_hfile_info_match(ours: Path, theirs: Path) -> None:
    for mdt in (ours, theirs):
        for log in _log_files(mdt):
            file_id = log.name[1:].split("_", 1)[0]
            assert _FILE_GROUP.match(file_id) or file_id.startswith("secondary-index-"), log.name
    real_headers = set()
    real_info = set()
    for log in _log_files(theirs):
        for block in read_log_blocks(log.read_bytes(), str(log)):
            if block.block_type is BlockType.HFILE_DATA:
                real_headers.add(frozenset(block.header))
                real_info.add(frozenset(read_hfile_info(bytes(block.content), str(log))))
    for log in _log_files(ours):
        for block in read_log_blocks(log.read_bytes(), str(log)):
            if block.block_type is BlockType.HFILE_DATA:
                assert frozenset(block.header) in real_headers
                assert frozenset(read_hfile_info(bytes(block.content), str(log))) in real_info
    base_info = {frozenset(read_hfile_info(p.read_bytes(), str(p))) for p in theirs.glob("*/*.hfile")}
    for base in ours.glob("*/*.hfile"):
        info = set(read_hfile_info(base.read_bytes(), str(base)))
        assert any(info <= real for real in base_info), info


@pytest.mark.conformance
def test_record_schema_is_hudi_1_0_and_a_prefix_of_the_newer_one(ours: Path, theirs: Path) -> None:
    def fields(schema: dict[str, object]) -> list[str]:
        return [f["name"] for f in schema["fields"]]  # type: ignore[index, union-attr]

    (real_log,) = [p for p in _log_files(theirs) if "record-index-0002-0_20260307162628304" in p.name]
    block = next(
        b for b in read_log_blocks(real_log.read_bytes(), str(real_log)) if b.block_type is BlockType.HFILE_DATA
    )
    real = json.loads(block.header[HeaderKey.SCHEMA])
    assert fields(real)[5 : 5 + len(fields(SCHEMA_V8.record))] == fields(SCHEMA_V8.record)
    # Values written by Hudi decode with their schema into the same payload shape ours encode.
    (row, value), *_ = read_hfile_cells(bytes(block.content), str(real_log))
    record = decode(value, block.header[HeaderKey.SCHEMA])
    assert record["type"] == 5 and record["key"] == ""
    assert file_group_index(row.decode(), 10) == 2  # the key sits in record-index-0002-0


@pytest.mark.conformance
def test_deltacommit_metadata_carries_the_record_schema(ours: Path, theirs: Path) -> None:
    for mdt in (ours, theirs):
        timeline = mdt / ".hoodie" / "timeline"
        completed = [p for p in timeline.glob("*_*.deltacommit")]
        assert completed
        content = decode_instant_content(completed[-1].read_bytes(), str(completed[-1]))
        assert content is not None
        schema = json.loads(content["extraMetadata"]["schema"])
        assert schema["name"] == "HoodieMetadataRecord"
        assert all(stats for stats in content["partitionToWriteStats"].values())
