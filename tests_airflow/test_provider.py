"""The provider as Airflow sees it: discovery through the entry point, the `hudi` asset scheme and
its normalizer, and operator arguments checked when a DAG file is parsed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

BAD_DAGS = {
    "operation": (
        "HudiWriteOperator(task_id='w', table_path='/t', source='/in.parquet', operation='upsertt')",
        "task 'w': operation='upsertt' is not one of 'upsert', 'insert', 'bulk_insert', 'delete'",
    ),
    "service": (
        "HudiTableServiceOperator(task_id='s', table_path='/t', service='vacuum')",
        "task 's': service='vacuum' is not one of 'compaction', 'log_compaction', 'clustering'",
    ),
    "target": (
        "HudiIncrementalOperator(task_id='i', source_path='/s')",
        "task 'i': give one target, table_path (a Hudi table) or output_dir (Parquet files)",
    ),
    "options": (
        "HudiWriteOperator(task_id='w', table_path='/t', source='/in.csv', hudi_options={'recordkey': 'id'})",
        "task 'w': hudi_options takes hoodie.* names only, not ['recordkey']",
    ),
    "engine": (
        "HudiWriteOperator(task_id='w', table_path='/t', source='/in.csv', engine='flink')",
        "task 'w': engine='flink' is not one of 'arrow', 'spark'",
    ),
    "sensor": (
        "HudiCommitSensor(task_id='c', table_path='/t', after='1', consumer_table_path='/u', "
        "checkpoint_identifier='x')",
        "task 'c': give after or a consumer's checkpoint (consumer_table_path), not both",
    ),
    "consumer_engine": (
        "HudiIncrementalOperator(task_id='i', source_path='/s', table_path='/t', engine='spark')",
        "task 'i': engine='spark' is not one of 'arrow'",
    ),
    "path": (
        "HudiWriteOperator(task_id='w', table_path='', source='/in.csv')",
        "task 'w': table_path must be a table path or URI, got ''",
    ),
}


def test_airflow_discovers_the_provider() -> None:
    from airflow.providers_manager import ProvidersManager  # noqa: PLC0415

    manager = ProvidersManager()  # type: ignore[no-untyped-call]  # Airflow's manager is untyped
    assert "hudi-dagster" in manager.providers
    assert manager.asset_uri_handlers["hudi"].__name__ == "normalize_hudi_uri"
    assert "hudi" in manager.asset_to_openlineage_converters


def test_hudi_asset_uris_are_normalized() -> None:
    from airflow.sdk import Asset  # noqa: PLC0415

    from hudi_airflow.assets import hudi_asset, hudi_uri, table_location  # noqa: PLC0415

    assert hudi_uri("/lake//bronze/./x/../rides/") == hudi_uri("file:///lake/bronze/rides") == "hudi:/lake/bronze/rides"
    assert hudi_uri("s3a://Bucket/lake/rides/") == hudi_uri("s3://bucket/lake/rides") == "hudi://bucket/lake/rides"
    assert Asset("hudi:///lake/bronze/../bronze/rides").uri == hudi_asset("/lake/bronze/rides").uri
    assert table_location(hudi_uri("s3://bucket/lake/rides")) == "s3://bucket/lake/rides"
    assert table_location(hudi_uri("/lake/rides")) == "/lake/rides"
    with pytest.raises(ValueError, match="names no table"):
        Asset("hudi://bucket")
    with pytest.raises(ValueError, match="local, file:// and s3://"):
        hudi_uri("gs://bucket/t")


@pytest.mark.parametrize("case", sorted(BAD_DAGS))
def test_bad_arguments_fail_when_the_dag_is_parsed(tmp_path: Path, case: str) -> None:
    from airflow.dag_processing.dagbag import DagBag  # noqa: PLC0415

    call, message = BAD_DAGS[case]
    dag_file = tmp_path / f"bad_{case}.py"
    dag_file.write_text(
        textwrap.dedent(
            """
            from datetime import UTC, datetime
            from airflow.sdk import DAG
            from hudi_airflow.operators import HudiIncrementalOperator, HudiTableServiceOperator, HudiWriteOperator
            from hudi_airflow.sensors import HudiCommitSensor
            with DAG("bad", schedule=None, start_date=datetime(2025, 1, 1, tzinfo=UTC)):
            """
        )
        + f"    {call}\n"
    )
    bag = DagBag(dag_folder=str(dag_file))
    assert not bag.dags
    (error,) = bag.import_errors.values()
    assert "HudiOperatorArgumentError" in error and message in error, error
