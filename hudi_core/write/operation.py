"""Write operations, named as `hoodie.datasource.write.operation` takes them (features §1.1)."""

from __future__ import annotations

import enum

from hudi_core.config.table import TableType
from hudi_core.timeline.instant import Action


class WriteOperation(enum.Enum):
    UPSERT = "upsert"
    INSERT = "insert"
    BULK_INSERT = "bulk_insert"
    DELETE = "delete"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE_PARTITION = "delete_partition"

    @property
    def operation_type(self) -> str:
        """The `WriteOperationType` name recorded in commit metadata."""
        return self.name

    @property
    def replaces_file_groups(self) -> bool:
        return self in (
            WriteOperation.INSERT_OVERWRITE,
            WriteOperation.INSERT_OVERWRITE_TABLE,
            WriteOperation.DELETE_PARTITION,
        )

    @property
    def looks_up_index(self) -> bool:
        return self in (WriteOperation.UPSERT, WriteOperation.DELETE)

    def action(self, table_type: TableType) -> Action:
        """The timeline action of a write: replacecommit, else commit (CoW) or deltacommit (MoR)."""
        if self.replaces_file_groups:
            return Action.REPLACE_COMMIT
        return Action.DELTA_COMMIT if table_type is TableType.MERGE_ON_READ else Action.COMMIT
