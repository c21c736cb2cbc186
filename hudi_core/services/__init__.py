"""Table services: rollback, compaction, clustering, cleaning, archival, savepoint and restore."""
