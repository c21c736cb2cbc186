"""hudi_airflow: an Apache Airflow 3 provider for Hudi tables, over `hudi_core`.

`HudiHook` (a table and its storage settings from Airflow's `aws` connection), operators that write
(`HudiWriteOperator`), consume another table's commits exactly once (`HudiIncrementalOperator`,
`HudiCdcOperator`) and run table services (`HudiTableServiceOperator`, `HudiRestoreOperator`), a
deferrable `HudiCommitSensor`, and `hudi://` assets (`hudi_asset`). Airflow finds the provider
through the `apache_airflow_provider` entry point, which calls `get_provider_info`; this module
imports nothing else, so discovery stays cheap.
"""

from __future__ import annotations

from typing import Any

PACKAGE_NAME = "hudi-dagster"  # the distribution this provider ships in (Airflow checks the match)


def get_provider_info() -> dict[str, Any]:
    """The provider's description for Airflow's providers manager."""
    return {
        "package-name": PACKAGE_NAME,
        "name": "Apache Hudi (hudi-dagster)",
        "description": "Hudi tables from Python: writes, incremental and CDC reads, table services, commit sensor.",
        "asset-uris": [
            {
                "schemes": ["hudi"],
                "handler": "hudi_airflow.assets.normalize_hudi_uri",
                "factory": "hudi_airflow.assets.create_hudi_asset",
                "to_openlineage_converter": "hudi_airflow.assets.hudi_asset_to_openlineage",
            }
        ],
        "triggers": [{"integration-name": "Apache Hudi", "python-modules": ["hudi_airflow.triggers"]}],
        "sensors": [{"integration-name": "Apache Hudi", "python-modules": ["hudi_airflow.sensors"]}],
        "operators": [
            {
                "integration-name": "Apache Hudi",
                "python-modules": [
                    "hudi_airflow.operators.write",
                    "hudi_airflow.operators.consume",
                    "hudi_airflow.operators.services",
                    "hudi_airflow.operators.sync",
                ],
            }
        ],
        "hooks": [{"integration-name": "Apache Hudi", "python-modules": ["hudi_airflow.hook"]}],
        "integrations": [
            {"integration-name": "Apache Hudi", "external-doc-url": "https://hudi.apache.org/", "tags": ["software"]}
        ],
    }
