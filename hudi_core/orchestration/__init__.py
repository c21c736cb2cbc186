"""What every orchestrator integration shares (Dagster's `hudi_dagster`, Airflow's `hudi_airflow`):
the write that picks its engine from the data, commit windows of downstream consumers, the CDC
mirror, and the table services by name. No orchestrator imports here."""
