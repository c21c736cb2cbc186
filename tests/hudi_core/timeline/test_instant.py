from __future__ import annotations

import pytest

from hudi_core.errors import TimelineError
from hudi_core.timeline.instant import (
    Action,
    InstantFile,
    State,
    instant_file_name,
    normalize_instant_time,
    parse_instant_file_name,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("20250713010139392.commit.requested", InstantFile("20250713010139392", None, Action.COMMIT, State.REQUESTED)),
        ("20250713010139392.inflight", InstantFile("20250713010139392", None, Action.COMMIT, State.INFLIGHT)),
        (
            "20250713010139392_20250713010140981.commit",
            InstantFile("20250713010139392", "20250713010140981", Action.COMMIT, State.COMPLETED),
        ),
        ("20240418173550988.commit", InstantFile("20240418173550988", None, Action.COMMIT, State.COMPLETED)),
        (
            "20251220210129235.compaction.requested",
            InstantFile("20251220210129235", None, Action.COMPACTION, State.REQUESTED),
        ),
        (
            "20260307135709297.clustering.inflight",
            InstantFile("20260307135709297", None, Action.CLUSTERING, State.INFLIGHT),
        ),
        (
            "20250126040826878.deltacommit.inflight",
            InstantFile("20250126040826878", None, Action.DELTA_COMMIT, State.INFLIGHT),
        ),
    ],
)
def test_parse_instant_file_name_valid_names_parse(name: str, expected: InstantFile) -> None:
    assert parse_instant_file_name(name) == expected


@pytest.mark.parametrize(
    "name",
    ["hoodie.properties", ".aux", "20250713010139392.unknownaction", "20250713010139392_1.commit.requested", "x"],
)
def test_parse_instant_file_name_other_files_none(name: str) -> None:
    assert parse_instant_file_name(name) is None


@pytest.mark.parametrize("layout", [1, 2])
@pytest.mark.parametrize("state", list(State))
@pytest.mark.parametrize("action", [Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLEAN])
def test_instant_file_name_round_trips(layout: int, state: State, action: Action) -> None:
    completion = "20250101000000999" if layout == 2 and state is State.COMPLETED else None
    name = instant_file_name("20250101000000123", action, state, layout, completion)
    parsed = parse_instant_file_name(name)
    assert parsed == InstantFile("20250101000000123", completion, action, state)


def test_instant_file_name_completed_service_uses_completed_action() -> None:
    name = instant_file_name("20250101000000123", Action.COMPACTION, State.COMPLETED, 2, "20250101000001000")
    assert name == "20250101000000123_20250101000001000.commit"
    assert instant_file_name("1", Action.CLUSTERING, State.COMPLETED, 1) == "1.replacecommit"


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        ("20250101123456789", "20250101123456789"),
        ("20250101123456", "20250101123456000"),
        ("2025-01-01 12:34:56.789", "20250101123456789"),
        ("2025-01-01 12:34:56", "20250101123456000"),
        ("2025-01-01", "20250101000000000"),
        ("00000000000000", "00000000000000000"),
    ],
)
def test_normalize_instant_time_accepted_forms(given: str, normalized: str) -> None:
    assert normalize_instant_time(given) == normalized


@pytest.mark.parametrize("bad", ["2025", "20251301000000000", "yesterday", "2025-01-01T00:00:00"])
def test_normalize_instant_time_malformed_raises(bad: str) -> None:
    with pytest.raises(TimelineError, match="invalid instant time"):
        normalize_instant_time(bad)
