"""Apache Hudi itself, for the tests and the bench: a client of one long-lived Apache Hudi Spark driver.

The driver (``apache_hudi_driver.py``) runs in the reference virtualenv that ``scripts/dev.py``
installs (PySpark 3.5 and Hudi's Spark bundle); this side talks to it in JSON lines over the
process's stdin/stdout and exchanges data as Parquet files::

    hudi.write(path, rows, {"hoodie.table.name": "t", ...}, mode="overwrite")
    hudi.read(path, {"hoodie.datasource.query.type": "read_optimized"})  # -> pa.Table
    hudi.sql(f"CALL validate_metadata_table_files(table => 't')")       # -> pa.Table | None

The process starts on the first request. Every request has a timeout; a driver that dies or does
not answer is killed, the request fails with the tail of its stderr (kept in a file), and the next
request starts it again, once.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn

import pyarrow as pa
import pyarrow.parquet as pq

DRIVER_SCRIPT = Path(__file__).with_name("apache_hudi_driver.py")
STARTUP_TIMEOUT_SECONDS = 300.0
REQUEST_TIMEOUT_SECONDS = 300.0
STOP_TIMEOUT_SECONDS = 60.0
# One session serves every test: the tables it opened stay cached in its heap, which 1 GiB did not hold.
DRIVER_MEMORY = "3g"
MAX_STARTS = 2  # the first start and one restart


class ApacheHudiError(Exception):
    """Apache Hudi (or Spark) refused a request; carries the Java exception's class and message."""

    def __init__(self, op: str, java_class: str, message: str | None, causes: list[str]) -> None:
        self.op = op
        self.java_class = java_class
        self.message = message or ""
        self.causes = causes
        lines = [f"Apache Hudi {op} failed: {java_class}: {self.message}", *(f"  caused by {c}" for c in causes)]
        super().__init__("\n".join(lines))


class DriverFailedError(RuntimeError):
    """The driver process died or did not answer in time; the message holds its stderr tail."""


@dataclass
class DriverStats:
    """What one driver cost: its start-ups and its requests (op, seconds the driver reported)."""

    startups: list[float] = field(default_factory=list)
    requests: list[tuple[str, float]] = field(default_factory=list)


