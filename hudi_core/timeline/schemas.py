"""Avro writer schemas of timeline files, field for field as Hudi 1.x embeds them (notes §1.4, App. A).

Java-generated schemas mark strings with `"avro.java.string": "String"`; Hudi's readers resolve by
field name, but keeping the exact shape lets tests compare our files with Spark-written ones.
"""

from __future__ import annotations

from typing import Any

NAMESPACE = "org.apache.hudi.avro.model"

JsonSchema = dict[str, Any]


def _string() -> JsonSchema:
    return {"type": "string", "avro.java.string": "String"}


def _string_map(values: Any, default_in_type: bool = False) -> JsonSchema:
    schema: JsonSchema = {"type": "map", "values": values, "avro.java.string": "String"}
    if default_in_type:
        schema["default"] = None
    return schema


def _string_array(default_in_type: bool = False) -> JsonSchema:
    schema: JsonSchema = {"type": "array", "items": _string()}
    if default_in_type:
        schema["default"] = None
    return schema


def _optional(name: str, value_type: Any) -> JsonSchema:
    return {"name": name, "type": ["null", value_type], "default": None}


def _required(name: str, value_type: Any) -> JsonSchema:
    return {"name": name, "type": value_type}


def _version() -> JsonSchema:
    return {"name": "version", "type": ["int", "null"], "default": 1}


def _longs(*names: str) -> list[JsonSchema]:
    return [_optional(n, "long") for n in names]


def _write_stat() -> JsonSchema:
    fields = [
        _optional("fileId", _string()),
        _optional("path", _string()),
        _optional("prevCommit", _string()),
        *_longs("numWrites", "numDeletes", "numUpdateWrites", "totalWriteBytes", "totalWriteErrors"),
        _optional("partitionPath", _string()),
        *_longs(
            "totalLogRecords",
            "totalLogFiles",
            "totalUpdatedRecordsCompacted",
            "numInserts",
            "totalLogBlocks",
            "totalCorruptLogBlock",
            "totalRollbackBlocks",
            "fileSizeInBytes",
        ),
        _optional("logVersion", "int"),
        _optional("logOffset", "long"),
        _optional("baseFile", _string()),
        _optional("logFiles", _string_array(default_in_type=True)),
        _optional("cdcStats", _string_map("long", default_in_type=True)),
        _optional("prevBaseFile", _string()),
        *_longs("minEventTime", "maxEventTime"),
        _optional(
            "runtimeStats",
            {
                "type": "record",
                "name": "HoodieRuntimeStats",
                "fields": _longs("totalScanTime", "totalCreateTime", "totalUpsertTime"),
            },
        ),
        *_longs("totalLogFilesCompacted", "totalLogReadTimeMs", "totalLogSizeCompacted"),
        _optional("tempPath", _string()),
        _optional("numUpdates", "long"),
    ]
    return {"type": "record", "name": "HoodieWriteStat", "fields": fields}


def _write_stats_map() -> JsonSchema:
    return _optional("partitionToWriteStats", _string_map({"type": "array", "items": _write_stat()}))


COMMIT_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieCommitMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _write_stats_map(),
        _optional("compacted", "boolean"),
        _optional("extraMetadata", _string_map(_string(), default_in_type=True)),
        _version(),
        _optional("operationType", _string()),
    ],
}

REPLACE_COMMIT_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieReplaceCommitMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _write_stats_map(),
        _optional("compacted", "boolean"),
        _optional("extraMetadata", _string_map(_string())),
        _version(),
        _optional("operationType", _string()),
        _optional("partitionToReplaceFileIds", _string_map({"type": "array", "items": _string()})),
    ],
}

_INSTANT_INFO: JsonSchema = {
    "type": "record",
    "name": "HoodieInstantInfo",
    "fields": [_required("commitTime", _string()), _required("action", _string())],
}

ROLLBACK_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieRollbackPlan",
    "namespace": NAMESPACE,
    "fields": [
        _optional("instantToRollback", _INSTANT_INFO),
        _optional(
            "RollbackRequests",
            {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "HoodieRollbackRequest",
                    "fields": [
                        _required("partitionPath", _string()),
                        _optional("fileId", _string()),
                        _optional("latestBaseInstant", _string()),
                        {
                            "name": "filesToBeDeleted",
                            "type": {"type": "array", "items": _string(), "default": []},
                            "default": [],
                        },
                        _optional("logBlocksToBeDeleted", _string_map("long")),
                    ],
                },
            },
        ),
        _version(),
    ],
}

