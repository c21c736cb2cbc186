"""The catalog of Hudi 1.0.2 keys: well-formed, complete enough, and registered without clobbering."""

from __future__ import annotations

import logging
import re

import pytest

from hudi_core.config import OptionStatus, lookup, registered_options, validate_options
from hudi_core.config.catalog import _DECLARED, CATALOG, register_catalog
from hudi_core.errors import HudiConfigError

# Hudi 1.0.2's configuration reference lists 785 distinct keys besides the Flink/Kafka Connect engine
# options; with the 159 older spellings Hudi still accepts (132 of them hoodie.deltastreamer.*), 944.
MIN_DOCUMENTED_KEYS = 785
MIN_CATALOG_KEYS = 944

_KEY = re.compile(r"^(_\.|_)?hoodie\.[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*\.?$")
_BY_KEY = {key: (default, status, reason) for key, default, status, reason in CATALOG}


def test_register_catalog_is_idempotent_and_keeps_declared_options() -> None:
    declared = registered_options()
    register_catalog()
    first = registered_options()
    assert register_catalog() == 0
    second = registered_options()
    assert first.keys() == second.keys()
    assert all(second[key] is option for key, option in first.items())
    # Hand-declared options (and their aliases) are the very same objects as before.
    assert all(first[key] is option for key, option in declared.items())
    # Every catalog key is now known.
    assert all(lookup(key) is not None for key in _BY_KEY)


def test_catalog_keys_are_well_formed_and_unique() -> None:
    keys = [key for key, _default, _status, _reason in CATALOG]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    assert duplicates == []
    malformed = [key for key in keys if key != "as.of.instant" and not _KEY.match(key)]
    assert malformed == []
    for key, default, status, reason in CATALOG:
        assert status in (OptionStatus.IMPLEMENTED, OptionStatus.IGNORED, OptionStatus.UNSUPPORTED), key
        assert reason.strip(), key
        assert default is None or isinstance(default, str), key


def test_catalog_covers_hudi_1_0_2() -> None:
    assert len(_BY_KEY) >= MIN_CATALOG_KEYS
    documented = [key for key in _BY_KEY if "older spelling" not in _BY_KEY[key][2]]
    assert len(documented) >= MIN_DOCUMENTED_KEYS
    # Every documented Hudi Streamer key has its DeltaStreamer spelling too.
    streamer = [key for key in documented if key.startswith("hoodie.streamer.")]
    assert streamer
    assert all("hoodie.deltastreamer." + key.removeprefix("hoodie.streamer.") in _BY_KEY for key in streamer)


@pytest.mark.parametrize(
    ("key", "default", "status"),
    [
        ("hoodie.parquet.max.file.size", "125829120", OptionStatus.IMPLEMENTED),
        ("hoodie.parquet.small.file.limit", "104857600", OptionStatus.IMPLEMENTED),
        ("hoodie.bloom.index.filter.dynamic.max.entries", "100000", OptionStatus.IMPLEMENTED),
        ("hoodie.upsert.shuffle.parallelism", "0", OptionStatus.IGNORED),
        ("hoodie.bulkinsert.shuffle.parallelism", "0", OptionStatus.IGNORED),
        ("hoodie.datasource.hive_sync.enable", "false", OptionStatus.IMPLEMENTED),
        ("hoodie.datasource.hive_sync.jdbcurl", "jdbc:hive2://localhost:10000", OptionStatus.IGNORED),
        ("hoodie.clean.commits.retained", "10", OptionStatus.IMPLEMENTED),
        ("hoodie.cleaner.commits.retained", "10", OptionStatus.IMPLEMENTED),
        ("hoodie.keep.max.commits", "30", OptionStatus.IMPLEMENTED),
        ("hoodie.keep.min.commits", "20", OptionStatus.IMPLEMENTED),
        ("hoodie.metadata.compact.max.delta.commits", "10", OptionStatus.IMPLEMENTED),
        ("hoodie.compact.inline.max.delta.commits", "5", OptionStatus.IMPLEMENTED),
        ("hoodie.clustering.plan.strategy.small.file.limit", "314572800", OptionStatus.IMPLEMENTED),
        ("hoodie.metrics.on", "false", OptionStatus.IGNORED),
        ("hoodie.embed.timeline.server", "true", OptionStatus.IGNORED),
        ("hoodie.write.lock.provider", None, OptionStatus.IMPLEMENTED),
        ("hoodie.index.hbase.zkquorum", None, OptionStatus.UNSUPPORTED),
        ("hoodie.bootstrap.base.path", None, OptionStatus.UNSUPPORTED),
        ("hoodie.streamer.source.kafka.topic", None, OptionStatus.UNSUPPORTED),
        ("hoodie.deltastreamer.source.kafka.topic", None, OptionStatus.UNSUPPORTED),
        ("hoodie.orc.compression.codec", "ZLIB", OptionStatus.UNSUPPORTED),
        ("hoodie.write.concurrency.mode", "SINGLE_WRITER", OptionStatus.IMPLEMENTED),
        ("hoodie.deltastreamer.keygen.timebased.timestamp.type", None, OptionStatus.IMPLEMENTED),
        ("hoodie.datasource.read.incr.filters", "", OptionStatus.UNSUPPORTED),
    ],
)
def test_spot_checks_against_hudi_1_0_2_defaults(key: str, default: str | None, status: OptionStatus) -> None:
    assert _BY_KEY[key][:2] == (default, status)


