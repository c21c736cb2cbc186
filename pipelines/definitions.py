"""Dagster definitions loaded by `workspace.yaml` (`dagster dev`): the example lakehouse
(`pipelines.lakehouse`), with its tables under `$HUDI_LAKEHOUSE_ROOT` (default `.lakehouse/`)."""

from __future__ import annotations

from pipelines.lakehouse import build_definitions

defs = build_definitions()
