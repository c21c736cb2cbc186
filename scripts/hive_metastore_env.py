"""A real Hive standalone metastore 3.1.3 for the catalog-sync tests: installed once, cached.

Test only (``hudi_core`` and ``hudi_dagster`` never import this). ``scripts/dev.py test`` installs
it before pytest starts, under the user's cache directory (``$XDG_CACHE_HOME`` or ``~/.cache``)
``/hudi-dagster/hive-metastore-3.1.3/``::

    lib/                                  the class path: runtime closure of scripts/hive_metastore/pom.xml
    home/scripts/metastore/upgrade/derby/ the schema scripts ($METASTORE_HOME of schematool), from the bin tarball
    template/metastore_db                 an embedded Derby database, schema 3.1.0, for the servers to copy
    installed.json                        the stamp: the Hive version and the pom's digest

Maven resolves everything (``mvn`` must be on PATH); schematool runs on ``$JAVA_HOME/bin/java``, else
``java`` on PATH. Hive 3.1.3 is the last metastore Spark 3.5's Hive 2.3 client (Apache Hudi's
HiveSyncTool) can talk to: 4.x dropped ``get_table``. Needs only the standard library.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from xml.sax.saxutils import escape

from scripts import cached_install
from scripts.cached_install import install_lock, read_stamp, write_stamp

HIVE_VERSION = "3.1.3"
SCHEMA_VERSION = "3.1.0"  # 3.1.3 ships no schema of its own: hive-schema-3.1.0.derby.sql
POM = Path(__file__).resolve().parent / "hive_metastore" / "pom.xml"
BIN_TARBALL = f"org.apache.hive:hive-standalone-metastore:{HIVE_VERSION}:tar.gz:bin"
SERVER_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
SCHEMA_TOOL_CLASS = "org.apache.hadoop.hive.metastore.tools.MetastoreSchemaTool"

#: Variables the tests read (set by ``scripts/dev.py``).
HOME_VARIABLE = "HUDI_HIVE_METASTORE_HOME"  # the install directory (lib/, home/, template/)
REQUIRED_VARIABLE = "HUDI_HIVE_METASTORE_REQUIRED"  # "1": dev.py installed it, so missing is a failure
UNAVAILABLE_VARIABLE = "HUDI_HIVE_METASTORE_UNAVAILABLE"  # why it is missing, for the tests' skip reason
#: ``HUDI_HIVE_METASTORE=skip`` leaves the metastore out (e.g. an offline machine).
SWITCH_VARIABLE = "HUDI_HIVE_METASTORE"

_MAVEN_TIMEOUT_SECONDS = 900
_SCHEMA_TOOL_TIMEOUT_SECONDS = 300
_TAIL_LINES = 20
_DERBY_SCRIPTS = "scripts/metastore/upgrade/derby"


class HiveMetastoreInstallError(Exception):
    """The metastore could not be installed (the message says which step and why)."""


def cache_root(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/hudi-dagster/hive-metastore-3.1.3`` or ``~/.cache/hudi-dagster/hive-metastore-3.1.3``."""
    return cached_install.cache_dir(env, f"hive-metastore-{HIVE_VERSION}")


def lib_dir(root: Path) -> Path:
    """The jars of the class path."""
    return root / "lib"


def metastore_home(root: Path) -> Path:
    """``$METASTORE_HOME``: where schematool finds ``scripts/metastore/upgrade/derby``."""
    return root / "home"


def template_database(root: Path) -> Path:
    """The initialised Derby database each server starts from a copy of."""
    return root / "template" / "metastore_db"


def is_required(env: Mapping[str, str]) -> bool:
    """Missing is a failure, not a skip: under CI, or when dev.py installed it for this run."""
    return cached_install.is_required(env, REQUIRED_VARIABLE)


def java_executable(env: Mapping[str, str]) -> Path | None:
    """``$JAVA_HOME/bin/java`` (dev.py's choice), else ``java`` on PATH, else None."""
    java_home = env.get("JAVA_HOME", "").strip()
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return Path(java_home) / "bin" / "java"
    found = shutil.which("java", path=env.get("PATH"))
    return Path(found) if found else None


