"""The Spark engine: the `hudi` PySpark data source and distributed writes over the shared file-group code.

Public entry points are in `hudi_core.spark`; importing this package needs PySpark (the `spark` extra).
"""
