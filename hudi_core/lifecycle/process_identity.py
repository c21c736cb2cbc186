"""Which process wrote a lock or heartbeat record, and whether it is certainly gone.

A record names the host, the boot (`/proc/sys/kernel/random/boot_id`), the pid namespace
(`/proc/self/ns/pid`), the pid and the process's start time (field 22 of `/proc/<pid>/stat`, clock
ticks since boot). When host, boot and pid namespace are this process's, the pid means the same
process here: if no process has it, or the one that has it started at another time (the pid was
reused), the writer is gone and its records are stale at once. Anything else (other hosts, boots or
containers, records without these fields such as Apache Hudi's) can only be judged by its age.
"""

from __future__ import annotations

import functools
import os
import socket
from dataclasses import asdict, dataclass
from typing import Any, TypeGuard

_PROC = "/proc"
# /proc/<pid>/stat fields after the parenthesised command name start at field 3 (the state).
_STATE_FIELD = 3
_START_TIME_FIELD = 22
_EXITED_STATES = ("Z", "X")  # a zombie has exited; only its parent has not reaped it yet


@dataclass(frozen=True)
class ProcessIdentity:
    host: str
    boot_id: str
    pid_namespace: str
    pid: int
    start_ticks: int

    def to_record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, record: object) -> ProcessIdentity | None:
        """The identity in a record (a JSON object), or None unless it has every field, well typed."""
        if not isinstance(record, dict):
            return None
        host, boot_id, namespace = (record.get(name) for name in ("host", "boot_id", "pid_namespace"))
        pid, start = (record.get(name) for name in ("pid", "start_ticks"))
        if not (isinstance(host, str) and isinstance(boot_id, str) and isinstance(namespace, str)):
            return None
        if not (_is_positive_int(pid) and _is_positive_int(start)) or not (host and boot_id and namespace):
            return None
        return cls(host, boot_id, namespace, pid, start)


def _is_positive_int(value: object) -> TypeGuard[int]:
    # A pid of 0 or below would name a process group to os.kill.
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def this_process() -> ProcessIdentity | None:
    """The identity of the calling process; None where /proc cannot tell it (not Linux)."""
    return _identity(os.getpid())


@functools.cache
def _identity(pid: int) -> ProcessIdentity | None:
    try:
        start = _start_ticks(pid)
        with open(f"{_PROC}/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot_id = f.read().strip()
        namespace = os.readlink(f"{_PROC}/self/ns/pid")
    except OSError:
        return None
    if start is None or not boot_id:
        return None
    return ProcessIdentity(socket.gethostname(), boot_id, namespace, pid, start)


def has_exited(writer: ProcessIdentity) -> bool:
    """Whether `writer` ran in this host, boot and pid namespace and no longer runs.

    False whenever that cannot be known for certain (another machine or container, no /proc, a
    process this user may not inspect): such a writer is judged by the age of its records instead.
    """
    here = this_process()
    if here is None or (writer.host, writer.boot_id, writer.pid_namespace) != (
        here.host,
        here.boot_id,
        here.pid_namespace,
    ):
        return False
    try:
        os.kill(writer.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process has the pid; /proc may still tell its start time
    try:
        return _start_ticks(writer.pid) != writer.start_ticks
    except OSError:
        return False  # the pid is taken and /proc hides it (hidepid): assume the writer lives


def _start_ticks(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), None if it has exited.

    Raises OSError when /proc does not show the process (not Linux, or hidden from this user).
    """
    try:
        with open(f"{_PROC}/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except ProcessLookupError:
        return None
    # The command name may hold spaces and parentheses: the fields start after its last ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in _EXITED_STATES:
        return None
    return int(fields[_START_TIME_FIELD - _STATE_FIELD])
