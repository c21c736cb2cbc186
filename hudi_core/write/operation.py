"""The timeline action of each write operation (the operations are declared with the write
options, `hudi_core.config.write.WriteOperation`)."""

from __future__ import annotations

from hudi_core.config.table import TableType
from hudi_core.config.write import WriteOperation
from hudi_core.errors import HudiConfigError
from hudi_core.timeline.instant import Action

__all__ = ["WriteOperation", "operation_on_generated_keys", "write_action"]


def write_action(operation: WriteOperation, table_type: TableType) -> Action:
    """The timeline action of a write: replacecommit, else commit (CoW) or deltacommit (MoR)."""
    if operation.replaces_file_groups:
        return Action.REPLACE_COMMIT
    return Action.DELTA_COMMIT if table_type is TableType.MERGE_ON_READ else Action.COMMIT


def operation_on_generated_keys(operation: WriteOperation) -> WriteOperation:
    """The operation a write runs on a table whose keys are generated (no record key fields): an
    upsert inserts, as in Apache Hudi, since new rows never carry a stored key; a delete by key is
    refused (replace partitions or the table instead)."""
    if operation is WriteOperation.UPSERT:
        return WriteOperation.INSERT
    if operation is WriteOperation.DELETE:
        raise HudiConfigError(
            "the table has no record key fields (its keys are generated), so rows cannot be deleted by key: "
            "use insert_overwrite, insert_overwrite_table or delete_partition"
        )
    return operation
