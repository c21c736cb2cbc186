"""Table schemas: Avro (as Hudi stores them) and Arrow (as hudi_core returns data)."""
