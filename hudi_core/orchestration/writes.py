"""One write entry point for orchestrators: the engine follows the data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_core.hudi_table import write_hudi
from hudi_core.write.client import WriteResult

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def write_data(
    path: str,
    data: Any,
    options: Mapping[str, str],
    checkpoint: str | None = None,
    checkpoint_identifier: str | None = None,
    deletes: Any = None,
) -> WriteResult:
    """Writes with the engine the data calls for: Spark DataFrames on Spark, anything else in Arrow.

    `deletes`: records an upsert deletes in the same commit (Arrow engine only)."""
    if is_spark_dataframe(data):
        from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark is the `spark` extra

        if deletes is not None and len(deletes):
            raise ValueError(
                "a Spark DataFrame cannot delete records as it upserts: partition the table by the "
                "partition_expr columns (replaced with insert_overwrite), or set write_mode"
            )
        frame: DataFrame = data
        return hudi_spark.write(frame, path, dict(options), checkpoint, checkpoint_identifier)
    return write_hudi(path, data, options, checkpoint, checkpoint_identifier, deletes=deletes)


def is_spark_dataframe(data: Any) -> bool:
    """Whether `data` is a PySpark DataFrame (classic or Connect), without importing PySpark."""
    return any(cls.__module__.startswith("pyspark.sql") and cls.__name__ == "DataFrame" for cls in type(data).__mro__)
