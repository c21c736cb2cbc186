"""Table services: compaction, clustering, cleaning, archival, savepoint and restore, inline service
scheduling, metadata-table indexing and validation, and table-version upgrades."""