ROLLBACK_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieRollbackMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _required("startRollbackTime", _string()),
        _required("timeTakenInMillis", "long"),
        _required("totalFilesDeleted", "int"),
        _required("commitsRollback", {"type": "array", "items": _string()}),
        _required(
            "partitionMetadata",
            _string_map(
                {
                    "type": "record",
                    "name": "HoodieRollbackPartitionMetadata",
                    "fields": [
                        _required("partitionPath", _string()),
                        _required("successDeleteFiles", {"type": "array", "items": _string()}),
                        _required("failedDeleteFiles", {"type": "array", "items": _string()}),
                        _optional("rollbackLogFiles", _string_map("long")),
                        _optional("logFilesFromFailedCommit", _string_map("long")),
                    ],
                }
            ),
        ),
        _version(),
        {
            "name": "instantsRollback",
            "type": {"type": "array", "items": _INSTANT_INFO, "default": []},
            "default": [],
        },
    ],
}


_SLICE_INFO: JsonSchema = {
    "type": "record",
    "name": "HoodieSliceInfo",
    "fields": [
        _optional("dataFilePath", _string()),
        _optional("deltaFilePaths", {"type": "array", "items": _string()}),
        _required("fileId", ["null", _string()]),
        _optional("partitionPath", _string()),
        _optional("bootstrapFilePath", _string()),
        _version(),
    ],
}

_CLUSTERING_GROUP: JsonSchema = {
    "type": "record",
    "name": "HoodieClusteringGroup",
    "fields": [
        _optional("slices", {"type": "array", "items": _SLICE_INFO}),
        _optional("metrics", _string_map("double")),
        {"name": "numOutputFileGroups", "type": ["int", "null"], "default": 1},
        _optional("extraMetadata", _string_map(_string())),
        _version(),
    ],
}

CLUSTERING_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieClusteringPlan",
    "fields": [
        _optional("inputGroups", {"type": "array", "items": _CLUSTERING_GROUP}),
        _optional(
            "strategy",
            {
                "type": "record",
                "name": "HoodieClusteringStrategy",
                "fields": [
                    _optional("strategyClassName", _string()),
                    _optional("strategyParams", _string_map(_string())),
                    _version(),
                ],
            },
        ),
        _optional("extraMetadata", _string_map(_string())),
        _version(),
        _optional("preserveHoodieMetadata", "boolean"),
        _optional("missingSchedulePartitions", {"type": "array", "items": _string()}),
    ],
}

REQUESTED_REPLACE_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieRequestedReplaceMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _optional("operationType", _string()),
        _optional("clusteringPlan", CLUSTERING_PLAN),
        _optional("extraMetadata", _string_map(_string())),
        _version(),
    ],
}

COMPACTION_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieCompactionPlan",
    "namespace": NAMESPACE,
    "fields": [
        _optional(
            "operations",
            {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "HoodieCompactionOperation",
                    "fields": [
                        _required("baseInstantTime", ["null", _string()]),
                        _optional("deltaFilePaths", {"type": "array", "items": _string()}),
                        _optional("dataFilePath", _string()),
                        _required("fileId", ["null", _string()]),
                        _optional("partitionPath", _string()),
                        _optional("metrics", _string_map("double")),
                        _optional("bootstrapFilePath", _string()),
                    ],
                },
            },
        ),
        _optional("extraMetadata", _string_map(_string())),
        _version(),
        _optional(
            "strategy",
            {
                "type": "record",
                "name": "HoodieCompactionStrategy",
                "fields": [
                    {
                        "name": "compactorClassName",
                        "type": ["null", _string()],
                        "doc": "The class name that is provided here should extend CompactionExecutionStrategy "
                        "abstract class, idea is that the plan generator will also provide the execution "
                        "strategy to use.",
                        "default": None,
                    },
                    {
                        "name": "strategyParams",
                        "type": ["null", _string_map(_string())],
                        "doc": "These parameters play a key role in determining which action type it is i.e. "
                        "compaction or logcompaction and it will also include configs that determine how "
                        "compaction needs to be executed.",
                        "default": None,
                    },
                    _version(),
                ],
            },
        ),
        {"name": "preserveHoodieMetadata", "type": ["boolean", "null"], "default": False},
        _optional("missingSchedulePartitions", {"type": "array", "items": _string()}),
    ],
}

_CLEAN_FILE_INFO: JsonSchema = {
    "type": "record",
    "name": "HoodieCleanFileInfo",
    "fields": [_optional("filePath", _string()), _optional("isBootstrapBaseFile", "boolean")],
}

