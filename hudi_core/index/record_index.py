"""Key lookups in the metadata table's `record_index`, shard by shard.

The record index keeps each key in one of its file groups (shards), chosen by the key's hash
(`file_group_index`). A lookup reads only the shards its keys fall in, so an engine that sends each
shard's keys to one task (the Spark engine) reads every shard once, and a small write reads a few.
`RecordIndexLookup` is prepared from the writer's snapshot on the driver and pickles into tasks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_core.errors import TimelineChangedError
from hudi_core.file_group import FileSlice
from hudi_core.metadata.keys import file_group_indexes
from hudi_core.metadata.partitions import MetadataPartition
from hudi_core.metadata.reader import KeyFilter, MetadataTableReader
from hudi_core.metadata.record import MetadataRecord
from hudi_core.metadata.record_index import epoch_ms, location_of, written_at
from hudi_core.storage import Storage
from hudi_core.table.listing import metadata_index_reader
from hudi_core.timeline import Timeline


@dataclass(frozen=True)
class RecordIndexLookup:
    """The record index as a writer's snapshot sees it.

    Attributes:
        reader: the metadata table as of the snapshot.
        shards: the record index's latest file slices, by shard number.
        live: (partition, file id) of every file group the snapshot has.
        seen: requested times (epoch ms) of the snapshot's completed instants.
        oldest_seen: the snapshot's first active write (epoch ms), if any.
    """

    reader: MetadataTableReader
    shards: tuple[FileSlice, ...]
    live: frozenset[tuple[str, str]]
    seen: frozenset[int]
    oldest_seen: int | None

    @classmethod
    def of(
        cls, storage: Storage, slices: Mapping[str, Sequence[FileSlice]], timeline: Timeline
    ) -> RecordIndexLookup | None:
        """The lookup for the snapshot `timeline` (its latest `slices`); None when the table has no
        published record index yet."""
        reader = metadata_index_reader(storage, MetadataPartition.RECORD_INDEX, timeline)
        if reader is None:
            return None
        partition = MetadataPartition.RECORD_INDEX
        shards = sorted(reader.file_slices(partition), key=lambda s: partition.index_of(s.file_id))
        if [partition.index_of(s.file_id) for s in shards] != list(range(len(shards))) or not shards:
            return None  # not fully built: keys are looked up in the data files instead
        first_active = timeline.first_active_write()
        return cls(
            reader,
            tuple(shards),
            frozenset((p, s.file_id) for p, group in slices.items() for s in group),
            frozenset(epoch_ms(i.requested_time) for i in timeline.completed()),
            epoch_ms(first_active) if first_active is not None else None,
        )

    def shard_of(self, keys: pa.Array) -> npt.NDArray[np.int64]:
        """The shard holding each key."""
        return np.asarray(file_group_indexes(keys, len(self.shards)), dtype=np.int64)

    def locate(self, keys: pa.Array) -> tuple[pa.Array, pa.Array]:
        """(file id, partition) of each key's live file group; nulls for keys not in a live one.

        A location whose file group is no longer live (replaced by insert_overwrite) counts as new.

        Raises:
            TimelineChangedError: the index places a key in a file group that an instant completed
                after the snapshot wrote (a metadata compaction since the snapshot folded that
                instant in); the writer plans again on a fresh snapshot instead of storing the key twice.
        """
        values = keys.to_pylist()
        shard_of = self.shard_of(keys)
        found: dict[str, MetadataRecord] = {}
        for shard in np.unique(shard_of).tolist():
            wanted = KeyFilter(keys=frozenset(values[i] for i in np.flatnonzero(shard_of == shard).tolist()))
            found.update(self.reader.slice_records(self.shards[shard], wanted))
        file_ids: list[str | None] = []
        partitions: list[str | None] = []
        for key in values:
            record = found.get(key)
            location = location_of(record) if record is not None else None
            if location is None or location not in self.live:
                written = written_at(record) if record is not None else None
                if (
                    written is not None
                    and written not in self.seen
                    and (self.oldest_seen is None or written >= self.oldest_seen)
                ):
                    raise TimelineChangedError(
                        f"the record index places key {key!r} in file group {location}, written by an instant "
                        "completed after this write's snapshot"
                    )
                file_ids.append(None)
                partitions.append(None)
            else:
                partitions.append(location[0])
                file_ids.append(location[1])
        return pa.array(file_ids, pa.string()), pa.array(partitions, pa.string())
