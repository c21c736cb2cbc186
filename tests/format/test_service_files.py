"""Structural interop of table-service files: plans and commits have the shape Hudi writes.

Compaction and clustering files are compared with the Spark-written ones in the corpus (embedded
writer schemas, filled fields); clean, savepoint and restore files (absent from the corpus) with
Hudi's Avro schemas in ../shared/reference/hudi-avro, field by field.
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from pipelines.corpus import conformance_dir

REFERENCE_AVRO = conformance_dir().parent / "reference" / "hudi-avro"  # ../shared beside the checkout
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("p", pa.string())])
CORPUS_MOR = "sample_table/mor/avro/v9_txns_complex_meta"


def _strip(schema: Any) -> Any:
    """A schema without docs and Java string hints (irrelevant to Avro resolution)."""
    if isinstance(schema, dict):
        if schema.get("type") == "string" and set(schema) <= {"type", "avro.java.string"}:
            return "string"
        return {k: _strip(v) for k, v in schema.items() if k not in ("doc", "avro.java.string")}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def _container(path: str) -> tuple[Any, dict[str, Any]]:
    with open(path, "rb") as f:
        reader = fastavro.reader(f)
        schema = json.loads(reader.metadata["avro.schema"])
        return schema, next(iter(reader))


def _one(pattern: str) -> str:
    found = sorted(glob.glob(pattern))
    assert found, pattern
    return found[0]


def _rows(ids: list[int], v: int) -> pa.Table:
    return pa.table({"id": ids, "v": [v] * len(ids), "p": ["a" if i % 2 else "b" for i in ids]}, schema=SCHEMA)


@pytest.fixture(scope="module")
def serviced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Merge-on-Read table that went through every service."""
    path = tmp_path_factory.mktemp("services") / "t"
    options = {"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
    table = HudiTable.create(str(path), SCHEMA, "t", ["id"], ["p"], None, "MERGE_ON_READ", options)
    table.insert(_rows(list(range(6)), 0), options)
    for v in range(1, 4):
        table.upsert(_rows([1, 2], v), {**options, "hoodie.parquet.small.file.limit": "0"})
    table.compact(options=options)
    clustered = table.cluster(options={**options, "hoodie.clustering.plan.strategy.sort.columns": "v"})
    assert clustered is not None and clustered.instant_time is not None
    table.savepoint(clustered.instant_time)
    table.upsert(_rows([3], 9), options)
    table.clean({**options, "hoodie.clean.commits.retained": "1"})
    table.restore(clustered.instant_time)
    return path


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("*.compaction.requested", ".hoodie/timeline/*.compaction.requested"),
        ("*.clustering.requested", ".hoodie/timeline/*.clustering.requested"),
    ],
)
def test_service_plans_embed_the_writer_schemas_hudi_embeds(
    ours: str, theirs: str, serviced: Path, corpus_table: Callable[[str], Path]
) -> None:
    our_schema, our_record = _container(_one(str(serviced / ".hoodie/timeline" / ours)))
    corpus = corpus_table(CORPUS_MOR)
    their_schema, their_record = _container(_one(str(corpus / theirs)))
    assert _strip(our_schema) == _strip(their_schema)
    assert set(our_record) == set(their_record)


def test_compaction_write_stats_fill_what_spark_fills(tmp_path: Path, corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "t", ["id"], ["p"], None, "MERGE_ON_READ")
    table.insert(_rows(list(range(6)), 0))
    table.upsert(_rows([1, 2], 1), {"hoodie.parquet.small.file.limit": "0"})
    table.delete(_rows([3], 2))
    result = table.compact()
    assert result is not None
    our_schema, ours = _container(_one(str(tmp_path / f"t/.hoodie/timeline/{result.instant_time}_*.commit")))
    corpus = corpus_table(CORPUS_MOR)
    requested = Path(_one(str(corpus / ".hoodie/timeline/*.compaction.requested"))).name.split(".")[0]
    their_schema, theirs = _container(_one(str(corpus / f".hoodie/timeline/{requested}_*.commit")))
    assert _strip(our_schema) == _strip(their_schema)
    assert (ours["operationType"], ours["compacted"]) == (theirs["operationType"], theirs["compacted"])

    def filled(stat: dict[str, Any]) -> set[str]:
        return {k for k, v in stat.items() if v is not None}

    their_stats = [s for stats in theirs["partitionToWriteStats"].values() for s in stats]
    our_stats = [s for stats in ours["partitionToWriteStats"].values() for s in stats]
    assert {frozenset(filled(s)) for s in our_stats} == {frozenset(filled(s)) for s in their_stats}


def test_clustering_replacecommit_matches_spark(tmp_path: Path, corpus_table: Callable[[str], Path]) -> None:
    table = HudiTable.create(str(tmp_path / "t"), SCHEMA, "t", ["id"], ["p"], None)
    for v in range(3):
        table.bulk_insert(_rows([10 * v + 1, 10 * v + 2], v))
    result = table.cluster()
    assert result is not None
    our_schema, ours = _container(_one(str(tmp_path / f"t/.hoodie/timeline/{result.instant_time}_*.replacecommit")))
    corpus = corpus_table("sample_table/cow/v9_txns_nonpart_meta")
    requested = Path(_one(str(corpus / ".hoodie/timeline/*.clustering.requested"))).name.split(".")[0]
    their_schema, theirs = _container(_one(str(corpus / f".hoodie/timeline/{requested}_*.replacecommit")))
    assert _strip(our_schema) == _strip(their_schema)
    assert ours["operationType"] == theirs["operationType"] == "CLUSTER"
    our_stat = next(s for stats in ours["partitionToWriteStats"].values() for s in stats)
    their_stat = next(s for stats in theirs["partitionToWriteStats"].values() for s in stats)
    assert {k for k, v in our_stat.items() if v is not None} == {k for k, v in their_stat.items() if v is not None}
    assert our_stat["prevCommit"] == their_stat["prevCommit"] == "null"


def _reference(name: str) -> dict[str, Any]:
    text = re.sub(r"/\*.*?\*/", "", (REFERENCE_AVRO / f"{name}.avsc").read_text(), flags=re.S)
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _fields(schema: dict[str, Any]) -> list[str]:
    return [f["name"] for f in schema["fields"]]


@pytest.mark.parametrize(
    ("pattern", "reference"),
    [
        ("*.clean.requested", "HoodieCleanerPlan"),
        ("*_*.clean", "HoodieCleanMetadata"),
        ("*_*.savepoint", "HoodieSavePointMetadata"),
        ("*.restore.requested", "HoodieRestorePlan"),
        ("*_*.restore", "HoodieRestoreMetadata"),
    ],
)
def test_clean_savepoint_restore_files_follow_hudis_schemas(pattern: str, reference: str, serviced: Path) -> None:
    schema, record = _container(_one(str(serviced / ".hoodie/timeline" / pattern)))
    expected = _reference(reference)
    assert schema["name"] == expected["name"] and schema["namespace"] == expected["namespace"]
    if reference == "HoodieRestorePlan":
        # Hudi >= 0.14 writes savepointToRestoreTimestamp; the saved .avsc predates it.
        assert _fields(schema) == [*_fields(expected), "savepointToRestoreTimestamp"]
    else:
        assert _fields(schema) == _fields(expected)
    assert set(record) == set(_fields(schema))
