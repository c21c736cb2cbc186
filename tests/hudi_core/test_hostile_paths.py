"""Nothing outside the table: hostile partition values, meta columns and paths read from the table.

* `Storage` refuses every relative path that is absolute or leads out of its base path, whatever
  method gets it, and converts the full paths plans record at one place, refusing outside ones.
* The key generator refuses partition values whose path would leave their partition folder (`..`,
  `.`, empty segments, a leading `/`, `.hoodie*`, control characters, segments over 255 bytes) with a
  SchemaError naming the column and the value, before anything is written.
* Meta columns cannot key, partition or order records; incoming meta columns are refilled.
* Plans, commit metadata, markers and the metadata table's listing that name a path outside the table
  delete and read nothing outside it: a canary file next to the table survives every test.

Every refusal of input leaves the folder holding the table byte-identical (the table and the
canaries beside it: a listing with the hash of every file before and after).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, SchemaError, write_hudi
from hudi_core.cli import main as cli_main
from hudi_core.cli.app import EXIT_ERROR
from hudi_core.config import HudiConfigs
from hudi_core.errors import HudiStorageError, MetadataTableError, TimelineError
from hudi_core.lifecycle.markers import IOType, Markers
from hudi_core.lifecycle.metadata_writer import MetadataSettings, MetadataTableWriter
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.updates import MetadataUpdate, files_update
from hudi_core.storage import Storage
from hudi_core.timeline.instant import Action
from hudi_core.timeline.schemas import CLEANER_PLAN, REPLACE_COMMIT_METADATA, ROLLBACK_PLAN
from hudi_core.timeline.serde import decode_instant_content, encode_avro_container
from hudi_core.timeline.writer import TimelineWriter
from tests import hudi_rs
from tests.hudi_core.write.test_write_bad_input import _edit_properties, _snapshot
from tests.model import TRIPS_SCHEMA, canonical, table_rows
from tests.partition_values import CANARY, local_lake

SCHEMA = TRIPS_SCHEMA
COLUMNS = SCHEMA.names
FIRST = [{"id": "a", "ts": 1, "city": "sf", "fare": 1.0}, {"id": "b", "ts": 1, "city": "nyc", "fare": 2.0}]
NO_METADATA = {"hoodie.metadata.enable": "false"}
HOSTILE_RELATIVE = ["../canary", "/abs/canary", "a/../../canary", "..", "a/../.."]


# ---- helpers ------------------------------------------------------------------------------------


def _rows(*rows: dict[str, Any]) -> pa.Table:
    return pa.Table.from_pylist([{"id": "n", "ts": 2, "city": "sf", "fare": 9.0, **row} for row in rows], schema=SCHEMA)


def _table(base: Path, options: dict[str, str] | None = None) -> HudiTable:
    table = HudiTable.create(str(base), SCHEMA, "hostile", ["id"], ["city"], ["ts"], options=options)
    table.upsert(pa.Table.from_pylist(FIRST, schema=SCHEMA))
    return table


def _refused(root: Path, action: Callable[[], object], error: type[Exception], match: str) -> None:
    """`action` raises `error` matching `match` and changes no byte under `root`."""
    before = _snapshot(root)
    with pytest.raises(error, match=match):
        action()
    assert _snapshot(root) == before, "the refused call changed files"


def _assert_reads_back(base: Path, ids: list[str]) -> None:
    """Our reader, through the metadata table and listing storage, and hudi-rs return the same rows:
    those with record keys `ids`."""
    ours = table_rows(HudiTable(str(base)).read(), COLUMNS)
    listed = table_rows(HudiTable(str(base), NO_METADATA).read(), COLUMNS)
    theirs = table_rows(hudi_rs.snapshot(base), COLUMNS)
    assert canonical(ours) == canonical(listed) == canonical(theirs)
    assert sorted(row["id"] for row in ours) == ids


def _data_files(base: Path) -> list[Path]:
    return sorted(p for p in base.rglob("*.parquet") if ".hoodie" not in p.relative_to(base).parts)


# ---- Storage ------------------------------------------------------------------------------------


def storage_calls(storage: Storage, path: str) -> dict[str, Callable[[], object]]:
    return {
        "full_path": lambda: storage.full_path(path),
        "full_uri": lambda: storage.full_uri(path),
        "sub": lambda: storage.sub(path),
        "list_dir": lambda: storage.list_dir(path),
        "exists": lambda: storage.exists(path),
        "read_bytes": lambda: storage.read_bytes(path),
        "read_tagged": lambda: storage.read_tagged(path),
        "open_input_file": lambda: storage.open_input_file(path),
        "modified_ms": lambda: storage.modified_ms(path),
        "size": lambda: storage.size(path),
        "makedirs": lambda: storage.makedirs(path),
        "open_output": lambda: storage.open_output(path),
        "write_bytes": lambda: storage.write_bytes(path, b"x"),
        "write_atomic": lambda: storage.write_atomic(path, b"x"),
        "create_exclusive": lambda: storage.create_exclusive(path, b"x"),
        "rename_from": lambda: storage.rename(path, "inside"),
        "rename_to": lambda: storage.rename("inside", path),
        "delete": lambda: storage.delete(path),
        "delete_dir": lambda: storage.delete_dir(path),
    }


@pytest.mark.parametrize("path", HOSTILE_RELATIVE)
def test_storage_refuses_every_path_outside_its_base_path(path: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    base.mkdir()
    (base / "inside").write_bytes(b"inside")
    storage = Storage(str(base))
    for method, call in storage_calls(storage, path).items():
        before = _snapshot(tmp_path)
        with pytest.raises(HudiStorageError, match=rf"^{re.escape(repr(path))} (is an absolute path|leads outside)"):
            call()
        assert _snapshot(tmp_path) == before, method


def test_storage_full_path_of_an_absolute_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HudiStorageError, match=r"'/etc/passwd' is an absolute path"):
        Storage(str(tmp_path)).full_path("/etc/passwd")


def test_storage_paths_inside_are_used_in_normal_form(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    assert storage.full_path("a/./b/../c") == f"{tmp_path}/a/c"
    assert storage.full_path(".") == storage.full_path("") == str(tmp_path)
    storage.write_bytes("p/./f", b"1")
    assert (tmp_path / "p" / "f").read_bytes() == b"1"
    assert storage.sub("p/../p").read_bytes("f") == b"1"


def test_storage_relative_path_parses_recorded_paths_and_refuses_outside_ones(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    storage = Storage(str(base))
    for recorded in (f"file:{base}/p/f", f"file://{base}/p/f", f"{base}/p/f", f"file:{base}/p/./f"):
        assert storage.relative_path(recorded) == "p/f", recorded
    for recorded in (f"file:{base}/../canary", f"{base}/p/../../canary", f"{base}2/f", "/etc/passwd", "p/f"):
        with pytest.raises(HudiStorageError, match="is not inside the table"):
            storage.relative_path(recorded)


# ---- partition values ---------------------------------------------------------------------------

HOSTILE_VALUES = {
    "dot-dot": ("..", r"'\.\.'"),
    "parent-path": ("../../x", r"'\.\./\.\./x'"),
    "absolute": ("/abs/x", r"leading '/' makes an absolute path"),
    "dot": (".", r"a path segment '\.'"),
    "inner-dot-dot": ("a/../b", r"a path segment '\.\.'"),
    "hoodie": (".hoodie", r"starting with '\.hoodie'"),
    "hoodie-metafile": ("x/.hoodie_partition_metadata", r"starting with '\.hoodie'"),
    "inner-hoodie": ("x.hoodie", r"containing '\.hoodie'"),
    "empty-segment": ("a//b", "an empty path segment"),
    "trailing-slash": ("a/", "an empty path segment"),
    "newline": ("a\nb", r"control character \(U\+000A\)"),
    "nul": ("a\x00b", r"control character \(U\+0000\)"),
    "c1-control": ("a\x85b", r"control character \(U\+0085\)"),
    "long": ("x" * 256, "a path segment of 256 bytes"),
    "long-multibyte": ("é" * 128, "a path segment of 256 bytes"),
}


@pytest.mark.parametrize(("value", "match"), HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_upsert_hostile_partition_value_is_refused_before_writing(value: str, match: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    table = _table(base)
    _refused(
        tmp_path,
        lambda: table.upsert(_rows({"city": "ok"}, {"id": "m", "city": value})),
        SchemaError,
        f"partition field 'city' has value {re.escape(repr(value))}.*{match}",
    )


def test_first_write_with_hostile_partition_value_creates_no_table(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    options = {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
    }
    _refused(tmp_path, lambda: write_hudi(str(base), _rows({"city": ".."}), options), SchemaError, "'city'")
    assert not base.exists()


def test_cli_write_with_hostile_partition_value_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, _ = local_lake(tmp_path)
    _table(base)
    data = tmp_path / "batch.parquet"
    pq.write_table(_rows({"city": "../../x"}), data)
    before = _snapshot(tmp_path)
    assert cli_main(["write", str(base), str(data)]) == EXIT_ERROR
    assert "partition field 'city' has value '../../x'" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_slash_inside_a_value_makes_multi_level_partitions(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    table = _table(base)
    table.upsert(_rows({"id": "c", "city": "americas/united_states/san_francisco"}, {"id": "d", "city": "2024/01/02"}))
    assert (base / "americas" / "united_states" / "san_francisco").is_dir()
    assert (base / "2024" / "01" / "02").is_dir()
    _assert_reads_back(base, ["a", "b", "c", "d"])


def test_dot_prefixed_partition_reads_back_when_listing_storage(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    table = _table(base)
    table.upsert(_rows({"id": "c", "city": ".sf"}, {"id": "d", "city": "_sf"}))
    _assert_reads_back(base, ["a", "b", "c", "d"])


def test_nested_partitions_read_back_when_listing_storage_and_survive_cleaning(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    table = _table(base)
    table.upsert(_rows({"id": "c", "city": "sf/mission"}))
    _assert_reads_back(base, ["a", "b", "c"])
    table.delete_partitions(["sf"])
    table.upsert(_rows({"id": "d", "city": "nyc"}))
    cleaned = table.clean({"hoodie.clean.commits.retained": "1"})
    assert cleaned is not None and cleaned.counts == {"files_deleted": 1, "partitions_deleted": 0}
    _assert_reads_back(base, ["b", "c", "d"])


def test_hive_style_and_url_encoding_keep_values_in_their_segment(tmp_path: Path) -> None:
    hive, _ = local_lake(tmp_path)
    table = _table(hive, {"hoodie.datasource.write.hive_style_partitioning": "true"})
    table.upsert(_rows({"id": "c", "city": ".."}, {"id": "d", "city": "."}))
    assert (hive / "city=..").is_dir() and (hive / "city=.").is_dir()
    encoded = tmp_path / "encoded"
    table = _table(encoded, {"hoodie.datasource.write.partitionpath.urlencode": "true"})
    table.upsert(_rows({"id": "c", "city": "/abs/x"}, {"id": "d", "city": "a\nb"}))
    assert (encoded / "%2Fabs%2Fx").is_dir() and (encoded / "a%0Ab").is_dir()
    for base in (hive, encoded):
        _assert_reads_back(base, ["a", "b", "c", "d"])


def test_binary_partition_column_with_invalid_utf8_raises_schema_error(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("part", pa.binary())])
    table = HudiTable.create(str(base), schema, "binary", ["id"], ["part"], ["ts"])
    table.upsert(pa.table({"id": ["a"], "ts": [1], "part": [b"ok"]}, schema=schema))
    bad = pa.table({"id": ["b"], "ts": [1], "part": [b"\xff\xfe"]}, schema=schema)
    _refused(
        tmp_path, lambda: table.upsert(bad), SchemaError, r"partition field 'part' of type binary has no string form"
    )


# ---- meta columns -------------------------------------------------------------------------------

META_ROLES = {
    "record-key": (["_hoodie_record_key"], ["city"], ["ts"], r"record key field\(s\) \['_hoodie_record_key'\]"),
    "partition": (["id"], ["_hoodie_partition_path"], ["ts"], r"partition field\(s\) \['_hoodie_partition_path'\]"),
    "ordering": (["id"], ["city"], ["_hoodie_commit_time"], r"ordering field\(s\) \['_hoodie_commit_time'\]"),
}


@pytest.mark.parametrize(("keys", "partitions", "ordering", "match"), META_ROLES.values(), ids=META_ROLES.keys())
def test_create_with_a_meta_column_as_key_partition_or_ordering_field_is_refused(
    keys: list[str], partitions: list[str], ordering: list[str], match: str, tmp_path: Path
) -> None:
    schema = pa.schema([*SCHEMA, pa.field("_hoodie_record_key", pa.string())])
    with pytest.raises(SchemaError, match=f"{match} are Hudi meta columns"):
        HudiTable.create(str(tmp_path / "t"), schema, "t", keys, partitions, ordering)
    assert not (tmp_path / "t").exists()


def test_first_write_naming_a_meta_column_as_record_key_creates_no_table(tmp_path: Path) -> None:
    options = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "_hoodie_record_key"}
    data = _rows({}).append_column("_hoodie_record_key", pa.array(["k"]))
    with pytest.raises(SchemaError, match=r"\['_hoodie_record_key'\] are Hudi meta columns"):
        write_hudi(str(tmp_path / "t"), data, options)
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("hoodie.table.recordkey.fields", "_hoodie_record_key"),
        ("hoodie.table.partition.fields", "_hoodie_partition_path"),
        ("hoodie.table.precombine.field", "_hoodie_commit_seqno"),
    ],
)
def test_write_to_a_table_declaring_a_meta_column_field_is_refused(prop: str, value: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    _table(base)
    _edit_properties(base, **{prop: value})
    table = HudiTable(str(base))
    _refused(tmp_path, lambda: table.upsert(_rows({})), SchemaError, rf"\['{value}'\] are Hudi meta columns")


def test_rows_read_back_with_meta_columns_write_again_with_meta_columns_refilled(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    table = _table(base)
    stored = table.read()
    tampered = stored.set_column(
        stored.schema.get_field_index("_hoodie_partition_path"),
        "_hoodie_partition_path",
        pa.array(["../x"] * stored.num_rows),
    )
    tampered = tampered.set_column(tampered.schema.get_field_index("ts"), "ts", pa.array([5] * stored.num_rows))
    result = table.upsert(tampered)
    rows = {r["id"]: r for r in HudiTable(str(base)).read().to_pylist()}
    assert {r["_hoodie_partition_path"] for r in rows.values()} == {"sf", "nyc"}
    assert {r["_hoodie_commit_time"] for r in rows.values()} == {result.instant_time}
    assert {r["ts"] for r in rows.values()} == {5}
    assert {r["_hoodie_record_key"] for r in rows.values()} == {"a", "b"}


def test_hoodie_operation_and_is_deleted_are_user_columns(tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    schema = pa.schema([*SCHEMA, ("_hoodie_operation", pa.string()), ("_hoodie_is_deleted", pa.bool_())])
    table = HudiTable.create(str(base), schema, "t", ["id"], ["city"], ["ts"])
    first = [{**row, "_hoodie_operation": "I", "_hoodie_is_deleted": False} for row in FIRST]
    table.upsert(pa.Table.from_pylist(first, schema=schema))
    table.upsert(pa.Table.from_pylist([{**first[0], "ts": 2, "_hoodie_is_deleted": True}], schema=schema))
    rows = HudiTable(str(base)).read(columns=["id", "_hoodie_operation", "_hoodie_is_deleted"]).to_pylist()
    assert rows == [{"id": "b", "_hoodie_operation": "I", "_hoodie_is_deleted": False}]


# ---- markers and write stats --------------------------------------------------------------------


def test_stray_file_cleanup_compares_markers_and_stats_in_normal_form(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    markers = Markers(storage, "20250101000000000")
    for path in ("p/./f.parquet", "p/stray.parquet"):
        markers.create(path, IOType.CREATE)
        storage.write_bytes(path, b"data")
    assert markers.data_files() == ["p/f.parquet", "p/stray.parquet"]
    assert markers.unlisted(["p/./f.parquet"]) == ["p/stray.parquet"]
    assert markers.unlisted(["p/f.parquet", "./p/stray.parquet"]) == []


def test_markers_that_name_no_writable_data_file_are_skipped(tmp_path: Path) -> None:
    base, canary = local_lake(tmp_path)
    _table(base)
    instant = "20250101000000000"
    TimelineWriter(Storage(str(base)), ".hoodie/timeline", 2).request(instant, Action.COMMIT)
    storage = Storage(str(base))
    written = f"sf/00000000-0000-0000-0000-000000000000-0_0-0-0_{instant}.parquet"
    Markers(storage, instant).create(written, IOType.CREATE)
    storage.write_bytes(written, b"half written")
    crafted = base / ".hoodie" / ".temp" / instant
    for name in (
        "...marker.CREATE",
        ".hoodie/hoodie.properties.marker.CREATE",
        "sf/.hoodie_partition_metadata.marker.MERGE",
    ):
        (crafted / name).parent.mkdir(parents=True, exist_ok=True)
        (crafted / name).write_bytes(b"")
    (crafted / "sf" / "x.parquet.marker.CREATE.crc").write_bytes(b"")
    assert Markers(storage, instant).data_files() == [written]
    HudiTable(str(base)).rollback(instant)
    assert not (base / written).exists()
    assert (base / ".hoodie" / "hoodie.properties").exists() and (base / "sf" / ".hoodie_partition_metadata").exists()
    assert canary.read_bytes() == CANARY
    assert len(HudiTable(str(base)).read()) == 2


# ---- plans and commit metadata ------------------------------------------------------------------


def _outside_entries(tmp_path: Path, base: Path) -> dict[str, str]:
    return {
        "parent-uri": f"file:{base}/../canary",
        "other-uri": f"file:{tmp_path}/canary",
        "absolute": f"{tmp_path}/lake/canary",
        "metadata": f"file:{base}/.hoodie/hoodie.properties",
        "base-path": f"file:{base}",
    }


def _request_clean(base: Path, files: dict[str, list[str]], partitions: list[str]) -> None:
    """A pending clean (requested at 20250101000000000) deleting `files` and `partitions`."""
    plan = {
        "earliestInstantToRetain": None,
        "lastCompletedCommitTimestamp": "",
        "policy": "KEEP_LATEST_COMMITS",
        "filesToBeDeletedPerPartition": {},
        "version": 2,
        "filePathsToBeDeletedPerPartition": {
            partition: [{"filePath": path, "isBootstrapBaseFile": False} for path in paths]
            for partition, paths in files.items()
        },
        "partitionsToBeDeleted": partitions,
        "extraMetadata": {},
    }
    TimelineWriter(Storage(str(base)), ".hoodie/timeline", 2).request(
        "20250101000000000", Action.CLEAN, encode_avro_container(CLEANER_PLAN, plan)
    )


@pytest.mark.parametrize("entry", ["parent-uri", "other-uri", "absolute", "metadata", "base-path"])
def test_clean_plan_naming_a_path_outside_the_data_files_deletes_nothing(entry: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    _table(base)
    victim = _data_files(base)[0]
    partition = victim.parent.name
    hostile = _outside_entries(tmp_path, base)[entry]
    _request_clean(base, {partition: [f"file:{victim}"], "": [hostile]}, [])
    _refused(tmp_path, lambda: HudiTable(str(base)).clean(), TimelineError, "the clean plan of 20250101000000000")


@pytest.mark.parametrize("partition", [".", "a/..", "/abs", "../lake", ".hoodie"])
def test_clean_plan_deleting_a_partition_outside_the_partitions_deletes_nothing(partition: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    _table(base)
    _request_clean(base, {}, ["sf", partition])
    _refused(tmp_path, lambda: HudiTable(str(base)).clean(), TimelineError, rf"names partition {partition!r}")


@pytest.mark.parametrize("entry", ["parent-uri", "other-uri", "absolute", "metadata", "base-path"])
def test_pending_rollback_plan_naming_a_path_outside_the_data_files_deletes_nothing(entry: str, tmp_path: Path) -> None:
    base, _ = local_lake(tmp_path)
    _table(base)
    victim = _data_files(base)[0]
    plan = {
        "instantToRollback": {"commitTime": "20250101000000000", "action": "commit"},
        "RollbackRequests": [
            {
                "partitionPath": victim.parent.name,
                "fileId": "",
                "latestBaseInstant": "",
                "filesToBeDeleted": [str(victim), _outside_entries(tmp_path, base)[entry]],
                "logBlocksToBeDeleted": {},
            }
        ],
        "version": 1,
    }
    TimelineWriter(Storage(str(base)), ".hoodie/timeline", 2).request(
        "20250101000000001", Action.ROLLBACK, encode_avro_container(ROLLBACK_PLAN, plan)
    )
    table = HudiTable(str(base))
    _refused(tmp_path, lambda: table.upsert(_rows({})), TimelineError, "the rollback plan of 20250101000000001")


def test_replacecommit_naming_paths_outside_reads_cleans_and_restores_nothing_outside(tmp_path: Path) -> None:
    base, canary = local_lake(tmp_path)
    table = _table(base)
    kept = table.timeline.completed_data_instants()[-1].requested_time
    table.savepoint(kept)
    replaced = table.insert_overwrite(_rows({"id": "c", "city": "sf"}))
    timeline = HudiTable(str(base)).timeline
    instant = next(i for i in timeline.completed() if i.requested_time == replaced.instant_time)
    path = base / timeline.instant_path(instant)
    metadata = decode_instant_content(path.read_bytes(), str(path))
    assert metadata is not None
    stat = next(s for stats in metadata["partitionToWriteStats"].values() for s in stats)
    metadata["partitionToWriteStats"]["../lake"] = [{**stat, "partitionPath": "../lake", "path": "../canary"}]
    metadata["partitionToReplaceFileIds"]["../lake"] = ["canary"]
    path.write_bytes(encode_avro_container(REPLACE_COMMIT_METADATA, metadata))

    reread = HudiTable(str(base))
    assert sorted(r["id"] for r in reread.read(columns=["id"]).to_pylist()) == ["b", "c"]
    reread.clean()
    assert canary.read_bytes() == CANARY
    with pytest.raises(TimelineError, match=r"the commit metadata of \d+ names '\.\./canary'"):
        reread.restore(kept)
    assert canary.read_bytes() == CANARY
    assert (tmp_path / "canary").read_bytes() == CANARY


# ---- metadata table listing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("added", "match"),
    [
        ({"../lake": {"canary": 1}}, r"lists partition '\.\./lake'"),
        ({"/abs": {"canary": 1}}, r"lists partition '/abs'"),
        ({".hoodie": {"hoodie.properties": 1}}, r"lists partition '\.hoodie'"),
        ({"sf": {"../../canary": 1}}, r"lists '\.\./\.\./canary' in partition 'sf'"),
        ({"sf": {"..": 1}}, r"lists '\.\.' in partition 'sf'"),
    ],
    ids=["parent-partition", "absolute-partition", "metadata-partition", "parent-file", "dot-dot-file"],
)
def test_metadata_listing_naming_paths_outside_fails_reads(
    added: dict[str, dict[str, int]], match: str, tmp_path: Path
) -> None:
    base, canary = local_lake(tmp_path)
    _table(base)
    storage = Storage(str(base))
    assert storage.exists(".hoodie/metadata/.hoodie/hoodie.properties")
    update = MetadataUpdate()
    files_update(update, added, {})
    writer = MetadataTableWriter(storage, "hostile", MetadataSettings.of(HudiConfigs({})))
    writer.deltacommit("00000000000000099", update, [MetadataPartition.FILES])
    with pytest.raises(MetadataTableError, match=f"{match}.*hoodie.metadata.enable=false"):
        HudiTable(str(base)).read()
    listed = HudiTable(str(base), NO_METADATA).read(columns=["id"])
    assert sorted(listed.column("id").to_pylist()) == ["a", "b"]
    assert canary.read_bytes() == CANARY
