"""Concurrency control: which writers and services may change a table, and when.

* `lock_manager`: the table lock of the configured `hoodie.write.concurrency.mode`;
* `storage_lock`: the single-writer lock file held for a whole write;
* `providers`, `zookeeper`: optimistic concurrency's lock providers, by Hudi's class names;
* `conflicts`: the file-group conflict check a writer runs under the lock before it commits;
* `retry`: running a write again after it lost a conflict.
"""

from hudi_core.concurrency.conflicts import WriteSnapshot, check_write_conflicts, written_file_groups
from hudi_core.concurrency.lock_manager import failed_writes_policy, is_optimistic, table_lock
from hudi_core.concurrency.retry import retry_on_conflict

__all__ = [
    "WriteSnapshot",
    "check_write_conflicts",
    "failed_writes_policy",
    "is_optimistic",
    "retry_on_conflict",
    "table_lock",
    "written_file_groups",
]
