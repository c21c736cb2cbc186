"""Every option value is checked by its declaration: numbers against a range, closed sets of names
against the set, and options against each other; a bad value is a HudiConfigError naming the key
the user set. Driven from the registry, so an option declared later is covered without a new test."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from hudi_core.config import (
    ConfigOption,
    HudiConfigs,
    NumberRange,
    OptionStatus,
    parse_int,
    registered_options,
    validate_options,
)
from hudi_core.errors import HudiConfigError


def _implemented() -> list[ConfigOption[Any]]:
    unique = {id(o): o for o in registered_options().values() if o.status is OptionStatus.IMPLEMENTED}
    return sorted(unique.values(), key=lambda o: o.key)


RANGED = [o for o in _implemented() if o.value_range is not None]
# Integer options whose own parser already accepts exactly the values this build writes.
STRICT_INTEGERS = {"hoodie.write.table.version"}


def _outside(value_range: NumberRange[Any]) -> list[str]:
    """Raw values just outside the range, and values that are no number."""
    step = 1 if value_range.number is int else 0.0
    values: list[Any] = []
    if value_range.low is not None:
        values.append(value_range.low - step)
        values.append(-1 if value_range.low > -1 else value_range.low - 1000)
    if value_range.high is not None:
        values.append(value_range.high + step)
    return [*sorted({str(v) for v in values}), "", "ten", "1.5e400" if value_range.number is float else "1.5"]


def _numeric(spec: ConfigOption[Any]) -> bool:
    default = spec.default
    return spec.parser in (parse_int, int, float) or (
        isinstance(default, (int, float)) and not isinstance(default, bool)
    )


def test_every_implemented_numeric_option_declares_a_range() -> None:
    unranged = [o.key for o in _implemented() if _numeric(o) and o.value_range is None and o.key not in STRICT_INTEGERS]
    assert unranged == []
    assert len(RANGED) >= 50


@pytest.mark.parametrize("spec", RANGED, ids=lambda o: o.key)
def test_default_and_bounds_are_in_range(spec: ConfigOption[Any]) -> None:
    value_range = spec.value_range
    assert value_range is not None
    if spec.default is not None:
        assert value_range.contains(spec.default), spec.default
    for bound in (value_range.low, value_range.high):
        if bound is not None and not value_range.exclusive:
            assert spec.parse(str(bound)) == bound


@pytest.mark.parametrize("spec", RANGED, ids=lambda o: o.key)
def test_values_outside_the_range_are_refused_naming_the_key(spec: ConfigOption[Any]) -> None:
    value_range = spec.value_range
    assert value_range is not None
    for key in (spec.key, *spec.aliases):
        for raw in _outside(value_range):
            with pytest.raises(HudiConfigError, match=rf"invalid value '{raw}' for option {key}: expected "):
                validate_options({key: raw})


def test_range_messages_say_what_is_expected() -> None:
    with pytest.raises(HudiConfigError, match=r"hoodie\.cleaner\.commits\.retained: expected an integer >= 1$"):
        validate_options({"hoodie.cleaner.commits.retained": "-3"})
    with pytest.raises(
        HudiConfigError, match=r"hoodie\.write\.lock\.zookeeper\.port: expected an integer >= 1 and <= 65535"
    ):
        validate_options({"hoodie.write.lock.zookeeper.port": "70000"})
    with pytest.raises(HudiConfigError, match=r"hoodie\.index\.bloom\.fpp: expected a number > 0.0 and < 1.0"):
        validate_options({"hoodie.index.bloom.fpp": "1"})
    # Read through HudiConfigs too, under the alias set.
    with pytest.raises(HudiConfigError, match=r"invalid value '0' for option hoodie\.cleaner\.fileversions\.retained"):
        HudiConfigs({"hoodie.cleaner.fileversions.retained": "0"}).get(
            registered_options()["hoodie.clean.fileversions.retained"]
        )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hoodie.index.type", "HBASE_ISH"),
        ("hoodie.index.bucket.engine", "FANCY"),
        ("hoodie.bloom.index.filter.type", "DYNAMIC_V1"),
        ("hoodie.parquet.compression.codec", "lzma"),
        ("hoodie.layout.optimize.strategy", "spiral"),
        ("hoodie.layout.optimize.curve.build.method", "GUESS"),
        ("hoodie.clean.trigger.strategy", "NUM_HOURS"),
        (
            "hoodie.clustering.updates.strategy",
            "org.apache.hudi.client.clustering.update.strategy.SparkAllowUpdateStrategy",
        ),
        ("hoodie.keygen.timebased.timestamp.type", "EPOCH_DAYS"),
        ("hoodie.keygen.timebased.timestamp.scalar.time.unit", "FORTNIGHTS"),
        ("hoodie.datasource.write.keygenerator.type", "FOO"),
        ("hoodie.datasource.write.keygenerator.class", "com.example.MyKeyGenerator"),
        ("hoodie.datasource.write.payload.class", "com.example.MyPayload"),
    ],
)
def test_names_outside_a_closed_set_are_refused(key: str, value: str) -> None:
    with pytest.raises(HudiConfigError, match=rf"invalid value '{value}' for option {key}: "):
        validate_options({key: value})


def test_closed_sets_accept_hudi_spellings() -> None:
    specs = registered_options()
    assert specs["hoodie.parquet.compression.codec"].parse("UNCOMPRESSED") == "none"
    assert specs["hoodie.parquet.compression.codec"].parse("Snappy") == "snappy"
    assert specs["hoodie.index.type"].parse(" global_bloom ") == "GLOBAL_BLOOM"
    assert specs["hoodie.layout.optimize.strategy"].parse("z-order") == "z-order"
    update = "org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy"
    assert specs["hoodie.clustering.updates.strategy"].parse(update) == update
    validate_options({"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"})


def test_archival_must_keep_more_than_its_minimum() -> None:
    with pytest.raises(
        HudiConfigError, match=r"hoodie\.keep\.max\.commits=20 must be greater than hoodie\.keep\.min\.commits=20"
    ):
        validate_options({"hoodie.keep.max.commits": "20"})
    with pytest.raises(HudiConfigError, match=r"hoodie\.keep\.max\.commits=5 must be greater than"):
        validate_options({"hoodie.keep.min.commits": "6", "hoodie.keep.max.commits": "5"})
    # As in Hudi, the relation only holds for KEEP_LATEST_COMMITS.
    validate_options({"hoodie.keep.max.commits": "5", "hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS"})
    validate_options({"hoodie.keep.min.commits": "6", "hoodie.keep.max.commits": "7"})


def test_archival_minimum_below_cleaner_retention_warns_as_hudi_does(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hudi_core.config"):
        validate_options(
            {"hoodie.keep.min.commits": "7", "hoodie.keep.max.commits": "8", "hoodie.clean.commits.retained": "9"}
        )
    assert any(
        "hoodie.keep.min.commits=7" in r.getMessage() and "hoodie.clean.commits.retained=9" in r.getMessage()
        for r in caplog.records
    )


def test_inline_compaction_either_runs_or_schedules() -> None:
    with pytest.raises(
        HudiConfigError, match=r"hoodie\.compact\.inline and hoodie\.compact\.schedule\.inline cannot both be true"
    ):
        validate_options({"hoodie.compact.inline": "true", "hoodie.compact.schedule.inline": "true"})
    validate_options({"hoodie.compact.inline": "true", "hoodie.compact.schedule.inline": "false"})
