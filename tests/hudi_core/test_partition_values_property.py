"""Random partition values through the API (`HudiTable.upsert`) and the CLI (`hudi-core write`):
every file stays under the base path and every committed row reads back in our reader and in
hudi-rs, or the write is refused before anything is written (tests/partition_values.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiTable, SchemaError
from hudi_core.cli import main as cli_main
from tests.partition_values import (
    SCHEMA,
    ValueChecker,
    local_lake,
    local_listing,
    write_options,
)


@pytest.mark.parametrize(
    "layout",
    [{}, {"hoodie.datasource.write.hive_style_partitioning": "true"}],
    ids=["plain", "hive-style"],
)
def test_api_upsert_of_any_partition_value_stays_inside_or_is_refused(layout: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "root"
    base, _ = local_lake(root)
    table = HudiTable.create(str(base), SCHEMA, "values", ["id"], ["city"], ["ts"], options=layout)
    checker = ValueChecker(
        str(base),
        "lake/t",
        lambda: local_listing(root),
        lambda rows: table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA)),
    )
    checker.run(max_examples=30)


def test_cli_write_of_any_partition_value_stays_inside_or_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    base, _ = local_lake(root)
    batch = tmp_path / "batch.parquet"
    pairs = [arg for key, value in write_options().items() for arg in ("-o", f"{key}={value}")]

    def write(rows: list[dict[str, Any]]) -> None:
        pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), batch)
        capsys.readouterr()
        code = cli_main(["write", str(base), str(batch), *pairs])
        error = capsys.readouterr().err
        if code != 0:
            assert "partition field 'city'" in error, error
            raise SchemaError(error)

    checker = ValueChecker(str(base), "lake/t", lambda: local_listing(root), write)
    checker.run(max_examples=20)
