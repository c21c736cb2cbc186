"""Golden reference: Apache Hudi 1.2's own `CALL hive_sync` registers a copy of the same table in the
same metastore, and our registration matches it field for field (tables, columns and their types,
partition keys, formats, serde and table properties, partitions and their storage).

What differs, and why it may: the times the metastore stamps (`transient_lastDdlTime`,
`createTime`, `lastAccessTime`), `hudi_writer_version` (Apache Hudi records its own release; we are
not that release), and the paths, which name each copy's own base path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.sync import sync_table
from scripts import reference_env
from tests.catalog.hive_metastore import HiveMetastoreServer
from tests.catalog.metastore_client import MetastoreClient

pytestmark = pytest.mark.slow  # two Apache Hudi Spark drivers: about 40 s

REFERENCE_SCRIPT = Path(__file__).with_name("reference_hive_sync.py")
SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("i32", pa.int32()),
        ("fare", pa.float64()),
        ("f32", pa.float32()),
        ("amount", pa.decimal128(10, 2)),
        ("day", pa.date32()),
        ("ts", pa.int64()),
        ("event_time", pa.timestamp("us", "UTC")),
        ("flag", pa.bool_()),
        ("payload", pa.binary()),
        ("tags", pa.list_(pa.string())),
        ("address", pa.struct([("city", pa.string()), ("zip", pa.int32())])),
        ("attrs", pa.map_(pa.string(), pa.int64())),
        ("dt", pa.string()),
    ]
)
# Stamped by the metastore, or naming the writer's own release: never compared.
UNCOMPARED_PARAMETERS = {"transient_lastDdlTime", "hudi_writer_version"}
OPTIONS = {"support_timestamp": "true"}


def _rows(ids: list[int], dt: str) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "id": ids,
            "i32": [i * 2 for i in ids],
            "fare": [i * 1.5 for i in ids],
            "f32": [float(i) for i in ids],
            "amount": [Decimal(f"{i}.25") for i in ids],
            "day": [date(2026, 1, 1)] * n,
            "ts": [1] * n,
            "event_time": [datetime(2026, 1, 1, tzinfo=UTC)] * n,
            "flag": [i % 2 == 0 for i in ids],
            "payload": [b"x"] * n,
            "tags": [["a", "b"]] * n,
            "address": [{"city": "porto", "zip": 4000}] * n,
            "attrs": [[("k", i)] for i in ids],
            "dt": [dt] * n,
        },
        schema=SCHEMA,
    )


def _write(path: Path, table_type: str) -> HudiTable:
    table = HudiTable.create(
        str(path),
        SCHEMA,
        path.name,
        ["id"],
        ["dt"],
        ["ts"],
        table_type=table_type,
        options={"hoodie.datasource.write.hive_style_partitioning": "true"},
    )
    table.upsert(pa.concat_tables([_rows([1, 2], "2026-01-01"), _rows([3], "2026-01-02")]))
    table.upsert(pa.concat_tables([_rows([2], "2026-01-01"), _rows([4], "2026-01-03")]))
    return table


def _storage(sd: Any, base: str) -> dict[str, Any]:
    serde = dict(sd.serdeInfo.parameters or {})
    if "path" in serde:
        serde["path"] = serde["path"].replace(base, "<base>")
    return {
        "cols": [(c.name, c.type, c.comment or "") for c in sd.cols],
        "location": sd.location.replace(base, "<base>"),
        "inputFormat": sd.inputFormat,
        "outputFormat": sd.outputFormat,
        "compressed": sd.compressed,
        "numBuckets": sd.numBuckets,
        "serde": (sd.serdeInfo.serializationLib, serde),
        "bucketCols": sd.bucketCols,
        "sortCols": sd.sortCols,
        "parameters": sd.parameters,
        "storedAsSubDirectories": sd.storedAsSubDirectories,
    }


def _registration(metastore: MetastoreClient, database: str, base: str) -> dict[str, Any]:
    """Every table of `database` with its partitions, in comparable form (`base` as <base>)."""
    found: dict[str, Any] = {}
    for name in metastore.tables(database):
        table = metastore.table(database, name)
        found[name] = {
            "tableType": table.tableType,
            "owner": table.owner,
            "partitionKeys": [(c.name, c.type, c.comment or "") for c in table.partitionKeys],
            "parameters": {k: v for k, v in table.parameters.items() if k not in UNCOMPARED_PARAMETERS},
            "sd": _storage(table.sd, base),
            "partitions": {
                tuple(p.values): {
                    "sd": _storage(p.sd, base),
                    "parameters": {k: v for k, v in p.parameters.items() if k not in UNCOMPARED_PARAMETERS},
                }
                for p in metastore.client.get_partitions(database, name, -1)
            },
        }
    return found


def _apache_hudi_sync(base_path: Path, uri: str, database: str, table: str) -> subprocess.Popen[str]:
    found = reference_env.from_variables(os.environ)
    if isinstance(found, str):
        if reference_env.is_required(os.environ):
            pytest.fail(f"Apache Hudi reference required but missing: {found}", pytrace=False)
        pytest.skip(f"Apache Hudi reference unavailable: {found}")
    jar = next(j for j in found.jars if reference_env.bundle_version(j) == "1.2.0")
    command = [
        str(found.python),
        str(REFERENCE_SCRIPT),
        "--jar",
        str(jar),
        "--base-path",
        str(base_path),
        "--metastore-uri",
        uri,
        "--database",
        database,
        "--table",
        table,
        *[arg for key, value in OPTIONS.items() for arg in ("--option", f"{key}={value}")],
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_our_registration_matches_apache_hudis_hive_sync(tmp_path: Path, hive_metastore: HiveMetastoreServer) -> None:
    ours, theirs = f"ours_{uuid.uuid4().hex[:8]}", f"apache_hudi_{uuid.uuid4().hex[:8]}"
    runs = []
    for table_type, name in (("COPY_ON_WRITE", "trips_cow"), ("MERGE_ON_READ", "trips_mor")):
        table = _write(tmp_path / "ours" / name, table_type)
        shutil.copytree(tmp_path / "ours" / name, tmp_path / "theirs" / name)
        runs.append(_apache_hudi_sync(tmp_path / "theirs" / name, hive_metastore.uri, theirs, name))
        options = {
            "hoodie.datasource.hive_sync.metastore.uris": hive_metastore.uri,
            "hoodie.datasource.hive_sync.database": ours,
            **{f"hoodie.datasource.hive_sync.{key}": value for key, value in OPTIONS.items()},
        }
        sync_table(table.base_uri, options)
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, f"Apache Hudi's hive_sync failed:\n{out}\n{err[-3000:]}"
    with MetastoreClient(hive_metastore.uri) as metastore:
        expected = _registration(metastore, theirs, str(tmp_path / "theirs"))
        actual = _registration(metastore, ours, str(tmp_path / "ours"))
    assert sorted(expected) == ["trips_cow", "trips_mor", "trips_mor_ro", "trips_mor_rt"]
    assert sorted(actual) == sorted(expected)
    for name in expected:
        for field in expected[name]:
            assert actual[name][field] == expected[name][field], f"{name}.{field}"
