"""Base files: columnar files holding a file slice's records (Parquet; HFile in the metadata table)."""
