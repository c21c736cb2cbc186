"""Building metadata-table partitions on an existing table: the data table's `indexing` action.

`<t>.indexing.requested` holds a `HoodieIndexPlan` naming each partition and the last completed
data instant it covers; the partitions are built from the table as it is (in their own
initialization deltacommits) under the table lock, and `<t>_<c>.indexing` records a
`HoodieIndexCommitMetadata`. While the action is inflight, its partitions are listed in
`hoodie.table.metadata.partitions.inflight`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hudi_core.concurrency import table_lock
from hudi_core.config import HudiConfigs
from hudi_core.errors import HudiConfigError
from hudi_core.lifecycle.metadata_sync import MetadataSync
from hudi_core.lifecycle.metadata_writer import METADATA_PARTITIONS_INFLIGHT_KEY, MetadataTableWriter
from hudi_core.metadata.partitions import ORDER, MetadataPartition
from hudi_core.storage import Storage
from hudi_core.table.create import update_table_properties
from hudi_core.table.state import load_table_state
from hudi_core.timeline.instant import Action
from hudi_core.timeline.schemas import INDEX_COMMIT_METADATA, INDEX_PLAN
from hudi_core.timeline.serde import encode_avro_container
from hudi_core.timeline.writer import TimelineWriter, latest_time_on, new_instant_time


def build_metadata_partitions(storage: Storage, names: Sequence[str], configs: HudiConfigs) -> str | None:
    """Builds the named metadata partitions (`files` first if missing); returns the indexing instant.

    Returns None when every named partition already exists.
    """
    wanted = []
    for name in names:
        partition = MetadataPartition.named(name)
        if partition is None:
            known = ", ".join(p.path for p in ORDER)
            raise HudiConfigError(f"unknown metadata partition {name!r} (known: {known})")
        wanted.append(partition)
    with table_lock(storage, configs, "indexing"):
        state = load_table_state(storage)
        published = set(state.config.metadata_partitions)
        missing = [p for p in ORDER if (p in wanted or p is MetadataPartition.FILES) and p.path not in published]
        if not missing:
            return None
        sync = MetadataSync(storage, configs)
        sync.settings = replace(
            sync.settings, enabled=True, partitions=frozenset({*sync.settings.partitions, *missing})
        )
        done = state.timeline.completed_data_instants()
        upto = done[-1].requested_time if done else None
        infos = [
            {"version": 1, "metadataPartitionPath": p.path, "indexUptoInstant": upto, "extraMetadata": None}
            for p in missing
        ]
        timeline = state.timeline
        writer = TimelineWriter(storage, timeline.timeline_dir, timeline.layout_version)
        instant_time = new_instant_time(after=latest_time_on(timeline))
        plan = encode_avro_container(INDEX_PLAN, {"version": 1, "indexPartitionInfos": infos})
        requested = writer.request(instant_time, Action.INDEXING, plan)
        inflight = writer.to_inflight(requested)
        update_table_properties(storage, {METADATA_PARTITIONS_INFLIGHT_KEY: ",".join(p.path for p in missing)})
        sync.ensure_initialized(
            MetadataTableWriter(storage, state.config.name, sync.settings, state.config.version), state
        )
        update_table_properties(storage, {METADATA_PARTITIONS_INFLIGHT_KEY: ""})
        metadata = {"version": 1, "operationType": None, "indexPartitionInfos": infos}
        writer.complete(inflight, encode_avro_container(INDEX_COMMIT_METADATA, metadata))
        return instant_time
