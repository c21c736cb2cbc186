"""Apache Hudi itself as the reference: the environment its Spark driver runs in.

Test and bench only (``hudi_core`` and ``hudi_dagster`` never import this). ``scripts/dev.py``
installs it before pytest starts: a separate virtualenv with PySpark 3.5 from PyPI and the
``org.apache.hudi:hudi-spark3.5-bundle_2.12`` jar of every Hudi version the tests compare with,
under the user's cache directory (``$XDG_CACHE_HOME`` or ``~/.cache``)``/hudi-dagster/apache-hudi/``::

    pyspark-3.5.9/                          the virtualenv (only pyspark and py4j)
    jars/hudi-spark3.5-bundle_2.12-1.2.0.jar  the bundle, its SHA-1 checked once
    installed.json                           the stamp: what is installed, and with which Python

A run that finds the stamp matching resolves nothing. The jar comes from ``mvn dependency:get``
when Maven is installed, else by a plain HTTPS download from Maven Central (the machine may have
Python only) or the mirror ``$HUDI_REFERENCE_MAVEN_REPOSITORY`` names, checked against the
``.sha1`` published next to it. Needs only the standard library.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from scripts import cached_install
from scripts.cached_install import install_lock, read_stamp, write_stamp

PYSPARK_VERSION = "3.5.9"
HUDI_VERSIONS = ("1.2.0",)
SPARK_LINE = "3.5"
SCALA_VERSION = "2.12"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
BUNDLE_ARTIFACT = f"hudi-spark{SPARK_LINE}-bundle_{SCALA_VERSION}"

#: Variables the tests read (set by ``scripts/dev.py``).
PYTHON_VARIABLE = "HUDI_REFERENCE_PYTHON"
JARS_VARIABLE = "HUDI_REFERENCE_JARS"  # os.pathsep-separated bundle jars, one per Hudi version
REQUIRED_VARIABLE = "HUDI_REFERENCE_REQUIRED"  # "1": dev.py installed it, so missing is a failure
UNAVAILABLE_VARIABLE = "HUDI_REFERENCE_UNAVAILABLE"  # why it is missing, for the tests' skip reason
#: ``HUDI_REFERENCE=skip`` leaves the reference environment out (e.g. an offline machine).
SWITCH_VARIABLE = "HUDI_REFERENCE"
#: A Maven repository (a mirror of Maven Central) to download the bundles from, without mvn.
REPOSITORY_VARIABLE = "HUDI_REFERENCE_MAVEN_REPOSITORY"

_DOWNLOAD_TIMEOUT_SECONDS = 60
_PIP_TIMEOUT_SECONDS = 900
_MAVEN_TIMEOUT_SECONDS = 900


class ReferenceInstallError(Exception):
    """The reference environment could not be installed (the message says which step and why)."""


@dataclass(frozen=True)
class Bundle:
    """The Hudi Spark bundle jar of one Hudi version."""

    hudi_version: str

    @property
    def coordinates(self) -> str:
        return f"org.apache.hudi:{BUNDLE_ARTIFACT}:{self.hudi_version}"

    @property
    def file_name(self) -> str:
        return f"{BUNDLE_ARTIFACT}-{self.hudi_version}.jar"

    @property
    def repository_path(self) -> str:
        """The jar's path inside a Maven repository."""
        return f"org/apache/hudi/{BUNDLE_ARTIFACT}/{self.hudi_version}/{self.file_name}"


BUNDLES = tuple(Bundle(version) for version in HUDI_VERSIONS)


@dataclass(frozen=True)
class ReferenceEnvironment:
    """An installed reference environment."""

    python: Path
    jars: tuple[Path, ...]

    def variables(self) -> dict[str, str]:
        """The environment variables the tests find it by."""
        return {PYTHON_VARIABLE: str(self.python), JARS_VARIABLE: os.pathsep.join(map(str, self.jars))}

    def describe(self) -> str:
        versions = ", ".join(bundle.hudi_version for bundle in BUNDLES)
        return f"pyspark {PYSPARK_VERSION}, hudi {versions} in {self.python.parent.parent.parent}"


