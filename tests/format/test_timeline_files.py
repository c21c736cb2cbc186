"""Structural interop: what we write has the shape of what Spark + Hudi 1.x writes.

Apache Hudi's Java readers cannot run here, so compatibility is shown by decoding our files with the
code paths used for the corpus and comparing them with Spark-written files of the same kind:
hoodie.properties key sets, the Avro writer schemas embedded in instant and plan files, commit
metadata values, partition metafiles and log block headers.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.properties import parse_properties
from hudi_core.file_group.log_file.format import HeaderKey
from hudi_core.file_group.log_file.reader import read_log_blocks
from hudi_core.file_group.naming import parse_log_file_name

SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("longField", pa.int64()), ("byteField", pa.int32())])


def _strip_docs(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_docs(v) for k, v in schema.items() if k != "doc"}
    if isinstance(schema, list):
        return [_strip_docs(v) for v in schema]
    return schema


def _embedded_schema(path: str | Path) -> Any:
    with open(path, "rb") as f:
        return _strip_docs(json.loads(fastavro.reader(f).metadata["avro.schema"]))


def _properties(base: Path) -> dict[str, str]:
    return parse_properties((base / ".hoodie" / "hoodie.properties").read_text())


def _data(rows: int = 4, offset: int = 0) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(offset, offset + rows), pa.int32()),
            "name": [f"n{i}" for i in range(offset, offset + rows)],
            "longField": pa.array(range(rows), pa.int64()),
            "byteField": pa.array([10, 20] * (rows // 2), pa.int32()),
        }
    )


@pytest.mark.parametrize(
    ("corpus_name", "record_keys", "partitions", "options"),
    [
        ("sample_table/cow/v8_nonpartitioned", ["id"], None, {}),
        ("sample_table/cow/v8_simplekeygen_nonhivestyle", ["id"], ["byteField"], {}),
        (
            "sample_table/cow/v8_complexkeygen_hivestyle",
            ["id", "name"],
            ["byteField", "longField"],
            {"hoodie.datasource.write.hive_style_partitioning": "true"},
        ),
        (
            "sample_table/cow/v8_simplekeygen_hivestyle_no_metafields",
            ["id"],
            ["byteField"],
            {"hoodie.datasource.write.hive_style_partitioning": "true", "hoodie.populate.meta.fields": "false"},
        ),
    ],
)
def test_create_properties_key_set_equals_spark_written(
    corpus_name: str,
    record_keys: list[str],
    partitions: list[str] | None,
    options: dict[str, str],
    corpus_table: Callable[[str], Path],
    tmp_path: Path,
) -> None:
    theirs = _properties(corpus_table(corpus_name))
    HudiTable.create(str(tmp_path / "t"), SCHEMA, "t", record_keys, partitions, ["longField"], "COPY_ON_WRITE", options)
    ours = _properties(tmp_path / "t")
    assert set(ours) == set(theirs)
    for key in ("hoodie.table.version", "hoodie.timeline.layout.version", "hoodie.table.keygenerator.type"):
        assert ours[key] == theirs[key], key
    assert ours["hoodie.table.type"] == "COPY_ON_WRITE"


@pytest.fixture
def written(tmp_path: Path) -> Path:
    """A MoR and a CoW table with commits, deltacommits, a replacecommit and a rollback."""
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        base = tmp_path / table_type
        table = HudiTable.create(str(base), SCHEMA, "t", ["id"], ["byteField"], ["longField"], table_type)
        table.bulk_insert(_data())
        # Updates and new keys; no small-file padding, so the new keys start new file groups.
        table.upsert(pa.concat_tables([_data(2), _data(2, offset=50)]), {"hoodie.parquet.small.file.limit": "0"})
        table.delete(_data(2).select(["id", "byteField"]).slice(0, 1))
        table.insert_overwrite(_data(2, offset=100))
        if table_type == "MERGE_ON_READ":
            table.rollback(table.timeline.completed()[-1].requested_time)
    return tmp_path


CORPUS_INSTANTS = {
    "commit": ("sample_table/cow/v8_nonpartitioned", ".hoodie/timeline/*_*.commit"),
    "deltacommit": ("quickstart_trips_table/mor/avro/v8_mor_boundary_windows", ".hoodie/timeline/*_*.deltacommit"),
    "replacecommit": ("sample_table/cow/v9_txns_simple_nometa", ".hoodie/timeline/*_*.replacecommit"),
    "replacecommit.requested": ("sample_table/cow/v9_txns_simple_nometa", ".hoodie/timeline/*.replacecommit.requested"),
    "rollback.requested": ("sample_table/mor/parquet/v6_nonpartitioned_rollback", ".hoodie/*.rollback.requested"),
    "rollback": ("sample_table/mor/parquet/v6_nonpartitioned_rollback", ".hoodie/*.rollback"),
}
OURS = {
    "commit": ("COPY_ON_WRITE", "*_*.commit"),
    "deltacommit": ("MERGE_ON_READ", "*_*.deltacommit"),
    "replacecommit": ("COPY_ON_WRITE", "*_*.replacecommit"),
    "replacecommit.requested": ("COPY_ON_WRITE", "*.replacecommit.requested"),
    "rollback.requested": ("MERGE_ON_READ", "*.rollback.requested"),
    "rollback": ("MERGE_ON_READ", "*_*.rollback"),
}


@pytest.mark.parametrize("kind", sorted(CORPUS_INSTANTS))
def test_instant_files_embed_the_writer_schemas_hudi_embeds(
    kind: str, written: Path, corpus_table: Callable[[str], Path]
) -> None:
    corpus_name, pattern = CORPUS_INSTANTS[kind]
    theirs = sorted(glob.glob(str(corpus_table(corpus_name) / pattern)))[0]
    table_type, our_pattern = OURS[kind]
    ours = sorted(glob.glob(str(written / table_type / ".hoodie" / "timeline" / our_pattern)))[0]
    assert _embedded_schema(ours) == _embedded_schema(theirs)
    with open(ours, "rb") as f:
        reader = fastavro.reader(f)
        assert set(reader.metadata) == {"avro.schema"}  # codec null is implied, as in Hudi's files
        assert len(list(reader)) == 1


def _records(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        record: dict[str, Any] = next(iter(fastavro.reader(f)))
    return record


def _filled(stat: dict[str, Any]) -> set[str]:
    return {k for k, v in stat.items() if v is not None}


def test_commit_metadata_values_follow_spark(written: Path, corpus_table: Callable[[str], Path]) -> None:
    theirs = _records(
        sorted(
            glob.glob(str(corpus_table("sample_table/cow/v8_complexkeygen_hivestyle") / ".hoodie/timeline/*_*.commit"))
        )[-1]
    )
    ours = _records(sorted(glob.glob(str(written / "COPY_ON_WRITE" / ".hoodie/timeline/*_*.commit")))[1])
    their_stats = [s for stats in theirs["partitionToWriteStats"].values() for s in stats]
    our_stats = [s for stats in ours["partitionToWriteStats"].values() for s in stats]
    new_file = next(s for s in our_stats if s["prevCommit"] == "null")
    updated = next(s for s in our_stats if s["prevCommit"] != "null")
    assert _filled(new_file) == _filled(next(s for s in their_stats if s["prevCommit"] == "null"))
    assert _filled(updated) == _filled(next(s for s in their_stats if s["prevCommit"] != "null"))
    for stat in our_stats:
        assert stat["path"] == f"{stat['partitionPath']}/{stat['path'].rsplit('/', 1)[-1]}"  # relative path
    assert ours["operationType"] == "UPSERT" and ours["compacted"] is False and ours["version"] is None
    schema = json.loads(ours["extraMetadata"]["schema"])
    assert [f["name"] for f in schema["fields"]] == SCHEMA.names
    assert all(f["type"][0] == "null" and f["default"] is None for f in schema["fields"])


def test_log_append_stat_and_block_headers_follow_spark(written: Path, corpus_table: Callable[[str], Path]) -> None:
    corpus = corpus_table("quickstart_trips_table/mor/avro/v8_mor_boundary_windows")
    theirs = _records(sorted(glob.glob(str(corpus / ".hoodie/timeline/*_*.deltacommit")))[1])
    ours_files = sorted(glob.glob(str(written / "MERGE_ON_READ" / ".hoodie/timeline/*_*.deltacommit")))
    our_log_commit = next(
        r
        for r in map(_records, ours_files)
        if any(s["logVersion"] for st in r["partitionToWriteStats"].values() for s in st)
    )
    their_stat = next(s for st in theirs["partitionToWriteStats"].values() for s in st)
    our_stat = next(s for st in our_log_commit["partitionToWriteStats"].values() for s in st if s["logVersion"])
    assert _filled(our_stat) == _filled(their_stat)
    assert our_stat["baseFile"] == "" and our_stat["logOffset"] == 0 and our_stat["logVersion"] == 1
    assert our_stat["logFiles"] == [our_stat["path"].rsplit("/", 1)[-1]]
    parsed = parse_log_file_name(our_stat["logFiles"][0])
    assert parsed is not None and parsed.instant_time == our_stat["prevCommit"]
    their_log = sorted(glob.glob(str(corpus / ".*.log.*")))[0]
    their_block = read_log_blocks(Path(their_log).read_bytes(), their_log)[0]
    our_log = written / "MERGE_ON_READ" / our_stat["path"]
    our_block = read_log_blocks(our_log.read_bytes(), str(our_log))[0]
    # Our updates also record their base positions, as Apache Hudi 1.2's datasource upserts do
    # (this corpus table's writer did not): an optional pair of headers.
    positions = {HeaderKey.RECORD_POSITIONS, HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS}
    assert set(our_block.header) - positions == set(their_block.header) == {HeaderKey.INSTANT_TIME, HeaderKey.SCHEMA}
    assert not set(our_block.header) & positions or set(our_block.header) >= positions
    assert bytes(our_block.content[:4]) == bytes(their_block.content[:4])  # Avro data block version 3
    ours_schema = json.loads(our_block.header[HeaderKey.SCHEMA])
    theirs_schema = json.loads(their_block.header[HeaderKey.SCHEMA])
    assert ours_schema["fields"][:5] == theirs_schema["fields"][:5]  # the meta fields, doc "" and all


def test_partition_metafile_matches_spark(written: Path, corpus_table: Callable[[str], Path]) -> None:
    theirs = parse_properties(
        (
            corpus_table("sample_table/cow/v8_simplekeygen_nonhivestyle") / "10" / ".hoodie_partition_metadata"
        ).read_text()
    )
    ours = parse_properties((written / "COPY_ON_WRITE" / "10" / ".hoodie_partition_metadata").read_text())
    assert set(ours) == set(theirs) == {"commitTime", "partitionDepth"}
    assert ours["partitionDepth"] == theirs["partitionDepth"] == "1"