def site_xml(database: Path, warehouse: Path, *, create: bool = False) -> str:
    """A ``metastore-site.xml`` for embedded Derby at `database`, tables under `warehouse`.

    Hive 3.1.3 has no bind-host setting: it listens on every interface (the tests pick a free port).
    """
    url = f"jdbc:derby:;databaseName={database}" + (";create=true" if create else "")
    properties = {
        "javax.jdo.option.ConnectionURL": url,
        "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
        "metastore.warehouse.dir": warehouse.as_uri(),
        "metastore.schema.verification": "true",
        "metastore.event.db.notification.api.auth": "false",
        "metastore.metrics.enabled": "false",
        "metastore.compactor.initiator.on": "false",
        # The defaults name classes of hive-exec, which is not on the class path: without these
        # the server dies at start-up, or lives on without ever opening its port.
        "metastore.expression.proxy": "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy",
        "metastore.task.threads.always": "org.apache.hadoop.hive.metastore.events.EventCleanerTask",
        # Asynchronous logging needs the LMAX disruptor, which is not on the class path either.
        "metastore.async.log.enabled": "false",
    }
    lines = ['<?xml version="1.0"?>', "<configuration>"]
    lines += [
        f"  <property><name>{name}</name><value>{escape(value)}</value></property>"
        for name, value in properties.items()
    ]
    return "\n".join([*lines, "</configuration>", ""])


#: The server logs INFO and up to its stdout (the tests' log file): start-up steps, one line per call.
LOG4J2_PROPERTIES = """\
status = WARN
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p [%t] %c: %m%n
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = console
"""


def write_conf(conf: Path, database: Path, warehouse: Path, *, create: bool = False) -> None:
    """Fill the conf directory put first on the class path (site xml and logging)."""
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "metastore-site.xml").write_text(site_xml(database, warehouse, create=create))
    (conf / "metastore-log4j2.properties").write_text(LOG4J2_PROPERTIES)


def pom_digest() -> str:
    """SHA-256 of the pom: a changed class path reinstalls."""
    return hashlib.sha256(POM.read_bytes()).hexdigest()


def _is_complete(root: Path) -> bool:
    return (
        (lib_dir(root) / f"hive-standalone-metastore-{HIVE_VERSION}.jar").is_file()
        and (metastore_home(root) / _DERBY_SCRIPTS / f"hive-schema-{SCHEMA_VERSION}.derby.sql").is_file()
        and (template_database(root) / "service.properties").is_file()
    )


def installed(env: Mapping[str, str]) -> Path | None:
    """The install directory when its stamp matches and its files are there; never installs."""
    root = cache_root(env)
    stamp = read_stamp(root)
    if stamp is None or stamp.get("hive") != HIVE_VERSION or stamp.get("pom") != pom_digest():
        return None
    return root if _is_complete(root) else None


def from_variables(env: Mapping[str, str]) -> Path | str:
    """The install directory dev.py pointed this process at, or the reason there is none."""
    home = env.get(HOME_VARIABLE, "")
    if not home:
        return env.get(UNAVAILABLE_VARIABLE) or (
            f"{HOME_VARIABLE} is not set: run the tests with `python3 scripts/dev.py test`, "
            f"which installs the Hive metastore {HIVE_VERSION}"
        )
    if not _is_complete(Path(home)):
        return f"the Hive metastore install in {home} is incomplete (run `python3 scripts/dev.py test` again)"
    return Path(home)


def _run(command: list[str], what: str, env: Mapping[str, str], timeout: float, cwd: Path) -> None:
    try:
        completed = subprocess.run(
            command,
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HiveMetastoreInstallError(f"{what}: {exc}") from exc
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).strip().splitlines()[-_TAIL_LINES:])
        raise HiveMetastoreInstallError(f"{what} failed (exit {completed.returncode}):\n{tail}")


def _maven(env: Mapping[str, str]) -> str:
    mvn = shutil.which("mvn", path=env.get("PATH"))
    if mvn is None:
        raise HiveMetastoreInstallError(
            "Maven (`mvn`) is not on PATH: the Hive metastore's jars are resolved with it. "
            f"Install Maven (e.g. `apt-get install maven`), or set {SWITCH_VARIABLE}=skip to leave the metastore out"
        )
    return mvn


def _extract_derby_scripts(tarball: Path, target: Path) -> None:
    """Only the Derby schema scripts of the bin tarball; the rest duplicates the jars."""
    target.mkdir(parents=True)
    marker = f"/{_DERBY_SCRIPTS}/"
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive:
            name = member.name.rsplit("/", 1)[-1]
            # By base name, never the member's own path: nothing lands outside `target`.
            if not member.isfile() or marker not in f"/{member.name}" or name in {"", ".", ".."}:
                continue
            source = archive.extractfile(member)
            if source is None:
                continue
            with source, (target / name).open("wb") as out:
                shutil.copyfileobj(source, out)
    if not (target / f"hive-schema-{SCHEMA_VERSION}.derby.sql").is_file():
        raise HiveMetastoreInstallError(
            f"{tarball.name} holds no {_DERBY_SCRIPTS}/hive-schema-{SCHEMA_VERSION}.derby.sql"
        )


