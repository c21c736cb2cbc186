"""The mixed-writer lakehouse: Apache Hudi 1.2 and we take turns on one table, table services included.

We create and write a table (metadata table on). Apache Hudi then writes on top of it with its
table services inline: compaction (Merge-on-Read), clustering, cleaning and archival. We and hudi-rs
read the model; we write again and run our own services (compaction, clustering, clean, archival);
Apache Hudi reads the model and its metadata-table check passes; Apache Hudi writes once more and
everyone reads the model. Both table types.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.apache_hudi.tables import writer_options
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

# Apache Hudi's services inline on every write: each runs on its first chance.
APACHE_SERVICES = {
    "hoodie.metadata.enable": "true",
    "hoodie.write.table.version": "8",
    "hoodie.clustering.inline": "true",
    "hoodie.clustering.inline.max.commits": "1",
    "hoodie.clean.commits.retained": "1",
    "hoodie.keep.min.commits": "2",
    "hoodie.keep.max.commits": "3",
}
OUR_SERVICES = {
    "hoodie.compact.inline.max.delta.commits": "1",
    "hoodie.clustering.inline.max.commits": "1",
    "hoodie.clean.commits.retained": "1",
    "hoodie.keep.min.commits": "2",
    "hoodie.keep.max.commits": "3",
}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_apache_hudi_and_we_hand_a_table_over_after_each_others_services(
    apache_hudi: ApacheHudi, table_type: str, tmp_path: Path
) -> None:
    rng = random.Random(f"hand-over-{table_type}")
    history = History(rng, partitioned=True)
    path = tmp_path / "table"
    name = f"hand_over_{table_type[:3].lower()}"
    table = HudiTable.create(
        str(path), SCHEMA, name, ["id"], ["city"], ["ts"], table_type, {"hoodie.metadata.enable": "true"}
    )
    model = TableModel("id", lambda r: r["city"], "ts")

    def ours_and_hudi_rs_read_the_model(what: str) -> None:
        expected = canonical(model.snapshot(COLUMNS))
        assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == expected, f"ours: {what}"
        assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, f"hudi-rs: {what}"

    def apache_hudi_reads_the_model(what: str) -> None:
        expected = canonical(model.snapshot(COLUMNS))
        assert canonical(table_rows(apache_hudi.read(path), COLUMNS)) == expected, f"Apache Hudi: {what}"

    def updates(ts: int, count: int) -> list[dict[str, Any]]:
        stored = sorted(key for _, key in model.current)
        return [history.row(key, ts if rng.random() < 0.7 else 5) for key in rng.sample(stored, count)]

    rows = history.fresh(20, 100)
    result = table.bulk_insert(pa.Table.from_pylist(rows, schema=SCHEMA))
    model.insert_new(rows, result.instant_time, result.completion_time)
    for ts in (110, 120):
        rows = updates(ts, 4) + history.fresh(2, ts)
        result = table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA))
        model.upsert(rows, result.instant_time, result.completion_time)

    apache = {**writer_options(name, table_type), **APACHE_SERVICES}
    if table_type == "MERGE_ON_READ":
        apache |= {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "1"}
    for ts, operation in ((130, "upsert"), (140, "delete"), (150, "upsert")):
        rows = updates(ts, 3) + (history.fresh(2, ts) if operation == "upsert" else [])
        apache_hudi.write(
            path, pa.Table.from_pylist(rows, schema=SCHEMA), {**apache, "hoodie.datasource.write.operation": operation}
        )
        getattr(model, operation)(rows, "apache", None)
    timeline = HudiTable(str(path)).timeline
    actions = {i.action.value for i in timeline.instants()} | {a.action for a in timeline.archived()}
    assert {"replacecommit", "clean"} <= actions, f"Apache Hudi's services ran: {sorted(actions)}"
    ours_and_hudi_rs_read_the_model("after Apache Hudi's writes and services")

    ours = HudiTable(str(path))
    for ts, operation in ((160, "upsert"), (170, "delete"), (180, "upsert")):
        rows = updates(ts, 3) + (history.fresh(2, ts) if operation == "upsert" else [])
        result = getattr(ours, operation)(pa.Table.from_pylist(rows, schema=SCHEMA), OUR_SERVICES)
        getattr(model, operation)(rows, result.instant_time, result.completion_time)
    if table_type == "MERGE_ON_READ":
        ours.compact(None, OUR_SERVICES)
    ours.cluster(None, OUR_SERVICES)
    ours.clean(OUR_SERVICES)
    ours.archive(OUR_SERVICES)
    ours_and_hudi_rs_read_the_model("after our writes and services")
    apache_hudi_reads_the_model("after our writes and services")
    apache_hudi.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    mismatches = apache_hudi.sql(f"CALL validate_metadata_table_files(table => '{name}')")
    assert mismatches is not None and mismatches.to_pylist() == []

    rows = updates(190, 4) + history.fresh(2, 190)
    apache_hudi.write(
        path, pa.Table.from_pylist(rows, schema=SCHEMA), {**apache, "hoodie.datasource.write.operation": "upsert"}
    )
    model.upsert(rows, "apache", None)
    apache_hudi_reads_the_model("after Apache Hudi wrote on after our services")
    ours_and_hudi_rs_read_the_model("after Apache Hudi wrote on after our services")
