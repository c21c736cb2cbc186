"""Tables we create at version 9 (`hoodie.write.table.version=9`) are Apache Hudi 1.2's own.

We create and write a partitioned table with the metadata table on; Apache Hudi and hudi-rs read it
equal to the model, Apache Hudi writes on top of it and we read that back. Its hoodie.properties
carry the keys Apache Hudi writes for the same table (values equal where they do not depend on
time or on Spark-only settings).
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi
from hudi_core.config.properties import parse_properties
from scripts.apache_hudi import ApacheHudi
from tests import hudi_rs
from tests.interop.test_model_histories import COLUMNS, SCHEMA, History
from tests.model import TableModel, canonical, table_rows

pytestmark = pytest.mark.apache_hudi

# Keys Apache Hudi's Spark writer adds that describe Spark-side settings, not the table format.
SPARK_ONLY = {
    "hoodie.table.partition_extractor_class",
    "hoodie.table.index.defs.path",
    "hoodie.table.timeline.timezone",
    "hoodie.partition.metafile.use.base.format",
    "hoodie.table.multiple.base.file.formats.enable",
    "hoodie.table.cdc.enabled",
    "hoodie.table.base.file.format",
    "hoodie.populate.meta.fields",
    "hoodie.table.metadata.partitions.inflight",
    "hoodie.archivelog.folder",
    "hoodie.database.name",
    "hoodie.table.create.schema",
    "hoodie.table.checksum",
    "hoodie.table.metadata.partitions",
}


def properties(path: Path) -> dict[str, str]:
    file = path / ".hoodie" / "hoodie.properties"
    return parse_properties(file.read_text(), str(file))


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_a_table_we_create_at_version_9_is_read_and_continued_by_apache_hudi(
    apache_hudi: ApacheHudi, table_type: str, tmp_path: Path
) -> None:
    rng = random.Random(f"version-9-{table_type}")
    history = History(rng, partitioned=True)
    options = {
        "hoodie.table.name": "ours_v9",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "city",
    }
    path = tmp_path / "ours"
    model = TableModel("id", lambda r: r["city"], "ts")

    def ours(rows: list[dict[str, object]], operation: str) -> None:
        options_now = {**options, "hoodie.datasource.write.operation": operation, "hoodie.write.table.version": "9"}
        result = write_hudi(str(path), pa.Table.from_pylist(rows, schema=SCHEMA), options_now)
        getattr(model, operation)(rows, result.instant_time, result.completion_time)

    stored = history.fresh(12, 100)
    ours(stored, "upsert")
    ours([history.row(r["id"], 110 if rng.random() < 0.6 else 5) for r in stored[:5]] + history.fresh(2, 110), "upsert")
    ours([history.row(r["id"], 120) for r in stored[5:7]], "delete")
    assert HudiTable(str(path)).table_config.version == 9
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == expected, "ours"
    assert canonical(table_rows(apache_hudi.read(path), COLUMNS)) == expected, "Apache Hudi"
    assert canonical(table_rows(hudi_rs.snapshot(path), COLUMNS)) == expected, "hudi-rs"

    more = [history.row(r["id"], 130) for r in stored[7:10]] + history.fresh(2, 130)
    apache_hudi.write(
        path, pa.Table.from_pylist(more, schema=SCHEMA), {**options, "hoodie.datasource.write.operation": "upsert"}
    )
    latest = HudiTable(str(path)).timeline.completed_data_instants()[-1]
    model.upsert(more, latest.requested_time, latest.completion_time)
    expected = canonical(model.snapshot(COLUMNS))
    assert canonical(table_rows(HudiTable(str(path)).read(), COLUMNS)) == expected, "ours after Apache Hudi"
    assert canonical(table_rows(apache_hudi.read(path), COLUMNS)) == expected, "Apache Hudi after itself"
    assert HudiTable(str(path)).table_config.version == 9

    theirs = tmp_path / "theirs"
    apache_hudi.write(theirs, pa.Table.from_pylist(stored, schema=SCHEMA), {**options, "hoodie.table.name": "ours_v9"})
    mine, reference = properties(path), properties(theirs)
    assert set(reference) - SPARK_ONLY <= set(mine), "keys Apache Hudi writes that we do not"
    assert {k: mine[k] for k in set(reference) - SPARK_ONLY} == {k: reference[k] for k in set(reference) - SPARK_ONLY}
