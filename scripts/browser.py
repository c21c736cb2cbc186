"""A headless browser for the UI tests: Debian's `chromium`, installed once and cached.

`scripts/dev.py test` calls `ensure_chromium`: it finds a Chromium on PATH, or installs Debian's
package with apt (as root), keeping the downloaded .deb files under
``~/.cache/hudi-dagster/debs`` so a fresh machine with a warm cache installs without downloading.
The tests find the browser in ``HUDI_CHROMIUM``; ``HUDI_CHROMIUM_REQUIRED=1`` makes its absence a
failure instead of a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

BROWSER_VARIABLE = "HUDI_CHROMIUM"
REQUIRED_VARIABLE = "HUDI_CHROMIUM_REQUIRED"
NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((found for name in NAMES if (found := shutil.which(name)) is not None), None)


def deb_cache(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path(env.get("HOME", "").strip() or Path.home()) / ".cache"
    return base / "hudi-dagster" / "debs"


def _apt(args: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    command = ["apt-get", "-o", f"Dir::Cache::archives={cache}", *args]
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=1800, check=False)


def ensure_chromium(env: Mapping[str, str], say: Callable[[str], None]) -> dict[str, str]:
    """The browser variables for the tests; installs Chromium when it is missing and apt can."""
    found = find_chromium()
    if found is None and shutil.which("apt-get") is not None and os.geteuid() == 0:
        cache = deb_cache(env)
        (cache / "partial").mkdir(parents=True, exist_ok=True)
        say("installing chromium (Debian package, cached in " + str(cache) + ")")
        install = ["install", "-y", "--no-install-recommends", "chromium"]
        done = _apt(install, cache)
        if done.returncode != 0:  # package lists missing or stale
            _apt(["update"], cache)
            done = _apt(install, cache)
        if done.returncode != 0:
            say(f"chromium: apt-get failed: {done.stderr.strip()[-300:]}")
        found = find_chromium()
    if found is None:
        say("chromium unavailable: the browser check of the Dagster UI will be skipped")
        return {}
    return {BROWSER_VARIABLE: found, REQUIRED_VARIABLE: "1"}
