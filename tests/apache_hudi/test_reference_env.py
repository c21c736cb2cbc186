"""The reference environment's installer (scripts/reference_env.py): the bundle download, the stamp,
and how the tests find the environment or the reason it is missing. No Spark here."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from scripts import reference_env
from scripts.reference_env import Bundle, ReferenceEnvironment, ReferenceInstallError

JAR_BYTES = b"PK\x03\x04 not really a jar, but bytes with a checksum"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def repository(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Maven repository served over HTTP on loopback: its URL and its folder."""
    folder = tmp_path / "maven"
    folder.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/maven2/", folder
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _publish(folder: Path, bundle: Bundle, content: bytes, sha1: str) -> None:
    jar = folder / "maven2" / bundle.repository_path
    jar.parent.mkdir(parents=True)
    jar.write_bytes(content)
    jar.with_name(jar.name + ".sha1").write_text(f"{sha1}  {jar.name}\n")


def test_the_bundle_is_downloaded_and_checked_against_its_published_sha1(
    repository: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = repository
    bundle = Bundle("9.9.9")
    digest = hashlib.sha1(JAR_BYTES, usedforsecurity=False).hexdigest()
    _publish(folder, bundle, JAR_BYTES, digest)
    messages: list[str] = []

    assert reference_env.install_jar(tmp_path / "cache", bundle, url, messages.append) == digest

    jars = tmp_path / "cache" / "jars"
    assert [p.name for p in jars.iterdir()] == ["hudi-spark3.5-bundle_2.12-9.9.9.jar"]
    assert (jars / bundle.file_name).read_bytes() == JAR_BYTES
    assert (jars / bundle.file_name).stat().st_mode & 0o777 == 0o644
    assert messages == [f"downloading {url}{bundle.repository_path}"]


def test_a_download_that_does_not_match_its_sha1_is_refused_and_leaves_nothing(
    repository: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = repository
    bundle = Bundle("9.9.9")
    _publish(folder, bundle, JAR_BYTES + b"tampered", hashlib.sha1(JAR_BYTES, usedforsecurity=False).hexdigest())

    with pytest.raises(ReferenceInstallError, match=r"9\.9\.9\.jar: SHA-1 [0-9a-f]{40} does not match the published"):
        reference_env.install_jar(tmp_path / "cache", bundle, url, lambda _: None)
    assert list((tmp_path / "cache" / "jars").iterdir()) == []


def test_a_missing_bundle_names_the_url(repository: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = repository
    with pytest.raises(ReferenceInstallError, match=r"cannot download http://127\.0\.0\.1:\d+/maven2/org/apache/hudi/"):
        reference_env.install_jar(tmp_path / "cache", Bundle("0.0.1"), url, lambda _: None)


def _fake_installation(cache: Path) -> Path:
    root = cache / "hudi-dagster" / "apache-hudi"
    python = root / f"pyspark-{reference_env.PYSPARK_VERSION}" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    bundles = {}
    for bundle in reference_env.BUNDLES:
        jar = root / "jars" / bundle.file_name
        jar.parent.mkdir(parents=True, exist_ok=True)
        jar.write_bytes(JAR_BYTES)
        bundles[bundle.file_name] = "0" * 40
    stamp = {"pyspark": reference_env.PYSPARK_VERSION, "python": "python3", "bundles": bundles}
    (root / "installed.json").write_text(json.dumps(stamp))
    return root


def test_an_installation_counts_only_with_a_matching_stamp_and_its_files(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    assert reference_env.installed(env) is None
    root = _fake_installation(tmp_path)

    found = reference_env.installed(env)
    assert found is not None
    assert found.python == root / f"pyspark-{reference_env.PYSPARK_VERSION}" / "bin" / "python"
    assert found.jars == tuple(root / "jars" / bundle.file_name for bundle in reference_env.BUNDLES)

    stamp = json.loads((root / "installed.json").read_text())
    (root / "installed.json").write_text(json.dumps({**stamp, "pyspark": "3.5.0"}))
    assert reference_env.installed(env) is None
    (root / "installed.json").write_text(json.dumps(stamp))
    found.jars[0].unlink()
    assert reference_env.installed(env) is None


def test_the_tests_find_the_environment_or_the_reason_it_is_missing(tmp_path: Path) -> None:
    assert "run the tests with `python3 scripts/dev.py test`" in str(reference_env.from_variables({}))
    reason = "the Apache Hudi reference could not be installed: no network"
    assert reference_env.from_variables({reference_env.UNAVAILABLE_VARIABLE: reason}) == reason

    root = _fake_installation(tmp_path)
    ready = reference_env.installed({"XDG_CACHE_HOME": str(tmp_path)})
    assert ready is not None
    assert reference_env.from_variables(ready.variables()) == ready
    gone = ReferenceEnvironment(ready.python, (root / "jars" / "hudi-spark3.5-bundle_2.12-0.0.1.jar",))
    assert "lacks" in str(reference_env.from_variables(gone.variables()))
    assert reference_env.bundle_version(ready.jars[0]) == reference_env.HUDI_VERSIONS[0]


@pytest.mark.parametrize(
    ("env", "required"),
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "false"}, False),
        ({reference_env.REQUIRED_VARIABLE: "1"}, True),
    ],
)
def test_missing_is_a_failure_under_ci_or_after_dev_py_installed_it(env: dict[str, str], required: bool) -> None:
    assert reference_env.is_required(env) is required
