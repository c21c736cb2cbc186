"""Dagster definitions loaded by `workspace.yaml` (`dagster dev`).

The example lakehouse (bronze -> silver -> gold on Hudi, CDC consumer, maintenance schedule,
sensors and checks) is added here by the hudi_dagster issue; until then the code location is empty.
"""

from __future__ import annotations

import dagster as dg

defs = dg.Definitions()
