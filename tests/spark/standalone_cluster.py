"""Spark's own standalone cluster on 127.0.0.1: a master and workers started from the installed
PySpark (`spark-class org.apache.spark.deploy.master.Master` / `...worker.Worker`), one core each.

Executors of a standalone cluster are JVMs of their own, with Python workers of their own and no
state shared with the driver: what `local[2]` lets slip (driver-side caches, monkeypatches, files
only the driver sees) fails here. Timeouts are lowered so a killed worker is noticed in seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspark

from hudi_core.engine.java_runtime import configure_process_for_spark
from tests.loopback import free_port, parent_death_hook, stop_process
from tests.spark import class_archive

START_TIMEOUT_SECONDS = 90.0
WORKER_MEMORY = "1g"
EXECUTOR_MEMORY = "640m"
# The master drops a worker it has not heard from for this long (Spark's default: 60 s); workers
# beat every quarter of it, so both sides are given it.
WORKER_TIMEOUT_SECONDS = 10
_TIMEOUT_OPTION = f"-Dspark.worker.timeout={WORKER_TIMEOUT_SECONDS}"
_POLL_SECONDS = 0.25


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    web_port: int
    log: Path

    def kill(self) -> None:
        """SIGKILL: the worker and, with it, its executor JVM go at once (no clean shutdown)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, 9)
        self.process.wait()


@dataclass
class StandaloneCluster:
    master_url: str
    master_web_port: int
    master: subprocess.Popen[bytes]
    workers: list[Worker] = field(default_factory=list)
    worker_memory: str = WORKER_MEMORY
    executor_memory: str = EXECUTOR_MEMORY

    def status(self) -> dict[str, Any]:
        """The master's JSON status page (workers, their state, applications)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.master_web_port}/json/", timeout=5) as reply:
            status: dict[str, Any] = json.load(reply)
        return status

    def alive_workers(self) -> int:
        return sum(1 for worker in self.status().get("workers", []) if worker.get("state") == "ALIVE")

    def session_conf(self) -> dict[str, str]:
        """Spark settings for a session on this cluster: one single-core executor per worker."""
        return {
            "spark.executor.memory": self.executor_memory,
            "spark.executor.cores": "1",
            "spark.cores.max": str(len(self.workers)),
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.network.timeout": "20s",
            "spark.network.timeoutInterval": "5s",
            "spark.executor.heartbeatInterval": "2s",
            "spark.ui.enabled": "true",
        }

    def wait_for_workers(self, count: int, timeout: float = START_TIMEOUT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.alive_workers() >= count:
                    return
            except (OSError, ValueError):
                pass  # the master's web UI is not up yet, or serves its HTML page before its JSON one
            if self.master.poll() is not None:
                raise RuntimeError(f"the Spark master exited with {self.master.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{count} Spark workers did not register within {timeout:.0f} s")
            time.sleep(_POLL_SECONDS)


def spark_home() -> Path:
    return Path(pyspark.__file__).resolve().parent


def _spark_class(main_class: str, args: list[str], log: Path, extra_env: dict[str, str]) -> subprocess.Popen[bytes]:
    configure_process_for_spark()  # JAVA_HOME for spark-class
    env = {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_NO_DAEMONIZE": "1",
        "SPARK_DAEMON_JAVA_OPTS": class_archive.java_options(),
        **extra_env,
    }
    command = [str(spark_home() / "bin" / "spark-class"), main_class, *args]
    with log.open("wb") as out:
        return subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a worker is killed with its executors (its process group)
            preexec_fn=parent_death_hook(),  # noqa: PLW1509 - the hook only calls prctl
        )


def start_worker(cluster: StandaloneCluster, work_dir: Path) -> Worker:
    number = len(cluster.workers)
    web_port = free_port()
    log = work_dir / f"worker-{number}.log"
    directory = work_dir / f"worker-{number}"
    directory.mkdir(parents=True, exist_ok=True)
    process = _spark_class(
        "org.apache.spark.deploy.worker.Worker",
        [
            "--host", "127.0.0.1",
            "--cores", "1",
            "--memory", cluster.worker_memory,
            "--webui-port", str(web_port),
            "--work-dir", str(directory),
            cluster.master_url,
        ],
        log,
        {"SPARK_WORKER_OPTS": f"{_TIMEOUT_OPTION} -Dspark.worker.cleanup.enabled=false"},
    )  # fmt: skip
    worker = Worker(process, web_port, log)
    cluster.workers.append(worker)
    return worker


@contextlib.contextmanager
def standalone_cluster(
    work_dir: Path, workers: int = 2, worker_memory: str = WORKER_MEMORY, executor_memory: str = EXECUTOR_MEMORY
) -> Iterator[StandaloneCluster]:
    """A master and `workers` single-core workers on 127.0.0.1 for the duration of the block
    (`worker_memory` each; sessions' executors get `executor_memory`: the benchmark gives more)."""
    work_dir.mkdir(parents=True, exist_ok=True)
    port, web_port = free_port(), free_port()
    master = _spark_class(
        "org.apache.spark.deploy.master.Master",
        ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(web_port)],
        work_dir / "master.log",
        {"SPARK_MASTER_OPTS": _TIMEOUT_OPTION},
    )
    cluster = StandaloneCluster(f"spark://127.0.0.1:{port}", web_port, master, [], worker_memory, executor_memory)
    try:
        for _ in range(workers):
            start_worker(cluster, work_dir)
        cluster.wait_for_workers(workers)
        yield cluster
    except BaseException as error:
        logs = sorted(work_dir.glob("*.log"))
        error.add_note("\n".join(f"--- {log.name} ---\n{log.read_text(errors='replace')[-3000:]}" for log in logs))
        raise
    finally:
        for worker in cluster.workers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.process.pid, 15)
            stop_process(worker.process)
        stop_process(master)


def executors_of(spark: Any) -> list[dict[str, Any]]:
    """The application's executors from Spark's REST API (`/api/v1/applications/<id>/executors`)."""
    url = spark.sparkContext.uiWebUrl
    app_id = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{url}/api/v1/applications/{app_id}/allexecutors", timeout=5) as reply:
        executors: list[dict[str, Any]] = json.load(reply)
    return [e for e in executors if e.get("id") != "driver"]


def jobs_of(spark: Any) -> list[dict[str, Any]]:
    """The application's jobs from Spark's REST API (`/api/v1/applications/<id>/jobs`)."""
    url = spark.sparkContext.uiWebUrl
    app_id = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{url}/api/v1/applications/{app_id}/jobs", timeout=5) as reply:
        jobs: list[dict[str, Any]] = json.load(reply)
    return jobs
