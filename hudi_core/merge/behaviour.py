"""The merge behaviour a table asks for: merge mode, partial updates and delete markers (RFC-97).

Table version 9 persists it as properties: `hoodie.record.merge.mode`,
`hoodie.table.partial.update.mode` and the `hoodie.record.merge.property.hoodie.payload.delete.*`
marker. Older tables (version 8 with merge mode CUSTOM, version 6) name a payload class instead;
the payloads Apache Hudi ships stand for the same behaviours, as its upgrade to version 9 maps
them. Anything else (a custom merger, a payload with other semantics, another partial-update
mode) is refused with an error naming it: merging by another rule would return wrong rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_core.config.table import RecordMergeMode, TableConfig
from hudi_core.errors import UnsupportedFeatureError

PARTIAL_UPDATE_MODE_KEY = "hoodie.table.partial.update.mode"
DELETE_FIELD_KEY = "hoodie.record.merge.property.hoodie.payload.delete.field"
DELETE_MARKER_KEY = "hoodie.record.merge.property.hoodie.payload.delete.marker"
_MODEL = "org.apache.hudi.common.model."


@dataclass(frozen=True)
class MergeBehaviour:
    """How records of one key merge.

    Attributes:
        mode: COMMIT_TIME_ORDERING or EVENT_TIME_ORDERING.
        ignore_defaults: a winning record's null fields keep the value it replaces
            (partial update mode IGNORE_DEFAULTS).
        delete_field: a record whose `delete_field` equals `delete_marker` is a delete.
        delete_marker: see `delete_field`.
    """

    mode: RecordMergeMode
    ignore_defaults: bool = False
    delete_field: str | None = None
    delete_marker: str | None = None

    @property
    def plain(self) -> bool:
        """Whether writers need nothing beyond the merge mode (no partial updates or markers)."""
        return not self.ignore_defaults and self.delete_field is None


_COMMIT_TIME = MergeBehaviour(RecordMergeMode.COMMIT_TIME_ORDERING)
_EVENT_TIME = MergeBehaviour(RecordMergeMode.EVENT_TIME_ORDERING)

# The payload classes Apache Hudi ships whose behaviour is implemented, as its version-9 upgrade maps them.
BUILT_IN_PAYLOADS: dict[str, MergeBehaviour] = {
    _MODEL + "OverwriteWithLatestAvroPayload": _COMMIT_TIME,
    _MODEL + "DefaultHoodieRecordPayload": _EVENT_TIME,
    _MODEL + "EventTimeAvroPayload": _EVENT_TIME,
    _MODEL + "OverwriteNonDefaultsWithLatestAvroPayload": MergeBehaviour(
        RecordMergeMode.COMMIT_TIME_ORDERING, ignore_defaults=True
    ),
    _MODEL + "PartialUpdateAvroPayload": MergeBehaviour(RecordMergeMode.EVENT_TIME_ORDERING, ignore_defaults=True),
    _MODEL + "AWSDmsAvroPayload": MergeBehaviour(
        RecordMergeMode.COMMIT_TIME_ORDERING, delete_field="Op", delete_marker="D"
    ),
    # The metadata table's own payload: its reader merges metadata records itself.
    "org.apache.hudi.metadata.HoodieMetadataPayload": _COMMIT_TIME,
}


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
    partial_mode = (config.raw.get(PARTIAL_UPDATE_MODE_KEY) or "").strip().upper()
    if partial_mode not in ("", "NONE", "IGNORE_DEFAULTS"):
        raise UnsupportedFeatureError(
            f"{where} merges partial updates with {PARTIAL_UPDATE_MODE_KEY}={partial_mode}, which is not supported "
            f"(supported: IGNORE_DEFAULTS){f' (payload class {payload})' if payload else ''}"
        )
    delete_field = config.raw.get(DELETE_FIELD_KEY) or behaviour.delete_field
    delete_marker = config.raw.get(DELETE_MARKER_KEY) or behaviour.delete_marker
    if (delete_field is None) != (delete_marker is None):
        raise UnsupportedFeatureError(
            f"{where} names a delete field or marker without the other ({DELETE_FIELD_KEY}, {DELETE_MARKER_KEY})"
        )
    return MergeBehaviour(
        behaviour.mode,
        ignore_defaults=behaviour.ignore_defaults or partial_mode == "IGNORE_DEFAULTS",
        delete_field=delete_field,
        delete_marker=delete_marker,
    )
