"""Our reader merges Merge-on-Read tables Apache Hudi 1.2 wrote exactly as Spark reads them.

Each table is written by Apache Hudi (Spark SQL and the datasource, table version 9 at its
defaults) and every query is compared with Apache Hudi's own read of the same table:

* record positions: a base file holding a key twice (an insert keeps duplicates), then a
  positional partial update (MERGE INTO), a delete by key (SQL DELETE), and datasource upserts
  and deletes that record positions;
* partial updates: MERGE INTO updates of some columns, several per key, one of them late;
* log compaction: incremental queries from every instant of a table Apache Hudi log-compacted
  inline (its log-compacted block stamps the records it merges with its own instant);
* payload classes: the built-in ones we implement (partial updates ignoring nulls, delete
  markers), on version 9 (merge properties) and 8 (merge mode CUSTOM and a payload class); one we
  do not implement is refused naming it, on read and write.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import HudiError, UnsupportedFeatureError
from scripts.apache_hudi import ApacheHudi

pytestmark = pytest.mark.apache_hudi

COLUMNS = ["id", "name", "price", "ts", "city"]
SCHEMA = pa.schema(
    [("id", pa.string()), ("name", pa.string()), ("price", pa.float64()), ("ts", pa.int64()), ("city", pa.string())]
)
_names = itertools.count()


def rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(row[c] for c in COLUMNS) for row in table.select(COLUMNS).to_pylist())


def batch(*values: tuple[Any, ...]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(COLUMNS, v, strict=True)) for v in values], schema=SCHEMA)


def assert_same(apache_hudi: ApacheHudi, path: Path, what: str, options: dict[str, str] | None = None) -> None:
    theirs = rows(apache_hudi.read(path, options))
    ours = rows(HudiTable(str(path)).read(options=options))
    assert ours == theirs, f"{what}: ours vs Apache Hudi"


def create(apache_hudi: ApacheHudi, path: Path, partitioned: bool = False) -> str:
    name = f"merging_{next(_names)}"
    partition = "PARTITIONED BY (city)" if partitioned else ""
    apache_hudi.sql(
        f"CREATE TABLE {name} (id STRING, name STRING, price DOUBLE, ts BIGINT, city STRING) USING hudi {partition} "
        f"LOCATION '{path}' TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')"
    )
    return name


def datasource_options(name: str, operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": name,
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "",
        "hoodie.datasource.write.operation": operation,
    }


def test_updates_and_deletes_meet_the_base_row_of_their_position_or_the_first_of_their_key(
    apache_hudi: ApacheHudi, tmp_path: Path
) -> None:
    path = tmp_path / "duplicates"
    name = create(apache_hudi, path)
    apache_hudi.sql("SET hoodie.datasource.write.operation = bulk_insert")
    try:
        apache_hudi.sql(
            f"INSERT INTO {name} VALUES ('a', 'A1', 1.0, 10, 'sf'), ('a', 'A2', 2.0, 10, 'sf'), "
            "('b', 'B1', 1.0, 10, 'sf'), ('b', 'B2', 2.0, 10, 'sf'), "
            "('c', 'C1', 1.0, 10, 'sf'), ('c', 'C2', 2.0, 10, 'sf')"
        )
    finally:
        apache_hudi.sql("RESET hoodie.datasource.write.operation")
    assert len(HudiTable(str(path)).read()) == 6, "the base file holds every key twice"
    # A partial update Spark writes with the positions of both rows of key a.
    apache_hudi.sql(
        f"MERGE INTO {name} t USING (SELECT 'a' AS id, CAST(9.0 AS DOUBLE) AS price, CAST(20 AS BIGINT) AS ts) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET price = s.price, ts = s.ts"
    )
    assert_same(apache_hudi, path, "positional partial update of a duplicated key")
    # A delete by key without positions: it meets the first row of key b only.
    apache_hudi.sql(f"DELETE FROM {name} WHERE name = 'B2'")
    assert_same(apache_hudi, path, "delete by key of a duplicated key")
    # Datasource upsert and delete record the positions of every row of their key.
    apache_hudi.write(path, batch(("c", "CX", 5.0, 30, "sf")), datasource_options(name, "upsert"))
    assert_same(apache_hudi, path, "datasource upsert of a duplicated key")
    apache_hudi.write(path, batch(("a", "AX", 5.0, 40, "sf")), datasource_options(name, "delete"))
    assert_same(apache_hudi, path, "datasource delete of a duplicated key")


def test_partial_updates_merge_field_by_field(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    path = tmp_path / "partial"
    name = create(apache_hudi, path, partitioned=True)
    apache_hudi.sql(
        f"INSERT INTO {name} VALUES ('a', 'A', 1.0, 10, 'sf'), ('b', 'B', 2.0, 10, 'sf'), ('c', 'C', 3.0, 10, 'la')"
    )
    for source, assignments in [
        ("SELECT 'a' AS id, CAST(9.0 AS DOUBLE) AS price, CAST(20 AS BIGINT) AS ts", "price = s.price, ts = s.ts"),
        ("SELECT 'a' AS id, 'AA' AS name, CAST(30 AS BIGINT) AS ts", "name = s.name, ts = s.ts"),
        ("SELECT 'b' AS id, CAST(7.0 AS DOUBLE) AS price, CAST(5 AS BIGINT) AS ts", "price = s.price, ts = s.ts"),
    ]:
        apache_hudi.sql(
            f"MERGE INTO {name} t USING ({source}) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET {assignments}"
        )
    assert_same(apache_hudi, path, "partial updates, one late")
    assert_same(apache_hudi, path, "read-optimized", {"hoodie.datasource.query.type": "read_optimized"})


def test_incremental_reads_of_a_log_compacted_table(apache_hudi: ApacheHudi, tmp_path: Path) -> None:
    path = tmp_path / "log_compacted"
    options = {
        **datasource_options("log_compacted", "upsert"),
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.log.compaction.inline": "true",
        "hoodie.log.compaction.blocks.threshold": "2",
    }
    apache_hudi.write(path, batch(("a", "A", 1.0, 10, "sf"), ("b", "B", 1.0, 10, "sf")), options)
    for n in range(2):  # the second log block of the slice triggers the log compaction
        apache_hudi.write(path, batch(("a", f"A{n}", float(n), 20 + n, "sf")), options)
    apache_hudi.write(path, batch(("b", "BB", 3.0, 50, "sf")), options)
    timeline = HudiTable(str(path)).timeline
    assert any(timeline.pending_action(i).value == "logcompaction" for i in timeline.completed()), "log compacted"
    assert_same(apache_hudi, path, "snapshot")
    for start in ["000", *(i.requested_time for i in timeline.completed()[:-1])]:
        window = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": start}
        assert_same(apache_hudi, path, f"incremental read after {start}", window)


PAYLOAD_SCHEMA = pa.schema(
    [("id", pa.string()), ("name", pa.string()), ("price", pa.float64()), ("ts", pa.int64()), ("Op", pa.string())]
)
MODEL = "org.apache.hudi.common.model."


def payload_rows(*values: tuple[Any, ...]) -> pa.Table:
    return pa.Table.from_pylist(
        [dict(zip(PAYLOAD_SCHEMA.names, v, strict=True)) for v in values], schema=PAYLOAD_SCHEMA
    )


@pytest.mark.parametrize(
    ("payload", "write_version", "extra"),
    [
        pytest.param("OverwriteNonDefaultsWithLatestAvroPayload", "9", {}, id="overwrite-non-defaults-v9"),
        pytest.param("OverwriteNonDefaultsWithLatestAvroPayload", "8", {}, id="overwrite-non-defaults-v8"),
        pytest.param("PartialUpdateAvroPayload", "9", {}, id="partial-update-v9"),
        pytest.param("PartialUpdateAvroPayload", "8", {}, id="partial-update-v8"),
        pytest.param("AWSDmsAvroPayload", "8", {}, id="aws-dms-v8"),
        pytest.param(
            "DefaultHoodieRecordPayload",
            "9",
            {"hoodie.payload.delete.field": "Op", "hoodie.payload.delete.marker": "D"},
            id="default-with-delete-marker-v9",
        ),
    ],
)
def test_tables_of_built_in_payloads_read_as_apache_hudi_merges_them(
    apache_hudi: ApacheHudi, payload: str, write_version: str, extra: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "payload"
    options = {
        **datasource_options("payload", "upsert"),
        "hoodie.datasource.write.payload.class": MODEL + payload,
        "hoodie.write.table.version": write_version,
        **extra,
    }
    first = payload_rows(("a", "A", 1.0, 10, "I"), ("b", "B", 2.0, 10, "I"), ("c", "C", 3.0, 10, "I"))
    apache_hudi.write(path, first, {**options, "hoodie.datasource.write.operation": "insert"})
    # Nulls (partial updates ignore them), a late record (event time) and a delete marker.
    apache_hudi.write(
        path, payload_rows(("a", None, 5.0, 20, "U"), ("b", "BB", None, 5, "U"), ("c", "CC", 7.0, 30, "D")), options
    )
    theirs = apache_hudi.read(path)
    ours = HudiTable(str(path)).read()
    assert _rows_of(ours) == _rows_of(theirs), "ours vs Apache Hudi"
    # We read these tables but do not write them: refused before anything is written.
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    with pytest.raises(HudiError, match="does not write them"):
        HudiTable(str(path)).upsert(payload_rows(("d", "D", 1.0, 1, "I")))
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before


def _rows_of(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(row[n] for n in PAYLOAD_SCHEMA.names) for row in table.to_pylist())


def test_a_table_merging_by_a_payload_we_do_not_implement_is_refused_naming_it(
    apache_hudi: ApacheHudi, tmp_path: Path
) -> None:
    path = tmp_path / "debezium"
    payload = MODEL + "debezium.MySqlDebeziumAvroPayload"
    options = {
        **datasource_options("debezium", "insert"),
        "hoodie.datasource.write.payload.class": payload,
        "hoodie.write.table.version": "8",
    }
    apache_hudi.write(path, payload_rows(("a", "A", 1.0, 10, "I")), options)
    with pytest.raises(UnsupportedFeatureError, match=r"payload class .*MySqlDebeziumAvroPayload.* not supported"):
        HudiTable(str(path)).read()
    with pytest.raises(UnsupportedFeatureError, match=r"MySqlDebeziumAvroPayload"):
        HudiTable(str(path)).upsert(payload_rows(("a", "A", 2.0, 20, "U")))
