"""Process identities in lock and heartbeat records: a writer of this machine that is gone is known
at once; a reused pid neither keeps a dead writer alive nor kills a live one; a writer of another
host, boot or container is never judged gone."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hudi_core.lifecycle.process_identity import ProcessIdentity, has_exited, this_process
from tests.processes import PRINT_IDENTITY, REPO_ROOT, identity_of_a_finished_process


def me() -> ProcessIdentity:
    identity = this_process()
    assert identity is not None, "Linux with /proc is needed"
    return identity


def test_this_process_names_host_boot_namespace_pid_and_start_time() -> None:
    identity = me()
    assert identity.pid == os.getpid()
    assert identity.host == os.uname().nodename
    assert identity.boot_id == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert identity.pid_namespace == os.readlink("/proc/self/ns/pid")
    assert identity.start_ticks > 0
    assert ProcessIdentity.from_record(json.loads(json.dumps(identity.to_record()))) == identity
    assert not has_exited(identity)


def test_a_process_that_ended_has_exited() -> None:
    dead = identity_of_a_finished_process()
    assert (dead.host, dead.boot_id, dead.pid_namespace) == (me().host, me().boot_id, me().pid_namespace)
    assert dead.pid != os.getpid()
    assert has_exited(dead)


def test_a_killed_process_not_yet_reaped_has_exited() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", PRINT_IDENTITY + "; import time; time.sleep(60)"],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            identity = ProcessIdentity.from_record(json.loads(child.stdout.readline()))
            assert identity is not None and identity.pid == child.pid
            assert not has_exited(identity), "a running process"
            os.kill(child.pid, signal.SIGKILL)
            stat = Path(f"/proc/{child.pid}/stat")
            while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":  # never waited for: a zombie
                time.sleep(0.01)
            assert has_exited(identity)
        finally:
            child.kill()


def test_a_reused_pid_does_not_keep_a_dead_writer_alive() -> None:
    """The pid now runs another process (here: this one), which started at another time."""
    earlier = dataclasses.replace(me(), start_ticks=me().start_ticks - 1)
    assert has_exited(earlier)


@pytest.mark.parametrize(
    "field, foreign",
    [("host", "another-host"), ("boot_id", "00000000-0000-0000-0000-000000000000"), ("pid_namespace", "pid:[1]")],
)
def test_a_writer_of_another_host_boot_or_container_is_never_judged_gone(field: str, foreign: str) -> None:
    dead = identity_of_a_finished_process()
    assert not has_exited(dataclasses.replace(dead, **{field: foreign}))
    reused = dataclasses.replace(me(), start_ticks=me().start_ticks - 1)
    assert not has_exited(dataclasses.replace(reused, **{field: foreign}))


@pytest.mark.parametrize(
    "change",
    [
        {"pid": 0},
        {"pid": -1},
        {"pid": True},
        {"pid": "123"},
        {"start_ticks": None},
        {"boot_id": ""},
        {"pid_namespace": 7},
    ],
)
def test_records_without_a_whole_identity_name_no_process(change: dict[str, object]) -> None:
    assert ProcessIdentity.from_record({**me().to_record(), **change}) is None


def test_other_records_name_no_process() -> None:
    assert ProcessIdentity.from_record({"host": me().host, "pid": os.getpid()}) is None  # host and pid only
    assert ProcessIdentity.from_record([1, 2]) is None
    assert ProcessIdentity.from_record(None) is None
