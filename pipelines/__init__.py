"""Example pipelines built on hudi_core and hudi_dagster; `workspace.yaml` loads them in `dagster dev`."""
