"""The merge behaviour of a table from its properties: version 9's merge properties, version 8's
merge mode CUSTOM with a payload class, version 6's payload class; anything else refused."""

from __future__ import annotations

import pytest

from hudi_core.config.table import RecordMergeMode, TableConfig
from hudi_core.errors import UnsupportedFeatureError
from hudi_core.merge.behaviour import merge_behaviour

MODEL = "org.apache.hudi.common.model."
BASE = {
    "hoodie.table.name": "t",
    "hoodie.table.type": "MERGE_ON_READ",
    "hoodie.table.recordkey.fields": "id",
    "hoodie.table.ordering.fields": "ts",
    "hoodie.timeline.layout.version": "2",
}
COMMIT, EVENT = RecordMergeMode.COMMIT_TIME_ORDERING, RecordMergeMode.EVENT_TIME_ORDERING


def config(version: int, **props: str) -> TableConfig:
    layout = "2" if version >= 8 else "1"
    return TableConfig.from_properties(
        {**BASE, "hoodie.table.version": str(version), "hoodie.timeline.layout.version": layout, **props}, "test"
    )


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"hoodie.record.merge.mode": "EVENT_TIME_ORDERING"}, (EVENT, False, None, None)),
        (
            {
                "hoodie.record.merge.mode": "COMMIT_TIME_ORDERING",
                "hoodie.table.partial.update.mode": "IGNORE_DEFAULTS",
                "hoodie.table.legacy.payload.class": MODEL + "OverwriteNonDefaultsWithLatestAvroPayload",
            },
            (COMMIT, True, None, None),
        ),
        (
            {
                "hoodie.record.merge.mode": "COMMIT_TIME_ORDERING",
                "hoodie.record.merge.property.hoodie.payload.delete.field": "Op",
                "hoodie.record.merge.property.hoodie.payload.delete.marker": "D",
            },
            (COMMIT, False, "Op", "D"),
        ),
    ],
)
def test_version_9_properties_say_how_to_merge(props: dict[str, str], expected: tuple[object, ...]) -> None:
    behaviour = merge_behaviour(config(9, **props))
    assert (behaviour.mode, behaviour.ignore_defaults, behaviour.delete_field, behaviour.delete_marker) == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ("OverwriteWithLatestAvroPayload", (COMMIT, False, None)),
        ("DefaultHoodieRecordPayload", (EVENT, False, None)),
        ("OverwriteNonDefaultsWithLatestAvroPayload", (COMMIT, True, None)),
        ("PartialUpdateAvroPayload", (EVENT, True, None)),
        ("AWSDmsAvroPayload", (COMMIT, False, "Op")),
    ],
)
@pytest.mark.parametrize("version", [8, 6])
def test_built_in_payloads_stand_for_their_behaviour(payload: str, expected: tuple[object, ...], version: int) -> None:
    props = {"hoodie.compaction.payload.class": MODEL + payload}
    if version == 8:
        props["hoodie.record.merge.mode"] = "CUSTOM"
    behaviour = merge_behaviour(config(version, **props))
    assert (behaviour.mode, behaviour.ignore_defaults, behaviour.delete_field) == expected


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"hoodie.record.merge.mode": "CUSTOM", "hoodie.compaction.payload.class": "com.example.MyPayload"},
            r"payload class com\.example\.MyPayload, which is not supported",
        ),
        ({"hoodie.record.merge.mode": "CUSTOM"}, r"a custom record merger, which is not supported"),
        (
            {"hoodie.record.merge.mode": "EVENT_TIME_ORDERING", "hoodie.table.partial.update.mode": "FILL_UNAVAILABLE"},
            r"hoodie\.table\.partial\.update\.mode=FILL_UNAVAILABLE, which is not supported",
        ),
    ],
)
def test_merge_rules_not_implemented_are_refused_naming_them(props: dict[str, str], message: str) -> None:
    with pytest.raises(UnsupportedFeatureError, match=message):
        merge_behaviour(config(8, **props))
