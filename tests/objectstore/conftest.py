"""An S3-compatible server on loopback for the object-storage tests: moto's server mode (a real
HTTP endpoint in its own process, not in-process patching), started once per test session.

Its address and credentials are set in the environment when the test session starts
(`configure_s3_environment`, called from the root conftest), before any Spark worker exists: Spark's
Python workers inherit the environment their daemon started with, and read S3 through it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest

from tests.loopback import free_port

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": "us-east-1",
    "AWS_ALLOW_HTTP": "true",  # hudi-rs (object_store) talks plain HTTP to the loopback endpoint
}


def configure_s3_environment() -> None:
    """Points the AWS variables of this test session at the loopback port the server will use."""
    os.environ.update({**CREDENTIALS, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"})


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The endpoint URL, started on the port the AWS variables name."""
    if "127.0.0.1" not in os.environ.get("AWS_ENDPOINT_URL", ""):
        configure_s3_environment()
    endpoint = os.environ["AWS_ENDPOINT_URL"]
    port = int(endpoint.rsplit(":", 1)[1])
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError("the S3-compatible test server did not start") from None
            time.sleep(0.1)
    try:
        yield endpoint
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def bucket(s3_endpoint: str) -> str:
    """A fresh, empty bucket's name."""
    import boto3  # noqa: PLC0415 - the s3 extra, needed only by these tests

    name = f"lake-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=name)
    return name