def is_required(env: Mapping[str, str]) -> bool:
    """Missing is a failure, not a skip: under CI, or when dev.py installed it for this run."""
    return cached_install.is_required(env, REQUIRED_VARIABLE)


def from_variables(env: Mapping[str, str]) -> ReferenceEnvironment | str:
    """The environment dev.py pointed this process at, or the reason there is none."""
    python, jars = env.get(PYTHON_VARIABLE, ""), env.get(JARS_VARIABLE, "")
    if not python or not jars:
        return env.get(UNAVAILABLE_VARIABLE) or (
            f"{PYTHON_VARIABLE} / {JARS_VARIABLE} are not set: run the tests with `python3 scripts/dev.py test`, "
            "which installs Apache Hudi's reference environment"
        )
    ready = ReferenceEnvironment(Path(python), tuple(Path(jar) for jar in jars.split(os.pathsep)))
    missing = [str(path) for path in (ready.python, *ready.jars) if not path.exists()]
    if missing:
        return f"the Apache Hudi reference environment lacks {', '.join(missing)}"
    return ready


def bundle_version(jar: Path) -> str | None:
    """The Hudi version of a bundle jar, from its Maven file name."""
    prefix, suffix = f"{BUNDLE_ARTIFACT}-", ".jar"
    if jar.name.startswith(prefix) and jar.name.endswith(suffix):
        return jar.name[len(prefix) : -len(suffix)]
    return None


