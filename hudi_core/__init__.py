"""hudi_core: a Python implementation of the Apache Hudi table format.

Reads tables of versions 6, 8 and 9 (Copy-on-Write and Merge-on-Read) into Arrow. Never imports
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
    SchemaError,
    TableNotFoundError,
    TimelineError,
    UnsupportedFeatureError,
    UnsupportedTableVersionError,
    WriteConflictError,
)
from hudi_core.file_group import FileSlice
from hudi_core.table import HudiTable
from hudi_core.timeline.instant import Action, Instant, State

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
    "SchemaError",
    "State",
    "TableNotFoundError",
    "TimelineError",
    "UnsupportedFeatureError",
    "UnsupportedTableVersionError",
    "WriteConflictError",
]
