"""hudi_dagster: Dagster resources, IO managers, assets, sensors and checks for Hudi tables."""
