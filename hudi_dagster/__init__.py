"""hudi_dagster: Dagster resources, IO managers, asset factories, sensors, checks and maintenance
jobs for Hudi tables (the format engine is `hudi_core`).

Spark parts (`HudiSparkIOManager`) live in `hudi_dagster.io_manager.spark` and need the `spark` extra.
"""

from hudi_dagster.checks import hudi_table_checks, io_manager_checks
from hudi_dagster.config import HudiTableConfig, WriteMode
from hudi_dagster.factories import AssetSettings, cdc_mirror_rows, hudi_cdc_asset, hudi_incremental_asset, pool_for
from hudi_dagster.io_manager import HudiIOManager, HudiPandasIOManager, HudiPyArrowIOManager
from hudi_dagster.jobs import hudi_asset_job
from hudi_dagster.maintenance import hudi_maintenance_job, hudi_maintenance_schedule, hudi_service_op
from hudi_dagster.observe import hudi_observable_source_asset
from hudi_dagster.ops import hudi_cdc_read_op, hudi_incremental_read_op, hudi_write_op
from hudi_dagster.resource import HudiTableResource, SparkResource
from hudi_dagster.sensors import hudi_commit_sensor, hudi_table_state_sensor
from hudi_dagster.streaming import hudi_streaming_asset

__all__ = [
    "AssetSettings",
    "HudiIOManager",
    "HudiPandasIOManager",
    "HudiPyArrowIOManager",
    "HudiTableConfig",
    "HudiTableResource",
    "SparkResource",
    "WriteMode",
    "cdc_mirror_rows",
    "hudi_asset_job",
    "hudi_cdc_asset",
    "hudi_cdc_read_op",
    "hudi_commit_sensor",
    "hudi_incremental_asset",
    "hudi_incremental_read_op",
    "hudi_maintenance_job",
    "hudi_maintenance_schedule",
    "hudi_observable_source_asset",
    "hudi_service_op",
    "hudi_streaming_asset",
    "hudi_table_checks",
    "hudi_table_state_sensor",
    "hudi_write_op",
    "io_manager_checks",
    "pool_for",
]
