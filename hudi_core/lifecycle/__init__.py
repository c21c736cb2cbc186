"""The life of an instant on storage, below every writer and service that starts one.

`heartbeat` (a writer is alive), `markers` (which files an instant created), `crash` (named crash
points for fault tests), `process_identity` (which process holds a heartbeat or lock), `rollback`
(undoing a failed instant), `pending` (plans of services not yet run), `recorded_paths` (file paths
an instant recorded), and the metadata-table update every commit makes (`metadata_sync`,
`metadata_writer`).
"""