def cache_root(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/hudi-dagster/apache-hudi`` or ``~/.cache/hudi-dagster/apache-hudi``."""
    return cached_install.cache_dir(env, "apache-hudi")


def _venv_dir(root: Path) -> Path:
    return root / f"pyspark-{PYSPARK_VERSION}"


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _jar_path(root: Path, bundle: Bundle) -> Path:
    return root / "jars" / bundle.file_name


def installed(env: Mapping[str, str]) -> ReferenceEnvironment | None:
    """The environment when the stamp matches and its files are there; never downloads anything."""
    root = cache_root(env)
    stamp = read_stamp(root)
    if stamp is None or stamp.get("pyspark") != PYSPARK_VERSION:
        return None
    bundles = stamp.get("bundles")
    if not isinstance(bundles, dict) or set(bundles) != {b.file_name for b in BUNDLES}:
        return None
    python = _venv_python(_venv_dir(root))
    jars = tuple(_jar_path(root, bundle) for bundle in BUNDLES)
    # A venv's interpreter is a link to the Python that built it: gone when that Python is.
    if not python.exists() or not all(jar.is_file() for jar in jars):
        return None
    return ReferenceEnvironment(python, jars)


def _run(command: list[str], what: str, timeout: float) -> None:
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReferenceInstallError(f"{what}: {exc}") from exc
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).strip().splitlines()[-15:])
        raise ReferenceInstallError(f"{what} failed (exit {completed.returncode}):\n{tail}")


def _install_venv(root: Path, say: Callable[[str], None]) -> Path:
    venv = _venv_dir(root)
    shutil.rmtree(venv, ignore_errors=True)  # a half-built one from an interrupted run
    say(f"creating {venv} with pyspark {PYSPARK_VERSION}")
    _run([sys.executable, "-m", "venv", str(venv)], f"{sys.executable} -m venv {venv}", _PIP_TIMEOUT_SECONDS)
    python = _venv_python(venv)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input"]
    _run([*pip, f"pyspark=={PYSPARK_VERSION}"], f"pip install pyspark=={PYSPARK_VERSION}", _PIP_TIMEOUT_SECONDS)
    return python


def _sha1_of(path: Path) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _published_sha1(url: str) -> str:
    """The checksum Maven Central publishes next to an artifact (``<url>.sha1``)."""
    try:
        with urllib.request.urlopen(f"{url}.sha1", timeout=_DOWNLOAD_TIMEOUT_SECONDS) as response:
            text = str(response.read().decode("ascii", "replace"))
    except OSError as exc:
        raise ReferenceInstallError(f"cannot download {url}.sha1: {exc}") from exc
    words = text.split()
    if not words or len(words[0]) != 40:
        raise ReferenceInstallError(f"{url}.sha1 holds no SHA-1: {text[:80]!r}")
    return words[0].lower()


def _from_maven(bundle: Bundle, say: Callable[[str], None]) -> tuple[Path, str] | None:
    """Resolve the jar with ``mvn dependency:get``; its path in ~/.m2 and SHA-1, or None."""
    mvn = shutil.which("mvn")
    if mvn is None:
        return None
    say(f"mvn dependency:get {bundle.coordinates}")
    command = [mvn, "-q", "-B", "dependency:get", f"-Dartifact={bundle.coordinates}", "-Dtransitive=false"]
    try:
        _run(command, f"mvn dependency:get {bundle.coordinates}", _MAVEN_TIMEOUT_SECONDS)
    except ReferenceInstallError as exc:
        say(f"{exc}; downloading from Maven Central instead")
        return None
    jar = Path.home() / ".m2" / "repository" / bundle.repository_path
    checksum = jar.with_name(jar.name + ".sha1")
    if not jar.is_file() or not checksum.is_file():
        say(f"mvn put no {jar} (a custom local repository?); downloading from Maven Central instead")
        return None
    return jar, checksum.read_text().split()[0].lower()


def _download(url: str, target: Path) -> str:
    """Stream `url` into `target`; returns the SHA-1 of what was written."""
    digest = hashlib.sha1(usedforsecurity=False)
    try:
        with urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT_SECONDS) as response, target.open("wb") as out:
            for block in iter(lambda: response.read(1 << 20), b""):
                digest.update(block)
                out.write(block)
    except OSError as exc:
        raise ReferenceInstallError(f"cannot download {url}: {exc}") from exc
    return digest.hexdigest()


def install_jar(root: Path, bundle: Bundle, repository: str | None, say: Callable[[str], None]) -> str:
    """Put the bundle into the cache's jars folder; returns its verified SHA-1.

    From `repository` when given, else with mvn when it is installed, else from Maven Central.
    """
    target = _jar_path(root, bundle)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkstemp(prefix=f".{bundle.file_name}.", dir=target.parent)[1])
    try:
        resolved = _from_maven(bundle, say) if repository is None else None
        if resolved is not None:
            source, expected = resolved
            shutil.copyfile(source, partial)
            actual = _sha1_of(partial)
        else:
            url = f"{(repository or MAVEN_CENTRAL).rstrip('/')}/{bundle.repository_path}"
            say(f"downloading {url}")
            expected = _published_sha1(url)
            actual = _download(url, partial)
        if actual != expected:
            raise ReferenceInstallError(f"{bundle.file_name}: SHA-1 {actual} does not match the published {expected}")
        partial.chmod(0o644)  # mkstemp made it private
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return actual


def install(env: Mapping[str, str], say: Callable[[str], None]) -> ReferenceEnvironment:
    """Install what is missing (under a lock) and return the environment.

    Raises:
        ReferenceInstallError: a step failed; the message names it and carries its output.
    """
    ready = installed(env)
    if ready is not None:
        return ready
    root = cache_root(env)
    with install_lock(root):
        ready = installed(env)  # another run may have installed it while this one waited
        if ready is not None:
            return ready
        started = time.monotonic()
        stamp = read_stamp(root) or {}
        python = _venv_python(_venv_dir(root))
        if stamp.get("pyspark") != PYSPARK_VERSION or not python.exists():
            python = _install_venv(root, say)
        known = stamp.get("bundles")
        digests: dict[str, str] = {}
        for bundle in BUNDLES:
            previous = known.get(bundle.file_name) if isinstance(known, dict) else None
            if isinstance(previous, str) and _jar_path(root, bundle).is_file():
                digests[bundle.file_name] = previous
            else:
                digests[bundle.file_name] = install_jar(root, bundle, env.get(REPOSITORY_VARIABLE) or None, say)
        document = {"pyspark": PYSPARK_VERSION, "python": sys.executable, "bundles": digests}
        write_stamp(root, document)
        say(f"installed in {time.monotonic() - started:.0f} s")
    result = installed(env)
    if result is None:
        raise ReferenceInstallError(f"the installed environment under {root} is incomplete")
    return result
