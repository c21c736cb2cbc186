"""Asset checks on Hudi tables: record-key uniqueness, schema drift, table health."""

from __future__ import annotations

import math
from collections.abc import Sequence

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from hudi_core import HudiTable
from hudi_core.config import HudiConfigs
from hudi_core.config.write import HudiWriteConfig
from hudi_core.file_group import FileSlice
from hudi_core.lifecycle.pending import pending_table_services
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.meta_fields import PARTITION_PATH, RECORD_KEY, without_meta_fields
from hudi_core.schema.resolver import resolve_avro_schema
from hudi_core.timeline.instant import DATA_ACTIONS


def duplicate_keys(path: str, global_keys: bool = False) -> tuple[int, list[str]]:
    """(duplicated keys, a few examples) in the latest snapshot; keys are unique per partition,
    or across partitions with `global_keys` (global indexes, non-partitioned tables)."""
    table = HudiTable(path)
    rows = table.read(columns=[RECORD_KEY, PARTITION_PATH])
    groups = [RECORD_KEY] if global_keys or not table.table_config.partition_fields else [PARTITION_PATH, RECORD_KEY]
    counts = rows.group_by(groups).aggregate([([], "count_all")])
    duplicated = counts.filter(pc.greater(counts.column("count_all"), 1))
    return duplicated.num_rows, duplicated.column(RECORD_KEY).slice(0, 5).to_pylist()


def packable_small_files(slices: Sequence[FileSlice], small_file_bytes: int, max_file_bytes: int) -> int:
    """Base files that packing would save, the way Hudi's writer and clustering see small files: in
    each partition, the files under `small_file_bytes` could be packed into ceil(total /
    `max_file_bytes`) files; a partition's single small file has nothing to pack with."""
    small: dict[str, list[int]] = {}
    for file_slice in slices:
        if file_slice.base_file is not None and file_slice.base_file_size < small_file_bytes:
            small.setdefault(file_slice.partition_path, []).append(file_slice.base_file_size)
    return sum(len(sizes) - max(1, math.ceil(sum(sizes) / max_file_bytes)) for sizes in small.values())


def schema_changes(before: pa.Schema, after: pa.Schema) -> dict[str, list[str]]:
    """Columns added, removed and retyped between two schemas."""
    old = {f.name: f.type for f in before}
    new = {f.name: f.type for f in after}
    return {
        "added": [n for n in new if n not in old],
        "removed": [n for n in old if n not in new],
        "retyped": [f"{n}: {old[n]} -> {new[n]}" for n in new if n in old and old[n] != new[n]],
    }


