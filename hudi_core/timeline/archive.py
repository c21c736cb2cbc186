"""The archived timeline of table version 8+: the LSM history in `.hoodie/timeline/history/` (notes §1.7).

Archival moves the oldest completed instants off the active timeline into Parquet files of
`HoodieLSMTimelineInstant` rows {instantTime, completionTime, action, metadata, plan, version}, where
`metadata` holds the bytes of the completed instant file and `plan` those of its requested file.
A manifest lists the live files: `_version_` names the latest `manifest_<N>`, a JSON
`{"files": [{"fileName": ..., "fileLen": ...}]}`. Data files are named
`<minInstant>_<maxInstant>_<layer>.parquet`; compaction merges files of a layer into the next one,
so an instant is in exactly one live file.

hudi-rs 0.5 does not read this history (archived instants are invisible to it).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_core.errors import FileFormatError
from hudi_core.storage import Storage
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.serde import decode_instant_content

VERSION_FILE = "_version_"
MANIFEST_PREFIX = "manifest_"
DATA_FILE_RE = re.compile(r"^(\d+)_(\d+)_(\d+)\.parquet$")
LSM_COLUMNS = ("instantTime", "completionTime", "action", "metadata", "plan", "version")


@dataclass(frozen=True)
class ArchivedInstant:
    """One completed instant of the archived timeline.

    Attributes:
        requested_time: the instant time.
        completion_time: when it completed.
        action: commit, deltacommit, replacecommit, clean, rollback, ...
        metadata: the bytes of its completed instant file (None when not kept).
    """

    requested_time: str
    completion_time: str
    action: str
    metadata: bytes | None

    def commit_metadata(self, where: str) -> CommitMetadata:
        """Its commit metadata (empty when none was kept)."""
        if not self.metadata:
            return CommitMetadata.empty()
        return CommitMetadata.from_dict(decode_instant_content(self.metadata, where), where)


def latest_manifest(storage: Storage, history_dir: str) -> int | None:
    """The number of the latest manifest, from `_version_` (or the highest manifest file), or None."""
    version_path = posixpath.join(history_dir, VERSION_FILE)
    if storage.exists(version_path):
        text = storage.read_bytes(version_path).decode("utf-8").strip()
        if not text.isdigit():
            raise FileFormatError(f"{storage.full_path(version_path)}: expected a manifest number, found {text!r}")
        return int(text)
    numbers = [
        int(e.name[len(MANIFEST_PREFIX) :])
        for e in storage.list_dir(history_dir)
        if e.name.startswith(MANIFEST_PREFIX) and e.name[len(MANIFEST_PREFIX) :].isdigit()
    ]
    return max(numbers) if numbers else None


def manifest_files(storage: Storage, history_dir: str, version: int) -> list[str]:
    """The data file names manifest `version` lists."""
    path = posixpath.join(history_dir, f"{MANIFEST_PREFIX}{version}")
    try:
        content = json.loads(storage.read_bytes(path))
        names = [str(entry["fileName"]) for entry in content.get("files") or ()]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise FileFormatError(f"{storage.full_path(path)}: malformed LSM timeline manifest: {e}") from e
    for name in names:
        if not DATA_FILE_RE.match(name):
            raise FileFormatError(f"{storage.full_path(path)}: unexpected LSM data file name {name!r}")
    return names


def load_archived_instants(storage: Storage, history_dir: str, with_metadata: bool = True) -> list[ArchivedInstant]:
    """Every archived instant, ordered by completion time (empty when nothing was archived)."""
    version = latest_manifest(storage, history_dir)
    if version is None:
        return []
    columns = list(LSM_COLUMNS[:4] if with_metadata else LSM_COLUMNS[:3])
    instants: list[ArchivedInstant] = []
    for name in manifest_files(storage, history_dir, version):
        path = posixpath.join(history_dir, name)
        try:
            with storage.open_input_file(path) as source:
                table = pq.read_table(source, columns=columns)
        except (OSError, pa.ArrowException) as e:
            raise FileFormatError(f"{storage.full_path(path)}: unreadable LSM timeline file: {e}") from e
        rows = table.to_pydict()
        for i in range(table.num_rows):
            instants.append(
                ArchivedInstant(
                    requested_time=str(rows["instantTime"][i]),
                    completion_time=str(rows["completionTime"][i]),
                    action=str(rows["action"][i]),
                    metadata=rows["metadata"][i] if with_metadata else None,
                )
            )
    return sorted(instants, key=lambda i: (i.completion_time, i.requested_time))
