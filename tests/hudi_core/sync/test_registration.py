"""The catalog-neutral part of the sync: options, partition values, types and the registration
(no catalog involved; the catalogs are in tests/catalog/)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.config.sync import PartitionValueExtractor, SyncTool
from hudi_core.errors import HudiConfigError, MetaSyncError
from hudi_core.sync.hive_metastore import partition_name
from hudi_core.sync.partition_values import partition_values
from hudi_core.sync.registration import (
    PARQUET_INPUT_FORMAT,
    REALTIME_INPUT_FORMAT,
    catalog_location,
    registrations,
)
from hudi_core.sync.schema import hive_type, spark_table_properties
from hudi_core.sync.settings import resolve_sync_settings

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("ts", pa.int64()), ("dt", pa.string())])
HIVE_STYLE = {"hoodie.datasource.write.hive_style_partitioning": "true"}


def _table(tmp_path: Path, table_type: str = "COPY_ON_WRITE", partition_fields: list[str] | None = None) -> HudiTable:
    fields = ["dt"] if partition_fields is None else partition_fields
    return HudiTable.create(
        str(tmp_path / "t"), SCHEMA, "trips", ["id"], fields, ["ts"], table_type=table_type, options=HIVE_STYLE
    )


def test_names_and_extractor_are_inferred_from_the_table_as_hudi_infers_them(tmp_path: Path) -> None:
    config = _table(tmp_path).table_config
    settings = resolve_sync_settings({"hoodie.datasource.hive_sync.enable": "true"}, config)
    assert (settings.database, settings.table, settings.partition_fields) == ("default", "trips", ("dt",))
    assert settings.extractor is PartitionValueExtractor.HIVE_STYLE
    assert settings.tools == (SyncTool.HIVE,)
    unpartitioned = _table(tmp_path / "u", partition_fields=[]).table_config
    assert resolve_sync_settings({}, unpartitioned).extractor is PartitionValueExtractor.NON_PARTITIONED


def test_meta_sync_runs_the_tool_classes_it_names(tmp_path: Path) -> None:
    config = _table(tmp_path).table_config
    glue = {
        "hoodie.datasource.meta.sync.enable": "true",
        "hoodie.meta.sync.client.tool.class": "org.apache.hudi.aws.sync.AwsGlueCatalogSyncTool",
    }
    assert resolve_sync_settings(glue, config).tools == (SyncTool.GLUE,)
    both = {**glue, "hoodie.datasource.hive_sync.enable": "true"}
    assert resolve_sync_settings(both, config).tools == (SyncTool.HIVE, SyncTool.GLUE)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hoodie.datasource.hive_sync.mode": "jdbc"}, "HiveServer2"),
        ({"hoodie.datasource.hive_sync.metastore.uris": "localhost:9083"}, "thrift://host:port"),
        ({"hoodie.meta.sync.client.tool.class": "org.apache.hudi.gcp.bigquery.BigQuerySyncTool"}, "cannot run here"),
        ({"hoodie.datasource.hive_sync.table": "my-table"}, "letters, digits and underscores"),
        ({"hoodie.datasource.hive_sync.create_managed_table": "true"}, "external"),
        ({"hoodie.datasource.hive_sync.partition_extractor_class": "com.example.Mine"}, "cannot run here"),
        (
            {"hoodie.datasource.hive_sync.partition_extractor_class": "org.apache.hudi.hive.NonPartitionedExtractor"},
            "needs an extractor",
        ),
        (
            {
                "hoodie.datasource.hive_sync.partition_fields": "a,b",
                "hoodie.datasource.hive_sync.partition_extractor_class": "HiveStylePartitionValueExtractor",
            },
            "extracts one value",
        ),
        ({"hoodie.datasource.hive_sync.table_properties": "no equals sign"}, "key=value"),
    ],
)
def test_bad_sync_options_are_refused_naming_the_key(tmp_path: Path, options: dict[str, str], message: str) -> None:
    with pytest.raises(HudiConfigError, match=message):
        resolve_sync_settings(options, _table(tmp_path).table_config)


def test_a_write_with_bad_sync_options_fails_before_it_commits(tmp_path: Path) -> None:
    table = _table(tmp_path)
    rows = pa.table({"id": [1], "name": ["a"], "ts": [1], "dt": ["2026-01-01"]})
    with pytest.raises(HudiConfigError, match=r"hoodie\.datasource\.hive_sync\.mode"):
        table.upsert(rows, {"hoodie.datasource.hive_sync.enable": "true", "hoodie.datasource.hive_sync.mode": "hiveql"})
    assert table.timeline.instants() == []


@pytest.mark.parametrize(
    ("path", "extractor", "count", "values"),
    [
        ("dt=2026-01-01", PartitionValueExtractor.HIVE_STYLE, 1, ["2026-01-01"]),
        ("2026-01-01", PartitionValueExtractor.SINGLE_PART, 1, ["2026-01-01"]),
        ("region=eu/dt=2026-01-01", PartitionValueExtractor.MULTI_PART_KEYS, 2, ["eu", "2026-01-01"]),
        ("eu/2026-01-01", PartitionValueExtractor.MULTI_PART_KEYS, 2, ["eu", "2026-01-01"]),
        ("2026/01/02", PartitionValueExtractor.SLASH_ENCODED_DAY, 1, ["2026-01-02"]),
        ("2026/01/02/07", PartitionValueExtractor.SLASH_ENCODED_HOUR, 1, ["2026-01-02-07"]),
        ("", PartitionValueExtractor.NON_PARTITIONED, 0, []),
    ],
)
def test_partition_values_as_hudis_extractors_give_them(
    path: str, extractor: PartitionValueExtractor, count: int, values: list[str]
) -> None:
    assert partition_values(path, extractor, count) == values


def test_partition_paths_of_another_shape_are_refused() -> None:
    with pytest.raises(MetaSyncError, match="gives 1 value"):
        partition_values("eu", PartitionValueExtractor.MULTI_PART_KEYS, 2)
    with pytest.raises(MetaSyncError, match="yyyy/mm/dd"):
        partition_values("2026-01-02", PartitionValueExtractor.SLASH_ENCODED_DAY, 1)
    assert partition_values("city=S%C3%A3o", PartitionValueExtractor.HIVE_STYLE, 1, decode=True) == ["São"]


def test_partition_names_escape_as_hive_escapes_them() -> None:
    assert partition_name(["dt"], ("2026-01-01",)) == "dt=2026-01-01"
    assert partition_name(["a", "b"], ("x/y", "1:2=3")) == "a=x%2Fy/b=1%3A2%3D3"


def test_hive_and_spark_types() -> None:
    cases = {
        pa.int8(): ("int", "integer"),
        pa.int32(): ("int", "integer"),
        pa.int64(): ("bigint", "long"),
        pa.float32(): ("float", "float"),
        pa.float64(): ("double", "double"),
        pa.bool_(): ("boolean", "boolean"),
        pa.string(): ("string", "string"),
        pa.binary(): ("binary", "binary"),
        pa.date32(): ("date", "date"),
        pa.decimal128(10, 2): ("decimal(10,2)", "decimal(10,2)"),
        pa.timestamp("us", "UTC"): ("bigint", "timestamp"),
        pa.list_(pa.int32()): ("array<int>", {"type": "array", "elementType": "integer", "containsNull": True}),
        pa.struct([("a", pa.string()), ("b", pa.int64())]): ("struct<a:string,b:bigint>", None),
        pa.map_(pa.string(), pa.float64()): ("map<string,double>", None),
    }
    for arrow_type, (hive, spark) in cases.items():
        assert hive_type(arrow_type, support_timestamp=False) == hive
        if spark is not None:
            properties = spark_table_properties(pa.schema([("c", arrow_type)]), [], 4000)
            assert json.loads(properties["spark.sql.sources.schema.part.0"])["fields"][0]["type"] == spark
    assert hive_type(pa.timestamp("us", "UTC"), support_timestamp=True) == "timestamp"


def test_spark_schema_properties_are_split_and_put_partition_columns_last() -> None:
    schema = pa.schema([("dt", pa.string()), *[(f"column_{i}", pa.int64()) for i in range(40)]])
    properties = spark_table_properties(schema, ["dt"], 500)
    parts = int(properties["spark.sql.sources.schema.numParts"])
    assert parts > 1
    text = "".join(properties[f"spark.sql.sources.schema.part.{i}"] for i in range(parts))
    assert [f["name"] for f in json.loads(text)["fields"]][-1] == "dt"
    assert properties["spark.sql.sources.schema.partCol.0"] == "dt"
    assert properties["spark.sql.sources.provider"] == "hudi"


def test_merge_on_read_registers_ro_and_rt_and_honours_skip_ro_suffix(tmp_path: Path) -> None:
    table = _table(tmp_path, "MERGE_ON_READ")
    settings = resolve_sync_settings({}, table.table_config)
    ro, rt, snapshot = registrations(settings, table.table_config, table.schema, table.base_uri)
    assert (snapshot.name, snapshot.input_format) == ("trips", REALTIME_INPUT_FORMAT)
    assert (ro.name, ro.input_format, ro.serde_properties["hoodie.query.as.ro.table"]) == (
        "trips_ro",
        PARQUET_INPUT_FORMAT,
        "true",
    )
    assert (rt.name, rt.input_format, rt.serde_properties["hoodie.query.as.ro.table"]) == (
        "trips_rt",
        REALTIME_INPUT_FORMAT,
        "false",
    )
    skip = resolve_sync_settings({"hoodie.datasource.hive_sync.skip_ro_suffix": "true"}, table.table_config)
    assert [r.name for r in registrations(skip, table.table_config, table.schema, table.base_uri)] == [
        "trips",
        "trips_rt",
    ]
    only_rt = resolve_sync_settings({"hoodie.datasource.hive_sync.table.strategy": "RT"}, table.table_config)
    assert [r.name for r in registrations(only_rt, table.table_config, table.schema, table.base_uri)] == [
        "trips_rt",
        "trips",
    ]
    plain = resolve_sync_settings({"hoodie.datasource.hive_sync.sync_as_datasource": "false"}, table.table_config)
    for registered in registrations(plain, table.table_config, table.schema, table.base_uri):
        assert "hoodie.query.as.ro.table" not in registered.serde_properties
        assert not any(key.startswith("spark.sql.") for key in registered.table_properties)


def test_registration_of_a_copy_on_write_table(tmp_path: Path) -> None:
    table = _table(tmp_path)
    options = {
        "hoodie.datasource.hive_sync.omit_metadata_fields": "true",
        "hoodie.datasource.hive_sync.table_properties": "owner_team=rides\nretention=30d",
    }
    settings = resolve_sync_settings(options, table.table_config)
    (registered,) = registrations(settings, table.table_config, table.schema, table.base_uri)
    assert [c.name for c in registered.columns] == ["id", "name", "ts"]
    assert [(c.name, c.type) for c in registered.partition_keys] == [("dt", "string")]
    assert registered.location == catalog_location(table.base_uri) == "file:" + str(tmp_path / "t")
    assert registered.table_properties["owner_team"] == "rides"
    assert registered.table_properties["EXTERNAL"] == "TRUE"
    assert registered.serde_properties["path"] == "file://" + str(tmp_path / "t")