def hudi_table_checks(
    *,
    asset_key: dg.AssetKey | str | Sequence[str],
    table_path: str,
    expected_schema: pa.Schema | None = None,
    max_small_file_ratio: float = 0.2,
    small_file_bytes: int | None = None,
    max_file_bytes: int | None = None,
    global_keys: bool = False,
) -> list[dg.AssetChecksDefinition]:
    """Four checks for the asset stored at `table_path`.

    - `record_key_unique`: no record key twice in the snapshot (error severity).
    - `schema_drift`: columns removed or retyped since the previous commit's schema, or against
      `expected_schema` when given (warning severity; added columns pass and are reported).
    - `table_health`: no failed or stuck write instants, and at most `max_small_file_ratio` of the
      base files could be saved by packing small files (`packable_small_files`; the thresholds are
      the table's `hoodie.parquet.small.file.limit` and `hoodie.parquet.max.file.size` unless given);
      pending compactions and clusterings are reported (warning severity).
    - `storage_consistent`: the metadata table lists exactly the files and partitions storage holds
      (`HudiTable.validate_metadata`, record index included) and no data file is orphaned (written
      by no committed or pending instant; `HudiTable.orphan_files`) (error severity).
    """
    key = dg.AssetKey.from_coercible(asset_key)
    small_option, max_option = HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT, HudiWriteConfig.PARQUET_MAX_FILE_SIZE

    @dg.asset_check(
        asset=key,
        name="record_key_unique",
        blocking=True,
        description="No record key appears twice in the latest snapshot"
        + (" (across partitions)" if global_keys else " of a partition"),
    )
    def record_key_unique() -> dg.AssetCheckResult:
        duplicated, examples = duplicate_keys(table_path, global_keys)
        return dg.AssetCheckResult(
            passed=duplicated == 0,
            metadata={"duplicated_keys": duplicated, "examples": ", ".join(map(str, examples))},
        )

    @dg.asset_check(
        asset=key,
        name="schema_drift",
        description="No column removed or retyped against "
        + ("the expected schema" if expected_schema is not None else "the previous commit's schema")
        + " (added columns pass)",
    )
    def schema_drift() -> dg.AssetCheckResult:
        table = HudiTable(table_path)
        current = without_meta_fields(table.schema)
        if expected_schema is not None:
            baseline, against = expected_schema, "the expected schema"
        else:
            timeline = table.timeline
            commits = timeline.completed_data_instants()
            previous = resolve_avro_schema(timeline, table.table_config, commits[:-1]) if len(commits) > 1 else None
            if previous is None:
                return dg.AssetCheckResult(passed=True, metadata={"compared_with": "nothing (first commit)"})
            baseline, against = without_meta_fields(avro_to_arrow_schema(previous)), "the previous commit"
        changes = schema_changes(baseline, current)
        return dg.AssetCheckResult(
            passed=not changes["removed"] and not changes["retyped"],
            severity=dg.AssetCheckSeverity.WARN,
            metadata={"compared_with": against, **{k: ", ".join(v) or "-" for k, v in changes.items()}},
        )

    @dg.asset_check(
        asset=key,
        name="table_health",
        description=(
            "No failed or stuck writes, and small files that packing would save are at most "
            f"{max_small_file_ratio:.0%} of the base files (small: under {small_option.key}, packed up "
            f"to {max_option.key}, per partition as Hudi's writer and clustering do)"
        ),
    )
    def table_health() -> dg.AssetCheckResult:
        table = HudiTable(table_path)
        timeline = table.timeline
        pending_services = pending_table_services(table.storage, timeline)
        service_instants = {service.instant for service in pending_services}
        pending_writes = [
            i for i in timeline.pending() if i not in service_instants and i.action.completed_action in DATA_ACTIONS
        ]
        slices = table.file_slices()
        configs = HudiConfigs(table.table_config.raw)
        small_limit = small_file_bytes if small_file_bytes is not None else int(configs.value(small_option))
        max_size = max_file_bytes if max_file_bytes is not None else int(configs.value(max_option))
        base_files = sum(1 for s in slices if s.base_file is not None)
        packable = packable_small_files(slices, small_limit, max_size)
        ratio = packable / base_files if base_files else 0.0
        return dg.AssetCheckResult(
            passed=not pending_writes and ratio <= max_small_file_ratio,
            severity=dg.AssetCheckSeverity.WARN,
            metadata={
                "pending_writes": ", ".join(i.requested_time for i in pending_writes) or "-",
                "pending_table_services": ", ".join(
                    f"{service.action.value}@{service.instant.requested_time}" for service in pending_services
                )
                or "-",
                "file_slices": len(slices),
                "base_files": base_files,
                "packable_small_files": packable,
                "packable_ratio": round(ratio, 3),
                "max_packable_ratio": max_small_file_ratio,
                "small_file_limit_bytes": small_limit,
                "max_file_size_bytes": max_size,
                "log_files": sum(len(s.log_files) for s in slices),
            },
        )

    @dg.asset_check(
        asset=key,
        name="storage_consistent",
        description="The metadata table agrees with storage (files, partitions, record index) and no data "
        "file is orphaned",
    )
    def storage_consistent() -> dg.AssetCheckResult:
        table = HudiTable(table_path)
        validation = table.validate_metadata()
        orphans = table.orphan_files()
        differences = {
            "missing_files": validation.missing_files,
            "extra_files": validation.extra_files,
            "size_mismatches": list(validation.size_mismatches),
            "missing_partitions": validation.missing_partitions,
            "extra_partitions": validation.extra_partitions,
            "record_index_mismatches": list(validation.record_index_mismatches),
            "orphan_files": orphans,
        }
        return dg.AssetCheckResult(
            passed=validation.ok and not orphans,
            metadata={name: len(found) for name, found in differences.items()}
            | {"examples": ", ".join(str(p) for found in differences.values() for p in found[:2])[:500] or "-"},
        )

    return [record_key_unique, schema_drift, table_health, storage_consistent]


def io_manager_checks(
    assets: Sequence[dg.AssetsDefinition], root_uri: str, **options: object
) -> list[dg.AssetChecksDefinition]:
    """`hudi_table_checks` for assets a Hudi IO manager stores under `root_uri` (at
    `<root_uri>/<asset key path>`), on request: pass the assets to check; `options` as for
    `hudi_table_checks`."""
    checks: list[dg.AssetChecksDefinition] = []
    for assets_def in assets:
        for key in assets_def.keys:
            path = "/".join([root_uri.rstrip("/"), *key.path])
            checks.extend(hudi_table_checks(asset_key=key, table_path=path, **options))  # type: ignore[arg-type]
    return checks
