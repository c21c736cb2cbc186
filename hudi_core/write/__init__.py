"""Writing tables: operations, preparation, file-group planning and handles, commit."""
