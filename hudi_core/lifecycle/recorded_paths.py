"""Data files that instant files name: hostile input like any other.

Cleaning, rollback and restore delete what a plan or a commit's write stats name. A path outside
the table (`../x`, an absolute path or a URI elsewhere), the base path itself, or a path into
`.hoodie` names no data file Hudi writes. Such an entry fails the service with a TimelineError naming
the instant file and the path, before anything is deleted: a plan that names one is corrupt or
tampered with, and cannot be trusted for its other entries either.
"""

from __future__ import annotations

from collections.abc import Callable

from hudi_core.errors import HudiStorageError, TimelineError
from hudi_core.keygen.partition_path import partition_path_problem
from hudi_core.storage import Storage


def planned_file(storage: Storage, recorded: str, source: str) -> str:
    """The relative path of the data file that `source` records as a full path or URI (plans)."""
    return _data_file(storage, recorded, source, storage.relative_path)


def written_file(storage: Storage, recorded: str, source: str) -> str:
    """The relative path of the data file that `source` records relative to the base path (write stats)."""
    return _data_file(storage, recorded, source, storage.relative)


def planned_partition(partition: str, source: str) -> str:
    """A partition path that `source` names for deletion: a folder of partitions, not the table's."""
    problem = partition_path_problem(partition)
    if problem is not None:
        raise TimelineError(f"{source} names partition {partition!r}, which has {problem}")
    return partition


def _data_file(storage: Storage, recorded: str, source: str, relative_of: Callable[[str], str]) -> str:
    try:
        relative = relative_of(recorded)
    except HudiStorageError as e:
        raise TimelineError(f"{source} names {recorded!r}, which is not inside the table at {storage.base_uri}") from e
    problem = partition_path_problem(relative) if relative else "no file name (it is the base path)"
    if problem is not None:
        raise TimelineError(f"{source} names {recorded!r}, no data file of the table at {storage.base_uri}: {problem}")
    return relative
