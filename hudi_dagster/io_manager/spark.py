"""Hudi IO manager for Spark DataFrames: distributed writes, and loads pruned by the asset's partitions.

Loads go through `hudi_core.spark.read(..., filters=, columns=)`, which plans the pruned read for
the loaded DataFrame alone: filters given to `spark.read.format("hudi")` do not prune (see
`hudi_core.spark.datasource`).
"""

# No postponed annotations here: Dagster reads the `ResourceDependency` annotation at runtime.
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dagster as dg
import pyarrow as pa

from hudi_core import spark as hudi_spark
from hudi_core.engine.spark.types import arrow_schema
from hudi_core.spark.lineage import column_lineage
from hudi_dagster.handler import ArrowTypeHandler, HudiTypeHandler
from hudi_dagster.io_manager.base import HudiIOManager
from hudi_dagster.partitions import Filter
from hudi_dagster.resource import spark_session_of

try:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import functions as sf
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError("HudiSparkIOManager needs PySpark: install hudi-dagster[spark]") from missing


def spark_condition(filters: Sequence[Filter]) -> Column | None:
    """The partition filters as one Spark condition."""
    condition: Column | None = None
    for column, op, value in filters:
        test = (
            sf.col(column).isin(list(value))
            if op == "in"
            else (sf.col(column) >= sf.lit(value) if op == ">=" else sf.col(column) < sf.lit(value))
        )
        condition = test if condition is None else condition & test
    return condition


class SparkTypeHandler(HudiTypeHandler):
    """Spark DataFrames, written by the Spark engine and loaded through the `hudi` data source."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark  # SparkResource or dagster_pyspark.PySparkResource

    @property
    def supported_types(self) -> tuple[type, ...]:
        return (DataFrame,)

    def arrow_schema(self, obj: Any) -> pa.Schema:
        return arrow_schema(obj.schema)

    def rows_outside(self, obj: Any, filters: Sequence[Filter]) -> int:
        condition = spark_condition(filters)
        if condition is None:
            return 0
        return int(obj.where(~sf.coalesce(condition, sf.lit(False))).count())

    def rows_inside(self, obj: Any, filters_by_key: Mapping[str, Sequence[Filter]]) -> dict[str, int]:
        # One Spark job counts every partition: a count per partition key would be a job each.
        conditions = [spark_condition(filters) for filters in filters_by_key.values()]
        counts = [
            sf.count_if(sf.lit(True) if c is None else sf.coalesce(c, sf.lit(False))).alias(f"c{i}")
            for i, c in enumerate(conditions)
        ]
        if not counts:
            return {}
        row = obj.agg(*counts).first()
        return {key: int(row[f"c{i}"] or 0) for i, key in enumerate(filters_by_key)}

    def columns(self, obj: Any, names: Sequence[str], distinct: bool = False) -> pa.Table:
        selected = obj.select(*names)
        return (selected.distinct() if distinct else selected).toArrow()

    def has_rows(self, obj: Any) -> bool:
        return not obj.isEmpty()

    def column_lineage(
        self, obj: Any, asset_of_path: Callable[[str], dg.AssetKey | None]
    ) -> dg.TableColumnLineage | None:
        traced = column_lineage(obj)
        if traced is None:
            return None
        deps = {
            column: [
                dg.TableColumnDep(asset_key=key, column_name=name)
                for path, name in sources
                if (key := asset_of_path(path)) is not None
            ]
            for column, sources in traced.items()
        }
        deps = {column: found for column, found in deps.items() if found}
        return dg.TableColumnLineage(deps_by_column=deps) if deps else None

    def load(self, uri: str, columns: Sequence[str] | None, filters: Sequence[Filter], load_type: type) -> Any:
        session = spark_session_of(self.spark)
        if not filters and not columns:
            return hudi_spark.read(session, uri)
        return hudi_spark.read(session, uri, filters=list(filters), columns=list(columns) if columns else None)


class HudiSparkIOManager(HudiIOManager):
    """Assets as Spark DataFrames stored in Hudi tables; pyarrow Tables are written by the Arrow engine.

    `spark`: a `hudi_dagster.SparkResource` or dagster-pyspark's `PySparkResource`.
    """

    spark: dg.ResourceDependency[Any]

    def type_handlers(self) -> Sequence[HudiTypeHandler]:
        return [SparkTypeHandler(self.spark), ArrowTypeHandler()]

    def default_load_type(self) -> type | None:
        return DataFrame
