"""Execution engines: where file-group work runs (in-process Arrow, Spark)."""
