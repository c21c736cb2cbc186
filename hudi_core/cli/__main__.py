"""`python -m hudi_core.cli`: the same as the `hudi-core` console script."""

from __future__ import annotations

from hudi_core.cli import main

raise SystemExit(main())
