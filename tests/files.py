"""A table's files as bytes, to show that a refused request left the table exactly as it was."""

from __future__ import annotations

from pathlib import Path


def file_tree(base: Path) -> dict[str, bytes]:
    """Every file under `base` (relative path -> content)."""
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}
