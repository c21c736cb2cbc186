"""The `hudi-core` command line, run in subprocesses as users run it, checked against the Python API
and hudi-rs.

A subprocess costs ~0.7 s (interpreter and imports), so each table is built once per module, every
command that leaves the tables as they are runs in one concurrent batch (`outputs`), and the two
sequences of table services run side by side.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq
import pytest

from hudi_core import FileSlice, HudiTable
from hudi_core.timeline.instant import Action
from tests import hudi_rs

pytestmark = pytest.mark.slow  # ~45 subprocesses: about 25 s on two idle cores

SCHEMA = pa.schema(
    [("id", pa.int64()), ("name", pa.string()), ("ts", pa.int64()), ("city", pa.string()), ("fare", pa.float64())]
)
COLUMNS = SCHEMA.names
CONCURRENT_RUNS = 4
# Without COLUMNS the CLI never wraps piped output, whatever the terminal running the tests.
ENV = {k: v for k, v in os.environ.items() if k != "COLUMNS"}

Row = dict[str, Any]


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        assert self.code == 0, self.stderr
        return json.loads(self.stdout)


def cli(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "hudi_core.cli", *map(str, args)]


def run(argv: Sequence[str]) -> Run:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=ENV, check=False)
    return Run(done.returncode, done.stdout, done.stderr)


def run_all(commands: Mapping[str, Sequence[str]]) -> dict[str, Run]:
    """Runs independent commands concurrently."""
    with ThreadPoolExecutor(CONCURRENT_RUNS) as pool:
        futures = {name: pool.submit(run, argv) for name, argv in commands.items()}
    return {name: future.result() for name, future in futures.items()}


def ok(result: Run) -> Run:
    assert result.code == 0, result.stderr
    return result


def rows(ids: list[int], ts: int, prefix: str = "n") -> pa.Table:
    return pa.table(
        {
            "id": ids,
            "name": [f"{prefix}{i}" for i in ids],
            "ts": [ts] * len(ids),
            "city": ["sf" if i % 2 else "nyc" for i in ids],
            "fare": [i * 1.5 for i in ids],
        },
        schema=SCHEMA,
    )


def by_id(records: Sequence[Row], columns: Sequence[str] = COLUMNS) -> list[Row]:
    return sorted(({c: r[c] for c in columns} for r in records), key=lambda r: r["id"])


def data_rows(table: pa.Table, columns: Sequence[str] = COLUMNS) -> list[Row]:
    return by_id(table.to_pylist(), columns)


FIRST = rows(list(range(12)), 1)
UPDATES = rows([2, 3, 12, 13], 2, prefix="u")
EXPECTED = by_id([r for r in FIRST.to_pylist() if r["id"] not in (2, 3)] + UPDATES.to_pylist())


@dataclass(frozen=True)
class Built:
    """A table the CLI created and wrote, with what the CLI printed on the way."""

    path: Path
    created: dict[str, Any]
    writes: list[dict[str, Any]]

    @property
    def table(self) -> HudiTable:
        return HudiTable(str(self.path))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli-data")
    pq.write_table(FIRST, folder / "first.parquet")
    pacsv.write_csv(UPDATES, folder / "updates.csv")
    return folder


@pytest.fixture(scope="module")
def mor(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A Merge-on-Read table made by `create`, then a Parquet insert and a CSV upsert."""
    path = tmp_path_factory.mktemp("mor") / "trips"
    created = ok(
        run(
            [
                *cli("--json", "create", path, "--like", data_dir / "first.parquet", "--type", "mor"),
                *("--record-key", "id", "--partition-by", "city", "--ordering-field", "ts"),
            ]
        )
    ).json()
    writes = [
        ok(run(cli("write", path, data_dir / "first.parquet", "--operation", "insert", "--json"))).json(),
        ok(run(cli("write", path, data_dir / "updates.csv", "--json"))).json(),
    ]
    return Built(path, created, writes)


