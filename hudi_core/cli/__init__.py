"""`hudi-core`: the command line over hudi_core, after hudi-cli and Hudi's Spark SQL procedures.

    hudi-core info /data/trips
    hudi-core read /data/trips --filter "fare > 10" --columns uuid,fare
    hudi-core write /data/trips batch.parquet -o hoodie.datasource.write.operation=upsert
    hudi-core compact /data/trips

Nothing else in hudi_core imports this package.
"""

from __future__ import annotations

from hudi_core.cli.app import cli, main

__all__ = ["cli", "main"]
