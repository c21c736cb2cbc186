"""A deferrable commit sensor on the table `dag_run.conf` names (tests_airflow/test_commit_sensor.py)."""

from datetime import UTC, datetime

from airflow.sdk import DAG

from hudi_airflow.sensors import HudiCommitSensor

with DAG("hudi_sensor_deferred", schedule=None, start_date=datetime(2025, 1, 1, tzinfo=UTC)):
    HudiCommitSensor(
        task_id="wait",
        table_path="{{ dag_run.conf['table_path'] }}",
        after="{{ dag_run.conf['after'] }}",
        aws_conn_id="hudi_sensor_aws",  # read by the trigger (tests_airflow/test_commit_sensor.py)
        deferrable=True,
        poke_interval=0.5,
        timeout=120,
    )