@pytest.fixture(scope="module")
def cow(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A non-partitioned Copy-on-Write table that `write` creates from -o options."""
    path = tmp_path_factory.mktemp("cow") / "fares"
    options = {
        "hoodie.table.name": "fares",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
    }
    pairs = [arg for key, value in options.items() for arg in ("-o", f"{key}={value}")]
    written = ok(run(cli("--json", "write", path, data_dir / "first.parquet", "--operation", "bulk_insert", *pairs)))
    return Built(path, {}, [written.json()])


# ---- create and write ----------------------------------------------------------------------------


def test_create_and_write_report_what_the_table_holds(mor: Built) -> None:
    table = mor.table
    config = table.table_config
    assert config.table_type.value == "MERGE_ON_READ"
    assert (config.record_key_fields, config.partition_fields, config.ordering_fields) == (["id"], ["city"], ["ts"])
    assert mor.created["table_type"] == "MERGE_ON_READ" and mor.created["instants"]["completed"] == 0
    assert [c["name"] for c in mor.created["schema"]] == table.schema.names
    insert, upsert = mor.writes
    assert (insert["operation"], insert["inserts"], insert["updates"]) == ("insert", 12, 0)
    assert (upsert["operation"], upsert["inserts"], upsert["updates"]) == ("upsert", 2, 2)
    assert sorted(insert["partitions"]) == ["nyc", "sf"]
    completed = table.timeline.completed()
    assert [w["instant_time"] for w in mor.writes] == [i.requested_time for i in completed]
    assert [w["completion_time"] for w in mor.writes] == [i.completion_time for i in completed]
    # CSV columns were read as the table's types: the schema did not evolve.
    assert table.schema.field("ts").type == pa.int64()
    assert data_rows(table.read()) == EXPECTED
    assert data_rows(hudi_rs.snapshot(mor.path)) == EXPECTED


def test_write_creates_a_table_from_options(cow: Built) -> None:
    table = cow.table
    config = table.table_config
    assert (config.name, config.table_type.value, config.partition_fields) == ("fares", "COPY_ON_WRITE", [])
    assert (cow.writes[0]["operation"], cow.writes[0]["inserts"]) == ("bulk_insert", 12)
    assert data_rows(table.read()) == by_id(FIRST.to_pylist())
    assert data_rows(hudi_rs.snapshot(cow.path)) == by_id(FIRST.to_pylist())


# ---- the read-only batch -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def broken(mor: Built, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FileSlice]:
    """A copy of the MoR table whose latest slice lost its base file, with a file no commit wrote."""
    path = tmp_path_factory.mktemp("broken") / "trips"
    shutil.copytree(mor.path, path)
    victim = next(s for s in HudiTable(str(path)).file_slices() if s.base_file)
    orphan = path / victim.partition_path / f"{victim.file_id}_0-0-0_20200101000000000.parquet"
    shutil.copy(path / (victim.base_file_path or ""), orphan)
    (path / (victim.base_file_path or "")).unlink()
    return path, victim


@pytest.fixture(scope="module")
def outputs(mor: Built, broken: tuple[Path, FileSlice], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every command that changes no table, run once, concurrently."""
    path = mor.path
    out = tmp_path_factory.mktemp("exports")
    first, second = mor.table.timeline.completed()[:2]
    missing = tmp_path_factory.mktemp("empty") / "nowhere"
    script = Path(sys.executable).parent / "hudi-core"
    commands = {
        # The console script installed next to the interpreter is the same program.
        "info": [str(script), "--json", "info", str(path)],
        "timeline": cli("timeline", path, "--json"),
        "commits": cli("--json", "commits", path, "--limit", "1"),
        "show_files": cli("--json", "show-files", path),
        "stats": cli("--json", "stats", path),
        "validate_broken": cli("--json", "validate", broken[0]),
        "read": cli("--json", "read", path, "--limit", "0"),
        "read_filtered": [
            *cli("--json", "read", path, "--columns", "id,fare", "--filter", "fare > 10"),
            *("--filter", "city in (sf, nyc)", "--filter", "id not in (13)"),
        ],
        "read_as_of": cli("--json", "read", path, "--as-of", first.requested_time, "--limit", "0"),
        "read_incremental": cli(
            "--json", "read", path, "--incremental", f"{first.completion_time}:{second.completion_time}"
        ),
        "read_cdc": cli("--json", "read", path, "--cdc", "--limit", "0"),
        "export_parquet": cli("--json", "read", path, "--output", out / "all.parquet"),
        "export_csv": cli("read", path, "--no-meta", "--output", out / "all.csv"),
        "export_json": cli("read", path, "--filter", "city = 'nyc'", "--output", out / "nyc.txt", "--format", "json"),
        # People-facing renderings.
        "info_text": cli("info", path),
        "commits_text": cli("commits", path),
        "show_files_text": cli("show-files", path, "--partition", "nyc", "--as-of", first.requested_time),
        "read_text": cli("read", path, "--no-meta", "--limit", "3"),
        # Errors: exit code 2 and one line on stderr.
        "error missing table": cli("info", missing),
        "error unknown hudi option": cli("read", path, "-o", "hoodie.no.such.option=1"),
        "error unknown cli option": cli("read", path, "--no-such-flag"),
        "error bad filter": cli("read", path, "--filter", "fare >"),
        "error unbalanced filter": cli("read", path, "--filter", "city in (sf, nyc"),
        "error unbalanced quote": cli("read", path, "--filter", "city = 'sf"),
        "error unknown instant": cli("rollback", path, "20000101000000000"),
        "error malformed incremental start": cli("read", path, "--incremental", "99999999999999999"),
        "error malformed as-of": cli("read", path, "--as-of", "2025-13-45"),
        "error malformed instant argument": cli("rollback", path, "2025-13-45"),
        "error option out of range": cli("clean", path, "-o", "hoodie.clean.commits.retained=-3"),
        "error contradicting options": cli("clean", path, "-o", "hoodie.keep.min.commits=40"),
        # Under --json, errors are JSON objects on stderr, wherever --json stands.
        "json error filter value of the wrong type": cli("--json", "read", path, "--filter", "fare > cheap"),
        "json error missing table": cli("--json", "info", missing),
        "json error unknown cli option": cli("read", path, "--json", "--no-such-flag"),
        "json error malformed instant": cli("read", path, "--incremental", "2025-13-45", "--json"),
        "debug": cli("--debug", "info", missing),
    }
    return run_all(commands)


def test_info_matches_the_table(mor: Built, outputs: dict[str, Run]) -> None:
    table = mor.table
    info = outputs["info"].json()
    slices = table.file_slices()
    assert info["name"] == "trips" and info["table_type"] == "MERGE_ON_READ" and info["table_version"] == 8
    assert info["properties"] == table.table_config.raw
    assert info["metadata_partitions"] == ["files"]
    assert [p["partition"] for p in info["partitions"]] == ["nyc", "sf"]
    assert info["totals"]["file_groups"] == len(slices)
    assert info["totals"]["bytes"] == sum(s.total_size for s in slices)
    assert info["totals"]["log_files"] == sum(len(s.log_files) for s in slices) > 0
    assert [c["name"] for c in info["schema"]] == table.schema.names
    assert info["instants"]["latest_completed"]["requested_time"] == mor.writes[-1]["instant_time"]


def test_timeline_and_commits_match_the_timeline(mor: Built, outputs: dict[str, Run]) -> None:
    timeline = mor.table.timeline
    entries = outputs["timeline"].json()
    expected = [(i.requested_time, i.completion_time, i.action.value, i.state.value) for i in timeline.instants()]
    assert [(e["requested_time"], e["completion_time"], e["action"], e["state"]) for e in entries] == expected
    commits = outputs["commits"].json()  # --limit 1: the latest
    assert [c["operation"] for c in commits] == ["UPSERT"]
    assert [(c["inserts"], c["updates"], c["deletes"]) for c in commits] == [
        (w["inserts"], w["updates"], w["deletes"]) for w in mor.writes[1:]
    ]
    for commit, instant in zip(commits, timeline.completed()[1:], strict=True):
        stats = timeline.commit_metadata(instant).write_stats()
        assert commit["requested_time"] == instant.requested_time
        assert commit["files"] == sorted(s.path for s in stats)
        assert commit["bytes_written"] == sum(s.total_write_bytes for s in stats)


def test_show_files_and_stats_match_the_file_slices(mor: Built, outputs: dict[str, Run]) -> None:
    slices = sorted(mor.table.file_slices(), key=lambda s: (s.partition_path, s.file_id))
    listed = outputs["show_files"].json()
    assert [(e["partition"], e["file_id"], e["base_instant"], e["base_file"]) for e in listed] == [
        (s.partition_path, s.file_id, s.base_instant, s.base_file) for s in slices
    ]
    assert [[log["name"] for log in e["log_files"]] for e in listed] == [list(s.log_files) for s in slices]
    assert [e["total_size"] for e in listed] == [s.total_size for s in slices]

    stats = outputs["stats"].json()
    assert stats["file_groups"] == len(slices)
    assert stats["base_files"]["count"] == sum(1 for s in slices if s.base_file)
    assert sum(b["files"] for b in stats["base_files"]["histogram"]) == stats["base_files"]["count"]
    assert stats["log_files"]["per_file_group"]["max"] == max(len(s.log_files) for s in slices)
    assert stats["pending_services"] == []


def test_reads_match_the_python_api(mor: Built, outputs: dict[str, Run]) -> None:
    table = mor.table
    first, second = table.timeline.completed()[:2]
    read = outputs["read"].json()
    assert read["rows"] == table.read().to_pylist() and read["truncated"] is False

    filtered = outputs["read_filtered"].json()
    assert filtered["columns"] == ["id", "fare"]
    filters = [("fare", ">", 10.0), ("city", "in", ["sf", "nyc"]), ("id", "not in", [13])]
    expected = data_rows(table.read(columns=["id", "fare"], filters=filters), ["id", "fare"])
    assert by_id(filtered["rows"], ["id", "fare"]) == expected != []

    as_of = outputs["read_as_of"].json()["rows"]
    assert by_id(as_of) == data_rows(table.read(as_of=first.requested_time)) == by_id(FIRST.to_pylist())
    incremental = outputs["read_incremental"].json()["rows"]
    assert by_id(incremental) == data_rows(table.read_incremental(first.completion_time or "", second.completion_time))
    assert {r["id"] for r in incremental} == {2, 3, 12, 13}
    assert outputs["read_cdc"].json()["rows"] == table.read_cdc("earliest").to_pylist()


def test_exports_round_trip(mor: Built, outputs: dict[str, Run]) -> None:
    table = mor.table
    export = outputs["export_parquet"].json()
    assert (export["format"], export["rows"]) == ("parquet", len(EXPECTED))
    exported = pq.read_table(export["output"])
    assert exported.schema.names == table.schema.names
    assert data_rows(exported, exported.column_names) == data_rows(table.read(), exported.column_names)

    folder = Path(export["output"]).parent
    assert f"wrote {len(EXPECTED)} row(s)" in ok(outputs["export_csv"]).stdout
    assert data_rows(pacsv.read_csv(folder / "all.csv")) == EXPECTED
    ok(outputs["export_json"])
    nyc = pajson.read_json(folder / "nyc.txt")
    assert data_rows(nyc, nyc.column_names) == data_rows(table.read(filters=[("city", "=", "nyc")]), nyc.column_names)


def test_human_output(mor: Built, outputs: dict[str, Run]) -> None:
    texts = {name: ok(result).stdout for name, result in outputs.items() if name.endswith("_text")}
    table = mor.table
    first = table.timeline.completed()[0].requested_time
    assert "MERGE_ON_READ" in texts["info_text"] and "hoodie.table.recordkey.fields" in texts["info_text"]
    assert "INSERT" in texts["commits_text"] and "UPSERT" in texts["commits_text"]
    nyc = [s.file_id for s in table.file_slices(first) if s.partition_path == "nyc"]
    sf = [s.file_id for s in table.file_slices(first) if s.partition_path == "sf"]
    assert all(i in texts["show_files_text"] for i in nyc) and not any(i in texts["show_files_text"] for i in sf)
    assert "first 3 rows shown" in texts["read_text"] and "_hoodie" not in texts["read_text"]
    quiet = {n: r.stderr for n, r in outputs.items() if r.code == 0 and r.stderr}
    assert quiet == {}


def test_validate_fails_when_a_latest_base_file_is_missing(
    broken: tuple[Path, FileSlice], outputs: dict[str, Run]
) -> None:
    _path, victim = broken
    result = outputs["validate_broken"]
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert f"missing file {victim.base_file_path} (latest slice of file group {victim.file_id})" in report["problems"]
    assert f"metadata table lists {victim.base_file_path}, which is not on storage" in report["problems"]
    orphan = f"{victim.partition_path}/{victim.file_id}_0-0-0_20200101000000000.parquet"
    assert f"orphan file {orphan}: written by no committed or pending instant" in report["problems"]


def test_errors_are_one_line_with_exit_code_2(outputs: dict[str, Run]) -> None:
    errors = {name.removeprefix("error "): r for name, r in outputs.items() if name.startswith("error ")}
    for name, result in errors.items():
        assert (result.code, result.stdout) == (2, ""), name
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: "), (name, result.stderr)
    messages = {name: result.stderr.strip() for name, result in errors.items()}
    assert messages["missing table"].endswith("nowhere: the path does not exist")
    assert "unknown option hoodie.no.such.option; did you mean" in messages["unknown hudi option"]
    assert "No such option '--no-such-flag'" in messages["unknown cli option"]
    assert "cannot parse filter 'fare >'" in messages["bad filter"]
    assert "cannot parse filter 'city in (sf, nyc': unbalanced parentheses" in messages["unbalanced filter"]
    assert 'cannot parse filter "city = \'sf": unbalanced quote' in messages["unbalanced quote"]
    assert "no instant 20000101000000000" in messages["unknown instant"]
    assert messages["malformed incremental start"] == (
        "error: invalid instant time '99999999999999999' for --incremental: month 99 is not in 1..12 "
        "(expected yyyyMMddHHmmssSSS, yyyyMMddHHmmss, 'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd')"
    )
    assert "invalid instant time '2025-13-45' for --as-of: month 13 is not in 1..12" in messages["malformed as-of"]
    assert "'2025-13-45' for INSTANT: month 13" in messages["malformed instant argument"]
    assert messages["option out of range"] == (
        "error: invalid value '-3' for option hoodie.clean.commits.retained: expected an integer >= 1"
    )
    assert (
        "hoodie.keep.max.commits=30 must be greater than hoodie.keep.min.commits=40"
        in messages["contradicting options"]
    )
    assert not any("internal error" in message for message in messages.values())
    # --debug adds the traceback; the last line is the same error.
    debug = outputs["debug"]
    assert debug.code == 2 and debug.stderr.startswith("Traceback") and "TableNotFoundError" in debug.stderr
    assert debug.stderr.splitlines()[-1] == messages["missing table"]


def test_errors_under_json_are_json_objects_on_stderr(outputs: dict[str, Run]) -> None:
    errors = {name.removeprefix("json error "): r for name, r in outputs.items() if name.startswith("json error ")}
    found = {}
    for name, result in errors.items():
        assert (result.code, result.stdout) == (2, ""), name
        assert len(result.stderr.splitlines()) == 1, (name, result.stderr)
        report = json.loads(result.stderr)
        assert list(report) == ["error"] and list(report["error"]) == ["type", "message"], report
        found[name] = (report["error"]["type"], report["error"]["message"])
    assert found["filter value of the wrong type"][0] == "FilterError"
    assert "'cheap' does not fit column 'fare'" in found["filter value of the wrong type"][1]
    assert found["missing table"][0] == "TableNotFoundError"
    assert found["missing table"][1].endswith("nowhere: the path does not exist")
    assert found["unknown cli option"][0] == "UsageError"
    assert "No such option '--no-such-flag'" in found["unknown cli option"][1]
    assert found["malformed instant"] == (
        "TimelineError",
        "invalid instant time '2025-13-45' for --incremental: month 13 is not in 1..12 "
        "(expected yyyyMMddHHmmssSSS, yyyyMMddHHmmss, 'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd')",
    )


# ---- table services (two sequences, side by side) -------------------------------------------------


def compaction_clustering_clean_archive(path: Path) -> None:
    table = HudiTable(str(path))
    with_logs = sum(1 for s in table.file_slices() if s.log_files)

    scheduled = run(cli("--json", "compact", path, "--schedule-only")).json()
    assert scheduled["state"] == "requested"
    instant = scheduled["instant_time"]
    stats = ok(run(cli("stats", path))).stdout
    pending = [line.split() for line in stats.splitlines() if line.startswith(instant)]
    assert pending == [[instant, "compaction", "requested", str(with_logs)]]

    compacted = ok(run(cli("compact", path, "--instant", instant))).stdout
    assert compacted.startswith(f"compaction {instant} completed: file_groups={with_logs}")
    timeline = table.timeline
    assert timeline.get(instant).is_completed and timeline.pending_action(timeline.get(instant)) is Action.COMPACTION
    assert not any(s.log_files for s in table.file_slices())

    clustered = run(cli("--json", "cluster", path)).json()
    assert clustered["state"] == "completed" and clustered["counts"]["file_groups_replaced"] > 0
    assert table.timeline.pending_action(table.timeline.get(clustered["instant_time"])) is Action.CLUSTERING

    retain = ["-o", "hoodie.clean.policy=KEEP_LATEST_FILE_VERSIONS", "-o", "hoodie.clean.fileversions.retained=1"]
    cleaned = ok(run(cli("clean", path, *retain))).stdout
    assert cleaned.startswith("clean ") and "files_deleted=" in cleaned
    assert table.timeline.completed()[-1].action is Action.CLEAN
    keep = ["-o", "hoodie.keep.min.commits=2", "-o", "hoodie.keep.max.commits=3"]
    archived = run(cli("--json", "archive", path, *keep)).json()
    assert archived["state"] == "completed" and archived["counts"]["instants_archived"] > 0

    after = run_all({"timeline": cli("timeline", path, "--all"), "commits": cli("--json", "commits", path, "--all")})
    archived_lines = [line for line in ok(after["timeline"]).stdout.splitlines() if "(archived)" in line]
    old = {a.requested_time for a in table.timeline.archived()}
    assert old and {line.split()[0] for line in archived_lines} == old
    assert all(i.requested_time in after["timeline"].stdout for i in table.timeline.instants())
    commits = after["commits"].json()
    assert commits[0]["archived"] and commits[0]["operation"] == "INSERT" and commits[0]["inserts"] == 12
    assert table.validate_metadata().ok
    assert data_rows(table.read()) == EXPECTED
    assert data_rows(hudi_rs.snapshot(path)) == EXPECTED


def savepoint_rollback_restore(path: Path, first_instant: str) -> None:
    table = HudiTable(str(path))
    savepoint = run(cli("--json", "savepoint", path)).json()["instant_time"]
    assert savepoint == first_instant and table.savepoints() == [savepoint]

    update = path.parent / "update.json"
    update.write_text(json.dumps({"id": 1, "name": "x", "ts": 9, "city": "sf", "fare": 99}) + "\n")
    assert "1 updated" in ok(run(cli("write", path, update))).stdout
    assert table.schema.field("fare").type == pa.float64()  # JSON's integer 99 was cast to the table's double
    second = run(cli("--json", "write", path, update, "--operation", "insert")).json()
    rolled = run(cli("--json", "rollback", path, second["instant_time"])).json()
    assert rolled["action"] == "rollback" and rolled["rolled_back"] == second["instant_time"]
    assert table.timeline.find(second["instant_time"]) is None
    assert len(table.timeline.completed_data_instants()) == 2

    restored = ok(run(cli("restore", path, savepoint))).stdout
    assert restored.startswith("restore ") and "completed" in restored
    assert data_rows(table.read()) == by_id(FIRST.to_pylist())

    after = run_all({"list": cli("--json", "savepoint", path, "--list"), "validate": cli("validate", path)})
    assert after["list"].json() == {"savepoints": [savepoint]}
    assert ok(after["validate"]).stdout.startswith("ok: checked")
    deleted = run(cli("--json", "savepoint", path, savepoint, "--delete")).json()
    assert deleted == {"action": "savepoint", "instant_time": savepoint, "state": "deleted"}
    assert table.savepoints() == []


def test_table_services(mor: Built, cow: Built, tmp_path: Path) -> None:
    shutil.copytree(mor.path, tmp_path / "mor" / "trips")
    shutil.copytree(cow.path, tmp_path / "cow" / "fares")
    with ThreadPoolExecutor(2) as pool:
        sequences = [
            pool.submit(compaction_clustering_clean_archive, tmp_path / "mor" / "trips"),
            pool.submit(savepoint_rollback_restore, tmp_path / "cow" / "fares", cow.writes[0]["instant_time"]),
        ]
    for sequence in sequences:
        sequence.result()  # re-raises a failed assertion
