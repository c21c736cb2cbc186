"""Hudi IO managers: pyarrow, pandas and Spark DataFrames (`HudiSparkIOManager` needs PySpark)."""

from hudi_dagster.io_manager.arrow import HudiPandasIOManager, HudiPyArrowIOManager
from hudi_dagster.io_manager.base import HudiIOManager

__all__ = ["HudiIOManager", "HudiPandasIOManager", "HudiPyArrowIOManager"]
