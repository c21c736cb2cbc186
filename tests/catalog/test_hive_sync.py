"""Hive metastore sync against a real Hive standalone metastore on loopback (tests/catalog/conftest.py):
what a write registers, how later commits change it, Merge-on-Read's two tables, the calls an
incremental sync makes, and a sync that fails half-way."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import MetaSyncError
from hudi_core.sync import sync_table
from hudi_core.sync.hive_metastore import HiveMetastoreCatalog
from tests.catalog.hive_metastore import HiveMetastoreServer
from tests.catalog.metastore_client import MetastoreClient

SCHEMA = pa.schema([("id", pa.int64()), ("fare", pa.float64()), ("ts", pa.int64()), ("dt", pa.string())])
HIVE_STYLE = {"hoodie.datasource.write.hive_style_partitioning": "true"}


def _rows(ids: list[int], dt: str, fare: float = 1.0) -> pa.Table:
    return pa.table({"id": ids, "fare": [fare] * len(ids), "ts": [1] * len(ids), "dt": [dt] * len(ids)})


def _days(*days: int) -> pa.Table:
    return pa.concat_tables([_rows([day], f"2026-01-{day:02d}") for day in days])


def _sync_options(uri: str, database: str, **extra: str) -> dict[str, str]:
    return {
        "hoodie.datasource.hive_sync.enable": "true",
        "hoodie.datasource.hive_sync.mode": "hms",
        "hoodie.datasource.hive_sync.metastore.uris": uri,
        "hoodie.datasource.hive_sync.database": database,
        "hoodie.datasource.hive_sync.table": "rides",
        **extra,
    }


@pytest.fixture
def database() -> str:
    return f"lake_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def metastore(hive_metastore: HiveMetastoreServer) -> Iterator[MetastoreClient]:
    with MetastoreClient(hive_metastore.uri) as client:
        yield client


def _create(tmp_path: Path, table_type: str = "COPY_ON_WRITE") -> HudiTable:
    return HudiTable.create(
        str(tmp_path / "rides"), SCHEMA, "rides", ["id"], ["dt"], ["ts"], table_type=table_type, options=HIVE_STYLE
    )


def test_a_write_registers_the_table_as_apache_hudi_does(
    tmp_path: Path, hive_metastore: HiveMetastoreServer, metastore: MetastoreClient, database: str
) -> None:
    table = _create(tmp_path)
    result = table.upsert(_days(1, 2, 2), _sync_options(hive_metastore.uri, database))
    registered = metastore.table(database, "rides")
    location = "file:" + str(tmp_path / "rides")
    assert registered.tableType == "EXTERNAL_TABLE"
    assert registered.sd.location == location
    assert registered.sd.inputFormat == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
    assert registered.sd.outputFormat == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
    assert registered.sd.serdeInfo.serializationLib == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert registered.sd.serdeInfo.parameters == {
        "path": table.base_uri,
        "hoodie.query.as.ro.table": "false",
        "serialization.format": "1",
    }
    assert [(c.name, c.type) for c in registered.sd.cols] == [
        ("_hoodie_commit_time", "string"),
        ("_hoodie_commit_seqno", "string"),
        ("_hoodie_record_key", "string"),
        ("_hoodie_partition_path", "string"),
        ("_hoodie_file_name", "string"),
        ("id", "bigint"),
        ("fare", "double"),
        ("ts", "bigint"),
    ]
    assert [(c.name, c.type) for c in registered.partitionKeys] == [("dt", "string")]
    parameters = registered.parameters
    assert parameters["EXTERNAL"] == "TRUE"
    assert parameters["last_commit_time_sync"] == result.instant_time
    assert parameters["last_commit_completion_time_sync"] == result.completion_time
    assert parameters["spark.sql.sources.provider"] == "hudi"
    assert parameters["spark.sql.sources.schema.partCol.0"] == "dt"
    assert metastore.partitions(database, "rides") == {
        ("2026-01-01",): f"{location}/dt=2026-01-01",
        ("2026-01-02",): f"{location}/dt=2026-01-02",
    }


def test_later_commits_add_columns_and_partitions_and_drop_deleted_ones(
    tmp_path: Path, hive_metastore: HiveMetastoreServer, metastore: MetastoreClient, database: str
) -> None:
    options = _sync_options(hive_metastore.uri, database)
    table = _create(tmp_path)
    table.upsert(_days(1, 2, 3), options)
    wider = _rows([4], "2026-01-04").append_column("city", pa.array(["lisbon"]))
    table.upsert(wider, options)
    registered = metastore.table(database, "rides")
    assert [(c.name, c.type) for c in registered.sd.cols][-1] == ("city", "string")
    # CASCADE: the partitions registered before the column was added read it too.
    first = metastore.partition(database, "rides", ("2026-01-01",))
    assert [c.name for c in first.sd.cols][-1] == "city"
    table.delete_partitions(["dt=2026-01-02"], options)
    assert sorted(metastore.partitions(database, "rides")) == [("2026-01-01",), ("2026-01-03",), ("2026-01-04",)]
    with_city = _rows([9], "2026-01-03", fare=9.0).append_column("city", pa.array(["porto"]))
    table.insert_overwrite(with_city, options)  # the partition stays, with new files
    last = _rows([7], "2026-01-07").append_column("city", pa.array(["porto"]))
    table.insert_overwrite_table(last, options)  # every other partition is replaced
    assert sorted(metastore.partitions(database, "rides")) == [("2026-01-07",)]
    assert (
        metastore.table(database, "rides").parameters["last_commit_time_sync"]
        == table.timeline.completed()[-1].requested_time
    )


def test_merge_on_read_registers_read_optimized_and_real_time_tables(
    tmp_path: Path, hive_metastore: HiveMetastoreServer, metastore: MetastoreClient, database: str
) -> None:
    table = _create(tmp_path, "MERGE_ON_READ")
    table.upsert(_days(1, 2), _sync_options(hive_metastore.uri, database))
    table.upsert(_rows([1], "2026-01-01", fare=5.0), _sync_options(hive_metastore.uri, database))
    ro = metastore.table(database, "rides_ro")
    rt = metastore.table(database, "rides_rt")
    snapshot = metastore.table(database, "rides")  # the snapshot view under the table's own name too
    assert snapshot.sd.inputFormat == rt.sd.inputFormat
    assert ro.sd.inputFormat == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
    assert rt.sd.inputFormat == "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
    assert ro.sd.serdeInfo.parameters["hoodie.query.as.ro.table"] == "true"
    assert rt.sd.serdeInfo.parameters["hoodie.query.as.ro.table"] == "false"
    for registered in (ro, rt):
        assert registered.parameters["last_commit_time_sync"] == table.timeline.completed()[-1].requested_time
        assert sorted(metastore.partitions(database, registered.tableName)) == [("2026-01-01",), ("2026-01-02",)]
    other = f"{database}_skip"
    skip = _sync_options(hive_metastore.uri, other, **{"hoodie.datasource.hive_sync.skip_ro_suffix": "true"})
    sync_table(table.base_uri, skip)
    assert metastore.tables(other) == ["rides", "rides_rt"]
    assert metastore.table(other, "rides").sd.inputFormat == "org.apache.hudi.hadoop.HoodieParquetInputFormat"


def test_incremental_sync_touches_only_the_partitions_commits_changed(
    tmp_path: Path, hive_metastore: HiveMetastoreServer, metastore: MetastoreClient, database: str
) -> None:
    options = _sync_options(hive_metastore.uri, database)
    table = _create(tmp_path)
    table.upsert(_days(*range(1, 21)), options)  # 20 partitions registered
    table.upsert(_rows([100], "2026-01-21"))  # two commits the catalog has not seen
    table.upsert(_rows([1], "2026-01-01", fare=3.0))
    (result,) = sync_table(table.base_uri, options)
    (synced,) = result.tables
    assert (synced.full_listing, synced.partitions_added) == (False, ("2026-01-21",))
    # The database and table looked up, the two changed partitions looked up by name, one add,
    # and the new sync point written (alter reads the table first to keep others' properties).
    assert result.calls == {
        "get_database": 1,
        "get_table_req": 2,
        "get_partitions_by_names": 1,
        "add_partitions_req": 1,
        "alter_table_with_environment_context": 1,
    }
    (again,) = sync_table(table.base_uri, options)
    assert again.calls == {"get_database": 1, "get_table_req": 1}  # nothing new: no partition call at all
    assert len(metastore.partitions(database, "rides")) == 21


def test_a_sync_that_fails_half_way_leaves_the_commit_and_the_next_sync_catches_up(
    tmp_path: Path,
    restartable_hive_metastore: HiveMetastoreServer,
    database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = restartable_hive_metastore
    options = _sync_options(server.uri, database)
    table = _create(tmp_path)
    add_partitions = HiveMetastoreCatalog.add_partitions

    def stop_then_add(self: HiveMetastoreCatalog, *args: Any) -> None:
        server.stop()  # the table is created; the metastore goes away before its partitions are added
        add_partitions(self, *args)

    monkeypatch.setattr(HiveMetastoreCatalog, "add_partitions", stop_then_add)
    with pytest.raises(MetaSyncError, match="the write committed at instant") as failed:
        table.upsert(_days(1, 2), options)
    monkeypatch.undo()
    committed = table.timeline.completed()
    assert len(committed) == 1 and committed[0].requested_time in str(failed.value)
    assert table.read().num_rows == 2
    with pytest.raises(MetaSyncError, match="no Hive metastore answered"):
        sync_table(table.base_uri, options)
    server.start()
    with MetastoreClient(server.uri) as metastore:
        half_done = metastore.table(database, "rides")
        assert "last_commit_time_sync" not in half_done.parameters  # the sync point is written last
        table.upsert(_rows([3], "2026-01-03"), options)  # the next write's sync catches up
        assert sorted(metastore.partitions(database, "rides")) == [("2026-01-01",), ("2026-01-02",), ("2026-01-03",)]
        assert metastore.table(database, "rides").parameters["last_commit_time_sync"] == (
            table.timeline.completed()[-1].requested_time
        )


def test_ignore_exceptions_turns_a_failed_sync_into_a_warning(tmp_path: Path, database: str) -> None:
    options = _sync_options(
        "thrift://127.0.0.1:9", database, **{"hoodie.datasource.hive_sync.ignore_exceptions": "true"}
    )
    result = _create(tmp_path).upsert(_days(1), options)
    assert any("catalog sync failed" in warning for warning in result.service_warnings)


def test_a_missing_database_is_an_error_without_auto_create(
    tmp_path: Path, hive_metastore: HiveMetastoreServer, database: str
) -> None:
    table = _create(tmp_path)
    table.upsert(_days(1))
    options = _sync_options(
        hive_metastore.uri, database, **{"hoodie.datasource.hive_sync.auto_create_database": "false"}
    )
    with pytest.raises(MetaSyncError, match=f"database {database} does not exist"):
        sync_table(table.base_uri, options)
