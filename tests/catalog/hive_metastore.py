"""A real Hive standalone metastore 3.1.3 on loopback for tests.

``scripts/hive_metastore_env.py`` installs it (``scripts/dev.py test`` does, once): the jars, and a
Derby database with the schema already in it. Each server copies that database into its own work
folder, so a server starts in about 2 s and never shares state with another. Usage::

    with HiveMetastoreServer(home, tmp_path) as server:
        client = connect(server.uri)  # "thrift://127.0.0.1:<port>"
        server.stop()                 # e.g. mid-sync
        server.start()                # same port, same database

Hive 3.1.3 listens on every interface, not only 127.0.0.1 (it has no bind-host setting); the port
is a free one picked at random.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from scripts import hive_metastore_env
from tests.loopback import free_port, parent_death_hook, stop_process

START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 10.0
JVM_OPTIONS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
_START_ATTEMPTS = 3  # a free port may be taken by someone else before the JVM binds it
_POLL_SECONDS = 0.1
_LOG_TAIL_LINES = 60
# Read by the metastore or Hadoop: a machine's own Hive or Hadoop setup must not leak into the tests.
_FOREIGN_VARIABLES = ("HIVE_CONF_DIR", "HIVE_HOME", "METASTORE_HOME", "METASTORE_CONF_DIR", "HADOOP_CONF_DIR")

# Every JVM still running, stopped at interpreter exit in case a fixture's teardown never ran.
_running: set[subprocess.Popen[bytes]] = set()


def _stop_all() -> None:
    for process in list(_running):
        stop_process(process, STOP_TIMEOUT_SECONDS)
    _running.clear()


atexit.register(_stop_all)


def _accepts(port: int) -> bool:
    """Whether something listens on the port of 127.0.0.1."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


class HiveMetastoreStartError(RuntimeError):
    """The metastore did not start (the message carries the tail of its log)."""


class _PortTakenError(Exception):
    """The chosen free port was taken before the JVM bound it."""


class HiveMetastoreServer:
    """One metastore JVM with its own Derby database, conf and warehouse under `work`."""

    def __init__(self, home: Path, work: Path, java: Path | None = None) -> None:
        """`home`: the install directory (``HUDI_HIVE_METASTORE_HOME``); `java`: default
        ``$JAVA_HOME/bin/java``, else ``java`` on PATH."""
        self.home = home
        self.work = work
        self.log_path = work / "hive-metastore.log"
        self.start_seconds: list[float] = []  # how long each start took, until the port accepted
        found = java or hive_metastore_env.java_executable(os.environ)
        if found is None:
            raise HiveMetastoreStartError("no Java: set JAVA_HOME or put `java` on PATH")
        self._java = found
        self._port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        """The Thrift port on 127.0.0.1 (fixed at the first start, kept by restarts)."""
        if self._port is None:
            raise RuntimeError("the metastore has not been started")
        return self._port

    @property
    def uri(self) -> str:
        """``thrift://127.0.0.1:<port>``, as ``hive.metastore.uris`` takes it."""
        return f"thrift://127.0.0.1:{self.port}"

    @property
    def warehouse(self) -> Path:
        """Where managed tables and databases without a location go."""
        return self.work / "warehouse"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _prepare(self) -> None:
        """The first start's copy of the template database and the conf folder."""
        database = self.work / "metastore_db"
        if not database.exists():
            shutil.copytree(hive_metastore_env.template_database(self.home), database)
        hive_metastore_env.write_conf(self.work / "conf", database, self.warehouse)

    def start(self) -> None:
        """Start the JVM and wait until its port accepts connections; a running server is left alone.

        Raises:
            HiveMetastoreStartError: it exited, or the port stayed closed for 60 s.
        """
        if self.running:
            return
        self.work.mkdir(parents=True, exist_ok=True)
        self._prepare()
        if self._port is not None:  # a restart: clients were told this port
            self._start_on(self._port, last_attempt=True)
            return
        for attempt in range(_START_ATTEMPTS):
            port = free_port()
            try:
                self._start_on(port, last_attempt=attempt + 1 == _START_ATTEMPTS)
            except _PortTakenError:
                continue
            self._port = port
            return

    def _start_on(self, port: int, *, last_attempt: bool) -> None:
        if _accepts(port):  # else the wait below would take another process's port for this server's
            if not last_attempt:
                raise _PortTakenError
            raise HiveMetastoreStartError(f"port {port} on 127.0.0.1 is taken by another process")
        lib = hive_metastore_env.lib_dir(self.home)
        classpath = os.pathsep.join([str(self.work / "conf"), str(lib / "*")])
        command = [str(self._java), *JVM_OPTIONS, "-cp", classpath, hive_metastore_env.SERVER_CLASS, "-p", str(port)]
        env = {name: value for name, value in os.environ.items() if name not in _FOREIGN_VARIABLES}
        started = time.monotonic()
        # Appended: a restart's log follows the previous run's; the failure tail starts at `offset`.
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            process = subprocess.Popen(
                command,
                cwd=self.work,  # Derby writes derby.log into the working directory
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=parent_death_hook(),  # noqa: PLW1509 - the hook only calls prctl
            )
        _running.add(process)
        try:
            failure = self._wait_for_port(process, port, started + START_TIMEOUT_SECONDS)
        except BaseException:
            self._reap(process)
            raise
        if failure is None:
            self._process = process
            self.start_seconds.append(time.monotonic() - started)
            return
        self._reap(process)
        tail = self._log_tail(offset)
        if "Address already in use" in tail and not last_attempt:
            raise _PortTakenError
        raise HiveMetastoreStartError(
            f"Hive metastore on port {port} {failure}.\ncommand: {' '.join(command)}\n"
            f"--- {self.log_path} (tail) ---\n{tail}"
        )

    @staticmethod
    def _wait_for_port(process: subprocess.Popen[bytes], port: int, deadline: float) -> str | None:
        """None once the port accepts a connection, else why it never will."""
        while True:
            if process.poll() is not None:
                return f"exited with {process.returncode}"
            if _accepts(port):
                return None
            if time.monotonic() >= deadline:
                return f"did not accept connections within {START_TIMEOUT_SECONDS:.0f} s"
            time.sleep(_POLL_SECONDS)

    def _log_tail(self, offset: int) -> str:
        try:
            with self.log_path.open("rb") as log:
                log.seek(offset)
                text = log.read().decode("utf-8", "replace")
        except OSError as exc:
            return f"(no log: {exc})"
        return "\n".join(text.splitlines()[-_LOG_TAIL_LINES:]) or "(log is empty)"

    @staticmethod
    def _reap(process: subprocess.Popen[bytes]) -> None:
        stop_process(process, STOP_TIMEOUT_SECONDS)
        _running.discard(process)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s; the database and port stay for :meth:`start`."""
        process, self._process = self._process, None
        if process is not None:
            self._reap(process)

    def __enter__(self) -> HiveMetastoreServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()
