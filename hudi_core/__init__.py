"""hudi_core: a Python implementation of the Apache Hudi table format.

Reads tables of versions 6, 8 and 9 (Copy-on-Write and Merge-on-Read) into Arrow and writes tables
of version 8 that Apache Hudi and hudi-rs read. Never imports
Dagster or PySpark at import time; the Spark engine lives in `hudi_core.spark`.
"""

from hudi_core.errors import (
    ConcurrentWriteError,
    DuplicateKeyError,
    FileFormatError,
    FilterError,
    HudiConfigError,
    HudiError,
    HudiNotInstalledError,
    HudiStorageError,
    IncrementalRangeUnavailableError,
    InstantNotFoundError,
    InvalidKeyError,
    SchemaError,
    TableExistsError,
    TableNotFoundError,
    TimelineError,
    UnsupportedFeatureError,
    UnsupportedTableVersionError,
    WriteConflictError,
)
from hudi_core.file_group import FileSlice

# The façade first: importing it loads the packages in an order their mutual imports accept.
from hudi_core.hudi_table import HudiTable, ScanPlan, ServiceResult, TableConfig, write_hudi
from hudi_core.timeline.instant import Action, Instant, State
from hudi_core.write.client import WriteResult
from hudi_core.write.operation import WriteOperation

__all__ = [
    "Action",
    "ConcurrentWriteError",
    "DuplicateKeyError",
    "FileFormatError",
    "FileSlice",
    "FilterError",
    "HudiConfigError",
    "HudiError",
    "HudiNotInstalledError",
    "HudiStorageError",
    "HudiTable",
    "IncrementalRangeUnavailableError",
    "Instant",
    "InstantNotFoundError",
    "InvalidKeyError",
    "ScanPlan",
    "SchemaError",
    "ServiceResult",
    "State",
    "TableConfig",
    "TableExistsError",
    "TableNotFoundError",
    "TimelineError",
    "UnsupportedFeatureError",
    "UnsupportedTableVersionError",
    "WriteConflictError",
    "WriteOperation",
    "WriteResult",
    "write_hudi",
]
