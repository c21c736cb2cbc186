"""The bench holds a VM's free page reporting for a run and always gives the old order back."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.suite.page_reporting import NEVER_REPORTED_ORDER, held_page_reporting


def test_reporting_is_held_inside_the_run_and_restored_after(tmp_path: Path) -> None:
    parameter = tmp_path / "page_reporting_order"
    parameter.write_text("9\n")
    said: list[str] = []
    with held_page_reporting(said.append, parameter) as state:
        assert state == "held"
        assert parameter.read_text() == str(NEVER_REPORTED_ORDER)
    assert parameter.read_text() == "9"
    assert len(said) == 2


def test_the_order_is_restored_when_the_run_fails(tmp_path: Path) -> None:
    parameter = tmp_path / "page_reporting_order"
    parameter.write_text("9")
    with pytest.raises(RuntimeError), held_page_reporting(lambda _: None, parameter):
        raise RuntimeError("a measured child failed")
    assert parameter.read_text() == "9"


def test_a_machine_without_reporting_runs_as_it_is(tmp_path: Path) -> None:
    with held_page_reporting(lambda _: None, tmp_path / "absent") as state:
        assert state == "not reported by this machine"


def test_a_parameter_it_cannot_write_is_left_alone(tmp_path: Path) -> None:
    parameter = tmp_path / "page_reporting_order"
    parameter.write_text("9")
    parameter.chmod(0o444)
    try:
        with held_page_reporting(lambda _: None, parameter) as state:
            writable_anyway = state == "held"  # root writes read-only files
            assert writable_anyway or state.startswith("active (page_reporting_order 9")
        assert parameter.read_text() == "9"
    finally:
        parameter.chmod(0o644)


def test_reporting_held_before_the_run_is_left_as_it_was(tmp_path: Path) -> None:
    parameter = tmp_path / "page_reporting_order"
    parameter.write_text(f"{NEVER_REPORTED_ORDER}\n")
    said: list[str] = []
    with held_page_reporting(said.append, parameter) as state:
        assert state.startswith("held (page_reporting_order was 11")
    assert parameter.read_text() == f"{NEVER_REPORTED_ORDER}\n"
    assert said == []
