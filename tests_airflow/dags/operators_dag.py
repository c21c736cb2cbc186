"""Operators on the paths `dag_run.conf` names (tests_airflow/test_operators.py): a CSV upsert, a
delete by keys, the change feed into Parquet files; and the same table written on Spark."""

from datetime import UTC, datetime

from airflow.sdk import DAG

from hudi_airflow.operators import HudiCdcOperator, HudiTableServiceOperator, HudiWriteOperator

START = datetime(2025, 1, 1, tzinfo=UTC)
OPTIONS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.table.cdc.enabled": "true",
}
TABLE = "{{ dag_run.conf['table'] }}"

with DAG("hudi_operators", schedule=None, start_date=START):
    upsert = HudiWriteOperator(
        task_id="upsert_csv", table_path=TABLE, source="{{ dag_run.conf['csv'] }}", hudi_options=OPTIONS
    )
    delete = HudiWriteOperator(
        task_id="delete",
        table_path=TABLE,
        source="{{ dag_run.conf['deletes'] }}",
        operation="delete",
        hudi_options=OPTIONS,
    )
    changes = HudiCdcOperator(task_id="changes_to_files", source_path=TABLE, output_dir="{{ dag_run.conf['out'] }}")
    upsert >> delete >> changes

with DAG("hudi_spark_operators", schedule=None, start_date=START):
    spark_write = HudiWriteOperator(
        task_id="bulk_insert_on_spark",
        table_path=TABLE,
        source="{{ dag_run.conf['parquet'] }}",
        operation="bulk_insert",
        hudi_options=OPTIONS,
        engine="spark",
        spark_conn_id="spark_local",
        spark_conf={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"},
    )
    clustering = HudiTableServiceOperator(
        task_id="clustering_on_spark",
        table_path=TABLE,
        service="clustering",
        hudi_options={"hoodie.clustering.plan.strategy.small.file.limit": str(600 * 1024 * 1024)},
        engine="spark",
        spark_conn_id="spark_local",
    )
    spark_write >> clustering
