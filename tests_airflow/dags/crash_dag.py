"""An incremental copy between the tables the environment names (tests_airflow/test_crash_retry.py
runs its task with `airflow tasks test`, killed at crash points and retried)."""

import os
from datetime import UTC, datetime

from airflow.sdk import DAG

from hudi_airflow.operators import HudiIncrementalOperator

with DAG("hudi_crash_retry", schedule=None, start_date=datetime(2025, 1, 1, tzinfo=UTC)):
    HudiIncrementalOperator(
        task_id="copy",
        source_path=os.environ.get("HUDI_TEST_SOURCE", "/nonexistent/source"),
        table_path=os.environ.get("HUDI_TEST_TARGET", "/nonexistent/target"),
        hudi_options={
            "hoodie.table.name": "copy",
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts",
        },
        retries=1,
    )