def test_registered_catalog_options_carry_default_status_and_reason() -> None:
    register_catalog()
    from_catalog = 0
    for key, (default, status, reason) in _BY_KEY.items():
        option = lookup(key)
        assert option is not None
        if option.doc.startswith(reason):  # registered from the catalog, not declared by a family module
            from_catalog += 1
            assert (option.default, option.status) == (default, status), key
            assert option.parse(" raw ") == " raw "
            assert (default is None) or f"Hudi 1.0.2 default: {default!r}" in option.doc
    assert from_catalog >= MIN_CATALOG_KEYS // 2


def test_unknown_key_error_names_the_closest_catalog_key() -> None:
    register_catalog()
    with pytest.raises(HudiConfigError, match=r"did you mean hoodie\.upsert\.shuffle\.parallelism\?"):
        validate_options({"hoodie.upsert.shufle.parallelism": "8"})
    with pytest.raises(HudiConfigError, match=r"did you mean hoodie\.keep\.max\.commits\?"):
        validate_options({"hoodie.keep.max.comits": "40"})


def test_catalog_statuses_are_enforced(caplog: pytest.LogCaptureFixture) -> None:
    register_catalog()
    with caplog.at_level(logging.WARNING, logger="hudi_core.config"):
        validate_options({"hoodie.metrics.jmx.port": "9999"})  # ignored: warns, never raises
    with pytest.raises(HudiConfigError, match=r"hoodie\.index\.hbase\.zkquorum is not supported"):
        validate_options({"hoodie.index.hbase.zkquorum": "zk1:2181"})
    assert all("hoodie.metrics.jmx.port" in r.getMessage() for r in caplog.records)


def test_catalog_entries_agree_with_the_declarations() -> None:
    """An entry marked declared is declared in its family module, with the same status; every other
    entry is registered from the catalog, so no reason here speaks of a key the code declares."""
    for key, _default, status, reason in CATALOG:
        option = lookup(key)
        assert option is not None, key
        registered_here = option.key == key and (option.doc or "").startswith(reason)
        if reason.endswith(_DECLARED):
            assert not registered_here and option.status is status, (key, option.status, status)
        else:
            assert registered_here, (key, "declared in a family module: mark its entry declared")


def test_older_spellings_of_implemented_keys_are_their_aliases() -> None:
    """Hudi reads an older spelling as its new key: ignoring one would drop what the user asked."""
    for key, _default, _status, reason in CATALOG:
        found = re.match(r"older spelling of (\S+);", reason)
        if found is None:
            continue
        new = lookup(found.group(1))
        if new is None or new.status is not OptionStatus.IMPLEMENTED:
            continue
        # The old view type spells the snapshot query "realtime": refused, naming the new key.
        if key == "hoodie.datasource.view.type":
            assert lookup(key).status is OptionStatus.UNSUPPORTED
            continue
        assert lookup(key) is new, key
