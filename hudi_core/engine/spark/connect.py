"""A local Spark Connect server: PySpark's bundled Spark started with the Connect service.

Used for one Spark server shared by several client processes (a Dagster run whose steps run in
separate processes) and by the tests. Clients connect with `hudi_core.spark.session(remote=url)`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from hudi_core.engine.java_runtime import java_environment
from hudi_core.engine.spark.defaults import DEFAULT_CONF
from hudi_core.errors import HudiError

CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


class ConnectServerError(HudiError):
    """The Spark Connect server did not start."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass
class ConnectServer:
    """A Spark Connect server process on loopback; a context manager that stops it on exit."""

    master: str = "local[*]"
    port: int = 0
    conf: Mapping[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"sc://{self.host}:{self.port}"

    def start(self, timeout_seconds: float = 120.0) -> ConnectServer:
        """Starts the server and waits until it accepts connections."""
        import pyspark  # noqa: PLC0415 - PySpark is the optional `spark` extra

        spark_home = Path(pyspark.__file__).parent
        self.port = self.port or free_port(self.host)
        env = {**java_environment(os.environ), "SPARK_HOME": str(spark_home), "PYSPARK_PYTHON": sys.executable}
        settings = {
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.connect.grpc.binding.address": self.host,
            **DEFAULT_CONF,
            **self.conf,
        }
        command = [str(spark_home / "bin" / "spark-submit"), "--class", CONNECT_SERVER_CLASS, "--master", self.master]
        for key, value in settings.items():
            command += ["--conf", f"{key}={value}"]
        command.append("spark-internal")
        log_fd, log_name = tempfile.mkstemp(prefix="spark-connect-", suffix=".log")
        self.log_path = Path(log_name)
        # The log goes to a file: a pipe nobody reads fills up and stalls the server.
        self.process = subprocess.Popen(command, env=env, stdout=log_fd, stderr=subprocess.STDOUT)
        os.close(log_fd)
        deadline = time.monotonic() + timeout_seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ConnectServerError(
                    f"Spark Connect server exited ({self.process.returncode}):\n{self._log_tail()}"
                )
            try:
                socket.create_connection((self.host, self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise ConnectServerError(
            f"Spark Connect server not listening after {timeout_seconds:.0f} s:\n{self._log_tail()}"
        )

    def stop(self) -> None:
        """Stops the server (SIGTERM, then SIGKILL after 30 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _log_tail(self, characters: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-characters:]

    def __enter__(self) -> ConnectServer:
        return self.start() if self.process is None else self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()
