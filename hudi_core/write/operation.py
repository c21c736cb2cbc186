"""The timeline action of each write operation (the operations are declared with the write
options, `hudi_core.config.write.WriteOperation`)."""

from __future__ import annotations

from hudi_core.config.table import TableType
from hudi_core.config.write import WriteOperation
from hudi_core.timeline.instant import Action

__all__ = ["WriteOperation", "write_action"]


def write_action(operation: WriteOperation, table_type: TableType) -> Action:
    """The timeline action of a write: replacecommit, else commit (CoW) or deltacommit (MoR)."""
    if operation.replaces_file_groups:
        return Action.REPLACE_COMMIT
    return Action.DELTA_COMMIT if table_type is TableType.MERGE_ON_READ else Action.COMMIT
