"""The conformance corpus as example data: real tables written by Apache Hudi on Spark.

The corpus ships beside the checkout (`../shared/conformance`); set `HUDI_CONFORMANCE_DIR` to point
elsewhere. Tables are zipped; :func:`extract` unpacks one.
"""

from __future__ import annotations

import json
import os
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent


def conformance_dir() -> Path:
    """$HUDI_CONFORMANCE_DIR, else the first `shared/conformance` beside the checkout or a parent."""
    env = os.environ.get("HUDI_CONFORMANCE_DIR")
    if env:
        return Path(env)
    for parent in [REPO_ROOT, *REPO_ROOT.parents]:
        candidate = parent.parent / "shared" / "conformance"
        if (candidate / "manifest.json").exists():
            return candidate
    return Path("/work/shared/conformance")


@cache
def manifest() -> dict[str, Any]:
    with open(conformance_dir() / "manifest.json", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def manifest_entry(name: str) -> dict[str, Any]:
    for entry in manifest()["tables"]:
        if entry["name"] == name:
            return dict(entry)
    raise KeyError(f"no table {name!r} in {conformance_dir() / 'manifest.json'}")


def extract(entry: dict[str, Any], cache_dir: Path) -> Path:
    """Unpacks the table's zip under `cache_dir` (once) and returns the table base path."""
    target = cache_dir / entry["name"]
    base: Path = target / str(entry["table_dir_in_zip"]).rstrip("/")
    if not base.exists():
        with zipfile.ZipFile(conformance_dir() / entry["zip"]) as archive:
            archive.extractall(target)
    return base
