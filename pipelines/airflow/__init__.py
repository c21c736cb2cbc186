"""The example lakehouse as Airflow DAGs (`lakehouse.py`), on `hudi_airflow`."""
