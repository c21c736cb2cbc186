"""Named crash points for fault-injection tests.

With `HUDI_CRASH_AT=<name>` in the environment, the process kills itself with SIGKILL when it
reaches that point, as a crashed writer would die: no cleanup, no exception handlers. Tests
iterate :data:`CRASH_POINTS` and check that the table reads as before and the next writer recovers.
"""

from __future__ import annotations

import os
import signal

ENV_VAR = "HUDI_CRASH_AT"

_SERVICE_POINTS = ("after_plan", "after_inflight", "after_first_file", "after_files")

CRASH_POINTS: tuple[str, ...] = (
    "write.after_requested",
    "write.after_inflight",
    "write.after_first_file",
    "write.after_files",
    "write.after_complete",
    "rollback.after_plan",
    "rollback.after_delete",
    *(f"{service}.{point}" for service in ("compaction", "logcompaction", "clustering") for point in _SERVICE_POINTS),
    "clean.after_plan",
    "clean.after_inflight",
    "clean.after_first_delete",
    "clean.after_deletes",
    "archive.after_lsm_file",
    "archive.after_manifest",
    "archive.after_pending_deleted",
    "savepoint.after_inflight",
    "restore.after_plan",
    "restore.after_first_rollback",
    "restore.after_rollbacks",
    "metadata.after_log_files",
    "metadata.after_deltacommit",
    "metadata.after_compaction_files",
    "upgrade.after_timeline",
    "upgrade.after_metadata_dropped",
    "upgrade.after_properties",
    "upgrade.after_compaction",
)


def crash_point(name: str) -> None:
    """Dies here if the environment asks for it."""
    if name not in CRASH_POINTS:
        raise ValueError(f"unregistered crash point {name!r}")
    if os.environ.get(ENV_VAR) == name:
        os.kill(os.getpid(), signal.SIGKILL)
