"""Storage errors on a full disk: a HudiStorageError naming the file and the operation, whether the
disk fills at a write, at the flush of a close, or at a rename; the partial or temporary file is
removed, and a replaced file keeps its old content.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_core import HudiStorageError
from hudi_core.storage import Storage
from tests.faults.faulty_storage import inject

ENOSPC_TEXT = "No space left on device"


def _files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


@pytest.mark.parametrize("at_close", [False, True], ids=["at-write", "at-flush"])
def test_write_bytes_on_a_full_disk_raises_naming_the_file_and_leaves_no_partial_file(
    at_close: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inject(monkeypatch, fail_at=1, at_close=at_close)
    storage = Storage(str(tmp_path))
    with pytest.raises(HudiStorageError, match=rf"cannot write {tmp_path}/d/f\.log: .*{ENOSPC_TEXT}"):
        storage.write_bytes("d/f.log", b"x" * 1000)
    assert _files(tmp_path) == []


@pytest.mark.parametrize("at_close", [False, True], ids=["at-write", "at-flush"])
def test_parquet_written_through_an_output_stream_on_a_full_disk_raises_naming_the_file(
    at_close: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inject(monkeypatch, fail_at=1, at_close=at_close)
    storage = Storage(str(tmp_path))
    rows = pa.table({"n": range(10_000)})
    with (
        pytest.raises(HudiStorageError, match=rf"cannot write {tmp_path}/h/x\.parquet: .*{ENOSPC_TEXT}"),
        storage.open_output("h/x.parquet") as sink,  # as archival writes its history files
        pq.ParquetWriter(sink, rows.schema) as writer,
    ):
        writer.write_table(rows)
    assert _files(tmp_path) == []


@pytest.mark.parametrize("fail_at", [1, 2], ids=["temporary-file", "rename"])
def test_a_failed_atomic_replace_keeps_the_old_file_and_leaves_no_temporary(
    fail_at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "state.json").write_bytes(b"old")
    inject(monkeypatch, fail_at=fail_at)
    with pytest.raises(HudiStorageError, match=ENOSPC_TEXT):
        Storage(str(tmp_path)).write_atomic("state.json", b"new")
    assert _files(tmp_path) == ["state.json"]
    assert (tmp_path / "state.json").read_bytes() == b"old"
