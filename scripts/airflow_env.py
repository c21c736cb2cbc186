"""The Airflow side of the repository: `.venv-airflow`, its own virtualenv.

Airflow and Dagster pin libraries the other cannot take, so `hudi_airflow` and its tests run in a
second virtualenv: this package (editable) with the `airflow`, `spark`, `s3`, `test` and `lint`
extras under the constraints kept in `scripts/constraints/` (Airflow's way of pinning a working set;
its published file is not reachable from CI, so ours was resolved by pip and is kept here). Installed
once, again when `pyproject.toml` or the constraints change. The environment it runs in has an
`AIRFLOW_HOME` of its own (`.airflow/` in the repository unless set), the example DAGs
(`pipelines/airflow/`) as the DAGs folder, and the repository on `PYTHONPATH` for them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-airflow"
STAMP = VENV / ".hudi-dagster-installed"
CONSTRAINTS = ROOT / "scripts" / "constraints" / "airflow-3.3.2-python3.11.txt"
EXTRAS = "airflow,spark,s3,hive,test,lint"
SPARK_PROVIDER = "apache-airflow-providers-apache-spark==6.3.4"
TESTS = "tests_airflow"


class AirflowInstallError(RuntimeError):
    """`.venv-airflow` could not be created or installed."""


def python() -> Path:
    """The virtualenv's interpreter."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _digest() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + CONSTRAINTS.read_bytes()).hexdigest()


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AirflowInstallError(f"{what} failed:\n{(done.stdout + done.stderr)[-3000:]}")


def ensure(say: Callable[[str], None]) -> Path:
    """Creates and installs `.venv-airflow` when needed; returns its interpreter."""
    if not python().exists():
        say("creating .venv-airflow")
        _run([sys.executable, "-m", "venv", str(VENV)], "creating .venv-airflow")
    digest = _digest()
    installed = STAMP.read_text().strip() if STAMP.exists() else ""
    if installed != digest:
        say(f"installing hudi-dagster[{EXTRAS}] into .venv-airflow (constraints {CONSTRAINTS.name})")
        pip = [str(python()), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
        _run([*pip, "-e", f".[{EXTRAS}]", "-c", str(CONSTRAINTS)], "pip install into .venv-airflow")
        # The `spark` connection type, without the pyspark-client the provider requires: that
        # package rewrites PySpark's own Python files at another version (4.2 over 4.3).
        _run([*pip, "--no-deps", SPARK_PROVIDER], "pip install of the Spark provider into .venv-airflow")
        STAMP.write_text(digest + "\n")
    return python()


def environment(base: dict[str, str]) -> dict[str, str]:
    """`base` with `.venv-airflow` activated and Airflow pointed at this repository's DAGs."""
    env = dict(base)
    bin_dir = str(python().parent)
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = os.pathsep.join(filter(None, [bin_dir, env.get("PATH")]))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("AIRFLOW_HOME", str(ROOT / ".airflow"))
    env.setdefault("AIRFLOW__CORE__DAGS_FOLDER", str(ROOT / "pipelines" / "airflow"))
    env.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    env["PYSPARK_PYTHON"] = str(python())
    return env


def is_airflow_test_run(args: list[str]) -> bool:
    """Whether pytest `args` name only Airflow tests (paths under `tests_airflow/`)."""
    paths = [a for a in args if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    return bool(paths) and all(Path(p.split("::")[0]).parts[0] == TESTS for p in paths)
