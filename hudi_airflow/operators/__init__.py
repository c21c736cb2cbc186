"""Operators: writes (`write`), exactly-once consumers of another table's commits (`consume`) and
table services (`services`), catalog sync (`sync`)."""

from hudi_airflow.operators.consume import HudiCdcOperator, HudiIncrementalOperator
from hudi_airflow.operators.services import HudiRestoreOperator, HudiTableServiceOperator
from hudi_airflow.operators.sync import HudiSyncOperator
from hudi_airflow.operators.write import HudiWriteOperator

__all__ = [
    "HudiCdcOperator",
    "HudiIncrementalOperator",
    "HudiRestoreOperator",
    "HudiSyncOperator",
    "HudiTableServiceOperator",
    "HudiWriteOperator",
]
