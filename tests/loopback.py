"""What every server the tests start on 127.0.0.1 needs: a free port, a child that dies with the
test process, and a stop that does not hang."""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import sys
from collections.abc import Callable

STOP_TIMEOUT_SECONDS = 10.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def parent_death_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` so a server gets SIGTERM if the test process dies (Linux ``PR_SET_PDEATHSIG``).

    Without it a killed pytest run (e.g. SIGKILL from a CI timeout) would leave the server running.
    The ``prctl`` function is looked up here, in the parent: the forked child only calls it (no
    imports or library loading between fork and exec).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    sigterm = int(signal.SIGTERM)

    def hook() -> None:
        prctl(pr_set_pdeathsig, sigterm)

    return hook


def stop_process(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT_SECONDS) -> None:
    """SIGTERM, then SIGKILL after `timeout` seconds; a process already gone is left alone."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
