"""Identities of other processes, for tests of records that name the process that wrote them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hudi_core.lifecycle.process_identity import ProcessIdentity

REPO_ROOT = Path(__file__).resolve().parents[1]
PRINT_IDENTITY = (
    "import json; from hudi_core.lifecycle.process_identity import this_process; "
    "print(json.dumps(this_process().to_record()))"
)


def identity_of_a_finished_process() -> ProcessIdentity:
    """The identity of a process of this machine that ran and ended (its pid is free)."""
    done = subprocess.run(
        [sys.executable, "-c", PRINT_IDENTITY],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=True,
        capture_output=True,
        text=True,
    )
    identity = ProcessIdentity.from_record(json.loads(done.stdout))
    assert identity is not None
    return identity