def _build(build: Path, env: Mapping[str, str], say: Callable[[str], None]) -> None:
    """Fill `build` with lib/, home/ and template/."""
    mvn = _maven(env)
    java = java_executable(env)
    if java is None:
        raise HiveMetastoreInstallError("no Java: set JAVA_HOME or put `java` on PATH (schematool runs on it)")
    # Maven works on a copy of the pom: nothing it writes lands in the repository.
    project = build / "project"
    project.mkdir()
    shutil.copyfile(POM, project / "pom.xml")
    maven = [mvn, "-q", "-B", "-f", str(project / "pom.xml")]
    say(f"hive metastore: resolving its class path with mvn ({POM})")
    lib = build / "lib"
    copy = [*maven, "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={lib}"]
    _run(copy, "mvn dependency:copy-dependencies", env, _MAVEN_TIMEOUT_SECONDS, project)
    say(f"hive metastore: fetching the schema scripts ({BIN_TARBALL})")
    downloads = build / "downloads"
    tarball_copy = [*maven, "dependency:copy", f"-Dartifact={BIN_TARBALL}", f"-DoutputDirectory={downloads}"]
    _run(tarball_copy, f"mvn dependency:copy {BIN_TARBALL}", env, _MAVEN_TIMEOUT_SECONDS, project)
    tarballs = sorted(downloads.glob("*.tar.gz"))
    if not tarballs:
        raise HiveMetastoreInstallError(f"mvn dependency:copy put no tarball into {downloads}")
    home = build / "home"
    _extract_derby_scripts(tarballs[0], home / _DERBY_SCRIPTS)
    shutil.rmtree(downloads)  # 27 MB, and Maven's local repository keeps it anyway

    say("hive metastore: initialising the template Derby database (schematool)")
    conf = build / "conf"
    database = build / "template" / "metastore_db"
    database.parent.mkdir()
    write_conf(conf, database, build / "warehouse", create=True)
    classpath = os.pathsep.join([str(conf), str(lib / "*")])
    schema_tool = [str(java), "-Xmx256m", "-cp", classpath, SCHEMA_TOOL_CLASS, "-dbType", "derby", "-initSchema"]
    # cwd: Derby writes its derby.log into the working directory.
    _run(
        schema_tool, "schematool -initSchema", {**env, "METASTORE_HOME": str(home)}, _SCHEMA_TOOL_TIMEOUT_SECONDS, build
    )
    if not (database / "service.properties").is_file():
        raise HiveMetastoreInstallError(f"schematool exited 0 but created no Derby database at {database}")


def install(env: Mapping[str, str], say: Callable[[str], None]) -> Path:
    """Install what is missing (under a lock) and return the install directory.

    Raises:
        HiveMetastoreInstallError: a step failed; the message names it and carries its output.
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
        for stale in root.glob(".build-*"):  # left by a killed install (this one holds the lock)
            shutil.rmtree(stale, ignore_errors=True)
        build = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
        try:
            _build(build, env, say)
            (root / "installed.json").unlink(missing_ok=True)  # no stamp while the parts are swapped
            for part in ("lib", "home", "template"):
                shutil.rmtree(root / part, ignore_errors=True)
                (build / part).rename(root / part)
        finally:
            shutil.rmtree(build, ignore_errors=True)
        document = {"hive": HIVE_VERSION, "pom": pom_digest(), "jars": len(list(lib_dir(root).glob("*.jar")))}
        write_stamp(root, document)
        say(f"hive metastore: installed in {time.monotonic() - started:.0f} s")
    result = installed(env)
    if result is None:
        raise HiveMetastoreInstallError(f"the install under {root} is incomplete")
    return result


def variables(env: Mapping[str, str], say: Callable[[str], None]) -> dict[str, str]:
    """Install the metastore (once) and return the tests' ``HUDI_HIVE_METASTORE_*`` variables.

    ``HUDI_HIVE_METASTORE=skip``, or a failed install outside CI, returns the reason instead, for
    the tests' skip message.

    Raises:
        HiveMetastoreInstallError: the install failed under CI, where the tests must not skip.
    """
    if env.get(SWITCH_VARIABLE, "").strip().lower() == "skip":
        reason = f"{SWITCH_VARIABLE}=skip"
        say(f"hive metastore: left out ({reason})")
        return {UNAVAILABLE_VARIABLE: reason}
    try:
        root = install(env, say)
    except HiveMetastoreInstallError as exc:
        if is_required(env):
            raise
        say(f"hive metastore unavailable, its tests will be skipped: {exc}")
        return {UNAVAILABLE_VARIABLE: f"the Hive metastore could not be installed: {exc}"}
    say(f"hive metastore: {HIVE_VERSION} in {root}")
    return {HOME_VARIABLE: str(root), REQUIRED_VARIABLE: "1"}
