"""The Spark engine: how file-group work runs on executors (task identity, jobs that end their tasks
on failure, Arrow and Spark types, Spark Connect sessions and their defaults).

The data source, planned reads and DataFrame writes built on it are in `hudi_core.spark`; importing
this package needs PySpark (the `spark` extra).
"""