CLEANER_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieCleanerPlan",
    "namespace": NAMESPACE,
    "fields": [
        _optional(
            "earliestInstantToRetain",
            {
                "type": "record",
                "name": "HoodieActionInstant",
                "fields": [
                    _required("timestamp", _string()),
                    _required("action", _string()),
                    _required("state", _string()),
                ],
            },
        ),
        {"name": "lastCompletedCommitTimestamp", "type": _string(), "default": ""},
        _required("policy", _string()),
        _optional("filesToBeDeletedPerPartition", _string_map({"type": "array", "items": _string()})),
        _version(),
        {
            "name": "filePathsToBeDeletedPerPartition",
            "type": ["null", _string_map({"type": "array", "items": _CLEAN_FILE_INFO})],
            "doc": "This field replaces the field filesToBeDeletedPerPartition",
            "default": None,
        },
        {
            "name": "partitionsToBeDeleted",
            "type": ["null", {"type": "array", "items": _string()}],
            "doc": "partitions to be deleted",
            "default": None,
        },
        _optional("extraMetadata", _string_map(_string(), default_in_type=True)),
    ],
}

_CLEAN_PARTITION_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieCleanPartitionMetadata",
    "fields": [
        _required("partitionPath", _string()),
        _required("policy", _string()),
        _required("deletePathPatterns", {"type": "array", "items": _string()}),
        _required("successDeleteFiles", {"type": "array", "items": _string()}),
        _required("failedDeleteFiles", {"type": "array", "items": _string()}),
        _optional("isPartitionDeleted", "boolean"),
    ],
}

CLEAN_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieCleanMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _required("startCleanTime", _string()),
        _required("timeTakenInMillis", "long"),
        _required("totalFilesDeleted", "int"),
        _required("earliestCommitToRetain", _string()),
        {"name": "lastCompletedCommitTimestamp", "type": _string(), "default": ""},
        _required("partitionMetadata", _string_map(_CLEAN_PARTITION_METADATA)),
        _version(),
        _optional("bootstrapPartitionMetadata", _string_map("HoodieCleanPartitionMetadata", default_in_type=True)),
        _optional("extraMetadata", _string_map(_string(), default_in_type=True)),
    ],
}

SAVEPOINT_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieSavepointMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _required("savepointedBy", _string()),
        _required("savepointedAt", "long"),
        _required("comments", _string()),
        _required(
            "partitionMetadata",
            _string_map(
                {
                    "type": "record",
                    "name": "HoodieSavepointPartitionMetadata",
                    "fields": [
                        _required("partitionPath", _string()),
                        _required("savepointDataFile", {"type": "array", "items": _string()}),
                    ],
                }
            ),
        ),
        _version(),
    ],
}

RESTORE_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieRestorePlan",
    "namespace": NAMESPACE,
    "fields": [
        {
            "name": "instantsToRollback",
            "type": {"type": "array", "items": _INSTANT_INFO, "default": None},
            "default": [],
        },
        {"name": "version", "type": ["int", "null"], "default": 2},
        # Hudi >= 0.14 writes this field (the saved .avsc lags); the null default on a union whose
        # first branch is string is Hudi's own.
        {"name": "savepointToRestoreTimestamp", "type": [_string(), "null"], "default": None},
    ],
}

RESTORE_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieRestoreMetadata",
    "namespace": NAMESPACE,
    "fields": [
        _required("startRestoreTime", _string()),
        _required("timeTakenInMillis", "long"),
        _required("instantsToRollback", {"type": "array", "items": _string()}),
        _required(
            "hoodieRestoreMetadata",
            _string_map({"type": "array", "items": ["null", ROLLBACK_METADATA], "default": None}),
        ),
        _version(),
        {
            "name": "restoreInstantInfo",
            "type": {"type": "array", "items": "HoodieInstantInfo", "default": None},
            "default": [],
        },
    ],
}


# Building metadata-table partitions on an existing table: the `indexing` action.
INDEX_PARTITION_INFO: JsonSchema = {
    "type": "record",
    "name": "HoodieIndexPartitionInfo",
    "namespace": NAMESPACE,
    "fields": [
        {"name": "version", "type": ["int", "null"], "default": 1},
        _optional("metadataPartitionPath", _string()),
        _optional("indexUptoInstant", _string()),
        _optional("extraMetadata", _string_map(_string())),
    ],
}

INDEX_PLAN: JsonSchema = {
    "type": "record",
    "name": "HoodieIndexPlan",
    "namespace": NAMESPACE,
    "fields": [
        {"name": "version", "type": ["int", "null"], "default": 1},
        _optional("indexPartitionInfos", {"type": "array", "items": INDEX_PARTITION_INFO}),
    ],
}

INDEX_COMMIT_METADATA: JsonSchema = {
    "type": "record",
    "name": "HoodieIndexCommitMetadata",
    "namespace": NAMESPACE,
    "fields": [
        {"name": "version", "type": ["int", "null"], "default": 1},
        _optional("operationType", _string()),
        _optional("indexPartitionInfos", {"type": "array", "items": INDEX_PARTITION_INFO}),
    ],
}