class ApacheHudi:
    """One Apache Hudi version's Spark driver, started on first use.

    Args:
        python: the reference virtualenv's interpreter.
        jar: the Hudi Spark bundle jar.
        version: the Hudi version of `jar` (for messages).
        workdir: a private folder: Spark's files, request and result Parquet, the stderr logs.
        request_timeout: seconds a request may take before the driver is taken for hung and killed.
        driver_memory: the Spark driver's heap (local mode: the executors' too).
    """

    def __init__(
        self,
        python: Path,
        jar: Path,
        version: str,
        workdir: Path,
        request_timeout: float = REQUEST_TIMEOUT_SECONDS,
        driver_memory: str = DRIVER_MEMORY,
    ) -> None:
        self.python = python
        self.jar = jar
        self.version = version
        self.workdir = workdir
        self.request_timeout = request_timeout
        self.driver_memory = driver_memory
        self.stats = DriverStats()
        self._process: subprocess.Popen[str] | None = None
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._stderr_path: Path | None = None
        self._starts = 0
        self._sequence = itertools.count(1)

    # ---- the API the tests use --------------------------------------------------------------

    def write(self, path: Path | str, rows: pa.Table, options: Mapping[str, str], mode: str = "append") -> None:
        """Writes `rows` with ``df.write.format("hudi").options(options).mode(mode).save(path)``."""
        source = self._scratch("write.parquet")
        pq.write_table(rows, source)
        try:
            request = {"op": "write", "path": str(path), "input": str(source), "options": dict(options), "mode": mode}
            self._request(request)
        finally:
            source.unlink(missing_ok=True)

    def write_files(self, path: Path | str, source: Path, options: Mapping[str, str], mode: str = "append") -> None:
        """Writes the rows of Parquet `source` (a file or a folder of files) as they are, without a copy."""
        self._request({"op": "write", "path": str(path), "input": str(source), "options": dict(options), "mode": mode})

    def write_stream(self, path: Path | str, source: Path, options: Mapping[str, str], checkpoint: Path) -> list[int]:
        """Streams the Parquet files of folder `source` into `path` through Hudi's streaming sink, one
        micro-batch per file, with Spark's checkpoint in `checkpoint`; the batch ids it ran."""
        request = {
            "op": "write_stream",
            "path": str(path),
            "input": str(source),
            "options": dict(options),
            "checkpoint": str(checkpoint),
        }
        return [int(b) for b in self._request(request)["batches"]]

    def write_concurrently(
        self, path: Path | str, batches: Sequence[tuple[pa.Table, Mapping[str, str]]], start_each_after: str
    ) -> None:
        """Writes each (rows, options) batch to `path` from its own thread of the one Spark application,
        each next one once a new file matching glob `start_each_after` (its predecessor's requested
        instant) appears: concurrent writers, as two jobs of one cluster are."""
        sources = [self._scratch(f"write-{n}.parquet") for n in range(len(batches))]
        try:
            writes = []
            for source, (rows, options) in zip(sources, batches, strict=True):
                pq.write_table(rows, source)
                writes.append({"path": str(path), "input": str(source), "options": dict(options), "mode": "append"})
            self._request({"op": "concurrent_writes", "writes": writes, "start_each_after": start_each_after})
        finally:
            for source in sources:
                source.unlink(missing_ok=True)

    def scan(self, path: Path | str, options: Mapping[str, str] | None = None) -> None:
        """Reads every row and column into Spark's no-op sink (a read measured without its result)."""
        self._request({"op": "scan", "path": str(path), "options": dict(options or {})})

    def start(self) -> float:
        """Starts the driver now (else the first request does); returns its start-up seconds."""
        if self._process is None or self._process.poll() is not None:
            self._kill()
            self._start()
        return self.stats.startups[-1]

    def read(self, path: Path | str, options: Mapping[str, str] | None = None) -> pa.Table:
        """``spark.read.format("hudi").options(options).load(path)``, collected."""
        output = self._scratch("read")
        self._request({"op": "read", "path": str(path), "options": dict(options or {}), "output": str(output)})
        return _collect(output)

    def sql(self, text: str) -> pa.Table | None:
        """Runs a statement (SQL, or a ``CALL`` of a Hudi procedure); its rows, None if it has no columns."""
        output = self._scratch("sql")
        answer = self._request({"op": "sql", "text": text, "output": str(output)})
        return None if answer.get("output") is None else _collect(output)

    def stop(self) -> None:
        """Stops the driver (its Spark session first); a no-op when it is not running."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(DriverFailedError, OSError, ValueError):
            self._send({"op": "stop"})
            self._next_answer("stop", STOP_TIMEOUT_SECONDS)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_TIMEOUT_SECONDS)
        self._kill()

    def stderr_tail(self, lines: int = 40) -> str:
        """The last lines the current (or last) driver wrote to stderr."""
        if self._stderr_path is None:
            return "(the driver never started)"
        try:
            text = self._stderr_path.read_text(errors="replace")
        except OSError as exc:
            return f"(cannot read {self._stderr_path}: {exc})"
        return "\n".join(text.splitlines()[-lines:])

    # ---- the process ------------------------------------------------------------------------

    def _scratch(self, suffix: str) -> Path:
        folder = self.workdir / "requests"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{next(self._sequence):05d}-{suffix}"

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
        # Spark starts Python workers with these; ours (Spark 4) must not serve Spark 3.5.
        env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = str(self.python)
        return env

    def _start(self) -> subprocess.Popen[str]:
        if self._starts >= MAX_STARTS:
            raise DriverFailedError(
                f"Apache Hudi {self.version} driver failed {self._starts} times; not starting it again. "
                f"Last stderr ({self._stderr_path}):\n{self.stderr_tail()}"
            )
        self._starts += 1
        home = self.workdir / f"driver-{self._starts}"
        home.mkdir(parents=True, exist_ok=True)
        self._stderr_path = self.workdir / f"driver-{self._starts}.stderr.log"
        self._answers = queue.Queue()
        with self._stderr_path.open("w") as stderr:
            process = subprocess.Popen(
                [
                    str(self.python),
                    str(DRIVER_SCRIPT),
                    *("--jar", str(self.jar), "--workdir", str(home), "--driver-memory", self.driver_memory),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                encoding="utf-8",
                env=self._environment(),
                start_new_session=True,  # its own process group: the JVM goes down with it
            )
        self._process = process
        threading.Thread(target=_pump, args=(process.stdout, self._answers), daemon=True).start()
        started = time.monotonic()
        ready = self._next_answer("start", STARTUP_TIMEOUT_SECONDS)
        if not ready.get("ready"):
            self._kill()
            raise DriverFailedError(f"Apache Hudi {self.version} driver announced {ready!r} instead of ready")
        self.stats.startups.append(time.monotonic() - started)
        return process

    def _send(self, request: Mapping[str, Any]) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise DriverFailedError("the driver is not running")
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self._died(f"could not take the {request.get('op')} request ({exc})")

    def _next_answer(self, op: str, timeout: float) -> dict[str, Any]:
        try:
            line = self._answers.get(timeout=timeout)
        except queue.Empty:
            self._died(f"gave no answer to {op} within {timeout:.0f} s")
        if line is None:
            self._died(f"exited during {op}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if self._process is None or self._process.poll() is not None:
            self._kill()  # died since its last answer: clear what is left of it
            self._start()
        op = str(request["op"])
        self._send(request)
        answer = self._next_answer(op, self.request_timeout)
        self.stats.requests.append((op, float(answer.get("seconds", 0.0))))
        if not answer.get("ok"):
            error = answer.get("error", {})
            raise ApacheHudiError(op, error.get("class", "?"), error.get("message"), error.get("causes", []))
        return answer

    def _died(self, what: str) -> NoReturn:
        code = self._process.poll() if self._process is not None else None
        self._kill()
        status = "" if code is None else f" (exit code {code})"
        raise DriverFailedError(
            f"Apache Hudi {self.version} driver {what}{status}; stderr ({self._stderr_path}):\n{self.stderr_tail()}"
        )

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        # The whole group (it leads it): a JVM left behind by a dead driver goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_TIMEOUT_SECONDS)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _pump(stream: IO[str] | None, answers: queue.Queue[str | None]) -> None:
    """Moves the driver's stdout lines into `answers`; None marks the end of the stream."""
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                answers.put(line)
    answers.put(None)


def _collect(output: Path) -> pa.Table:
    """A result folder Spark wrote, read and deleted (pyarrow skips Spark's _SUCCESS and .crc)."""
    table = pq.read_table(output)
    shutil.rmtree(output, ignore_errors=True)
    return table.replace_schema_metadata(None)
