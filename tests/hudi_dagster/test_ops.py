"""Op-based jobs on the data path: write, incremental read, CDC read."""

from pathlib import Path

import dagster as dg
import pyarrow as pa

from hudi_core import HudiTable, write_hudi
from hudi_dagster import HudiTableConfig
from hudi_dagster.ops import hudi_cdc_read_op, hudi_incremental_read_op, hudi_write_op

SOURCE = {
    "hoodie.table.name": "bronze",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.table.cdc.enabled": "true",
}


def test_an_op_job_reads_a_window_and_writes_it(tmp_path: Path) -> None:
    source = str(tmp_path / "bronze")
    first = write_hudi(source, pa.table({"id": ["a", "b"], "v": [1, 2]}), SOURCE)
    write_hudi(source, pa.table({"id": ["b", "c"], "v": [20, 3]}), SOURCE)
    target = HudiTableConfig(path=str(tmp_path / "silver"), record_key=["id"])
    read = hudi_incremental_read_op(source)
    changes = hudi_cdc_read_op(source)
    write = hudi_write_op(target)

    @dg.op
    def drop_meta(rows: pa.Table) -> pa.Table:
        return rows.select(["id", "v"])

    @dg.op
    def count_ops(changes: pa.Table) -> dict[str, int]:
        return {op: changes.column("op").to_pylist().count(op) for op in ("i", "u")}

    @dg.job
    def copy_changes() -> None:
        write(drop_meta(read()))
        count_ops(changes())

    config = {"ops": {"hudi_incremental_read": {"config": {"start": first.completion_time}}}}
    result = copy_changes.execute_in_process(run_config=config)
    assert result.success
    stored = HudiTable(target.path).read(columns=["id", "v"]).to_pylist()
    assert sorted((r["id"], r["v"]) for r in stored) == [("b", 20), ("c", 3)]
    assert result.output_for_node("count_ops") == {"i": 3, "u": 1}
    commit = HudiTable(target.path).timeline
    assert (
        commit.commit_metadata(commit.completed_data_instants()[-1]).extra_metadata["dagster/run_id"] == result.run_id
    )
