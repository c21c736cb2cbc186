"""The merge behaviour a table asks for: merge mode, partial updates and delete markers (RFC-97).

Table version 9 persists it as properties: `hoodie.record.merge.mode`,
`hoodie.table.partial.update.mode` and the `hoodie.record.merge.property.hoodie.payload.delete.*`
marker. Older tables (version 8 with merge mode CUSTOM, version 6) name a payload class instead;
the payloads Apache Hudi ships stand for the same behaviours, as its upgrade to version 9 maps
them. Anything else (a custom merger, a payload with other semantics, another partial-update
mode) is refused with an error naming it: merging by another rule would return wrong rows.
"""

from __future__ import annotations

from hudi_core.config.table import (
    BUILT_IN_PAYLOADS,
    HudiTableConfig,
    MergeBehaviour,
    RecordMergeMode,
    TableConfig,
)
from hudi_core.errors import UnsupportedFeatureError


def merge_behaviour(config: TableConfig, where: str = "the table") -> MergeBehaviour:
    """The merge behaviour `config` persists.

    Raises:
        UnsupportedFeatureError: the table merges by a rule not implemented here, named.
    """
    payload = (config.payload_class or "").strip() or None
    if config.record_merge_mode is RecordMergeMode.CUSTOM:
        if payload is None or payload not in BUILT_IN_PAYLOADS:
            merger = f"payload class {payload}" if payload else "a custom record merger"
            raise UnsupportedFeatureError(
                f"{where} merges records with {merger}, which is not supported "
                f"(supported payload classes: {', '.join(sorted(BUILT_IN_PAYLOADS))})"
            )
        behaviour = BUILT_IN_PAYLOADS[payload]
    else:
        behaviour = MergeBehaviour(config.record_merge_mode)
    partial_key = HudiTableConfig.PARTIAL_UPDATE_MODE.key
    partial_mode = (config.raw.get(partial_key) or "").strip().upper()
    if partial_mode not in ("", "NONE", "IGNORE_DEFAULTS"):
        raise UnsupportedFeatureError(
            f"{where} merges partial updates with {partial_key}={partial_mode}, which is not supported "
            f"(supported: IGNORE_DEFAULTS){f' (payload class {payload})' if payload else ''}"
        )
    field_key, marker_key = HudiTableConfig.MERGE_DELETE_FIELD.key, HudiTableConfig.MERGE_DELETE_MARKER.key
    delete_field = config.raw.get(field_key) or behaviour.delete_field
    delete_marker = config.raw.get(marker_key) or behaviour.delete_marker
    if (delete_field is None) != (delete_marker is None):
        raise UnsupportedFeatureError(
            f"{where} names a delete field or marker without the other ({field_key}, {marker_key})"
        )
    return MergeBehaviour(
        behaviour.mode,
        ignore_defaults=behaviour.ignore_defaults or partial_mode == "IGNORE_DEFAULTS",
        delete_field=delete_field,
        delete_marker=delete_marker,
    )
