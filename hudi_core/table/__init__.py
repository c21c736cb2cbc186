"""The table on storage, below the planner: its state (`hoodie.properties` and timeline), creation,
file listing, partition pruning, scans, change feeds, checkpoints and orphan files.

The user façade (`HudiTable`, `write_hudi`) lives in `hudi_core.hudi_table`; the names it exports
stay importable from here for one release, with a DeprecationWarning.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    # Loaded on use: the façade imports this package's modules.
    facade = importlib.import_module("hudi_core.hudi_table")
    if name.startswith("_") or name not in getattr(facade, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    message = f"hudi_core.table.{name} moved to hudi_core.hudi_table.{name} (or import it from hudi_core)"
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    return getattr(facade, name)
