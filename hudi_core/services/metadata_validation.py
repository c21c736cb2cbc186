"""`validate_metadata`: the metadata table compared with a real listing of the table.

Every committed file on storage must be listed with its size, and nothing else (files a pending
clean already deleted may still be listed: the clean updates the metadata table when it completes,
as in Hudi); the partition
list must match; with a record index, every key of the latest snapshot must point at the file
group holding it, and no other key may be indexed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hudi_core.config import HudiConfigs
from hudi_core.lifecycle.metadata_sync import InitialBuild, slice_keys
from hudi_core.lifecycle.metadata_writer import MetadataSettings
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import MetadataTableReader
from hudi_core.metadata.record_index import location_of
from hudi_core.services.clean import files_being_cleaned
from hudi_core.storage import Storage
from hudi_core.table.state import load_table_state


@dataclass(frozen=True)
class MetadataValidation:
    """Differences between the metadata table and storage (all empty when they agree).

    Attributes:
        missing_files: committed files on storage the metadata table does not list (path).
        extra_files: files the metadata table lists that storage does not hold (path).
        size_mismatches: path -> (listed size, size on storage).
        missing_partitions / extra_partitions: partition paths.
        record_index_mismatches: record key -> (indexed location, actual location); None for "absent".
    """

    missing_files: list[str] = field(default_factory=list)
    extra_files: list[str] = field(default_factory=list)
    size_mismatches: dict[str, tuple[int, int]] = field(default_factory=dict)
    missing_partitions: list[str] = field(default_factory=list)
    extra_partitions: list[str] = field(default_factory=list)
    record_index_mismatches: dict[str, tuple[tuple[str, str] | None, tuple[str, str] | None]] = field(
        default_factory=dict
    )

    @property
    def ok(self) -> bool:
        return not (
            self.missing_files
            or self.extra_files
            or self.size_mismatches
            or self.missing_partitions
            or self.extra_partitions
            or self.record_index_mismatches
        )


def validate_metadata(storage: Storage) -> MetadataValidation:
    state = load_table_state(storage)
    reader = MetadataTableReader(storage, state.timeline)
    build = InitialBuild(storage, state, MetadataSettings.of(HudiConfigs({})))
    actual = build.committed_files()
    listed = reader.partition_files()
    result = MetadataValidation(
        missing_partitions=sorted(set(actual) - set(listed)),
        extra_partitions=sorted(set(listed) - set(actual)),
    )
    being_cleaned = files_being_cleaned(storage, state.timeline)
    for partition in sorted(set(actual) | set(listed)):
        on_storage, in_table = actual.get(partition, {}), listed.get(partition, {})
        result.missing_files.extend(f"{partition}/{n}".lstrip("/") for n in sorted(set(on_storage) - set(in_table)))
        extra = (f"{partition}/{n}".lstrip("/") for n in sorted(set(in_table) - set(on_storage)))
        result.extra_files.extend(path for path in extra if path not in being_cleaned)
        for name in sorted(set(on_storage) & set(in_table)):
            if on_storage[name] != in_table[name]:
                result.size_mismatches[f"{partition}/{name}".lstrip("/")] = (in_table[name], on_storage[name])
    if MetadataPartition.RECORD_INDEX.path in state.config.metadata_partitions:
        # A key stored twice (an insert that allowed duplicates) may be indexed at either place.
        actual_locations: dict[str, list[tuple[str, str]]] = {}
        for location, keys in slice_keys(storage, state, None).items():
            for key in keys:
                actual_locations.setdefault(key, []).append(location)
        indexed = {k: location_of(r) for k, r in reader.records(MetadataPartition.RECORD_INDEX).items()}
        for key in sorted(set(actual_locations) | set(indexed)):
            places = actual_locations.get(key, [])
            if indexed.get(key) not in places:
                result.record_index_mismatches[key] = (indexed.get(key), places[0] if places else None)
    return result
