"""JSON images of CDC rows: valid JSON holding values the way Spark's Hudi CDC query renders them."""

from __future__ import annotations

import datetime
import decimal
import json
import math

import numpy as np
import pyarrow as pa

from hudi_core.table.cdc_images import json_images, struct_images


def test_flat_values() -> None:
    rows = pa.table(
        {
            "s": pa.array(["plain", 'quote " and \\ slash', "line\nbreak\ttab\x01", "ü-ñ 東京", None]),
            "i": pa.array([1, -2, None, 2**62, 0], pa.int64()),
            "f": pa.array([10.0, 0.1, float("nan"), float("inf"), 1e22]),
            "g": pa.array([1.5, None, -float("inf"), 1e-7, -0.0], pa.float32()),
            "b": pa.array([True, False, None, True, False]),
            "d": pa.array([datetime.date(1970, 1, 2), None, datetime.date(2024, 3, 1), None, None]),
            "t": pa.array(
                [datetime.datetime(1970, 1, 1, 0, 0, 1, 5, tzinfo=datetime.UTC), None, None, None, None],
                pa.timestamp("us", tz="UTC"),
            ),
            "m": pa.array(
                [decimal.Decimal("-116.90"), None, decimal.Decimal("0.05"), None, None], pa.decimal128(10, 2)
            ),
            "x": pa.array([b"\x00\xff", None, b"", None, None]),
        }
    )
    texts = json_images(rows, np.array([True, True, True, True, False])).to_pylist()
    assert texts[4] is None
    parsed = [json.loads(t) for t in texts[:4]]
    assert list(parsed[0]) == rows.column_names  # table order
    assert [p["s"] for p in parsed] == ["plain", 'quote " and \\ slash', "line\nbreak\ttab\x01", "ü-ñ 東京"]
    assert "ü-ñ 東京" in texts[3]  # raw UTF-8, as Jackson writes it
    assert [p["i"] for p in parsed] == [1, -2, None, 2**62]
    assert parsed[0]["f"] == 10.0 and isinstance(parsed[0]["f"], float)
    assert parsed[1]["f"] == 0.1 and parsed[2]["f"] == "NaN" and parsed[3]["f"] == "Infinity"
    assert parsed[2]["g"] == "-Infinity" and math.isclose(parsed[3]["g"], 1e-7, rel_tol=1e-6)
    assert [p["b"] for p in parsed] == [True, False, None, True]
    assert parsed[0]["d"] == 1 and parsed[2]["d"] == (datetime.date(2024, 3, 1) - datetime.date(1970, 1, 1)).days
    assert parsed[0]["t"] == 1_000_005
    assert parsed[0]["m"] == "-116.90" and parsed[2]["m"] == "0.05"
    assert parsed[0]["x"] == "AP8=" and parsed[2]["x"] == ""


def test_nested_values() -> None:
    point = pa.struct([("x", pa.float64()), ("when", pa.date32())])
    rows = pa.table(
        {
            "p": pa.array([{"x": 1.0, "when": datetime.date(1970, 1, 3)}, None], point),
            "l": pa.array([[1, None, 3], None], pa.list_(pa.int32())),
            "mp": pa.array([[("a", 1)], []], pa.map_(pa.string(), pa.int64())),
        }
    )
    parsed = [json.loads(t) for t in json_images(rows, np.array([True, True])).to_pylist()]
    assert parsed[0] == {"p": {"x": 1.0, "when": 2}, "l": [1, None, 3], "mp": {"a": 1}}
    assert parsed[1] == {"p": None, "l": None, "mp": {}}


def test_struct_images_keep_types() -> None:
    rows = pa.table({"a": [1, 2], "b": ["x", None]})
    images = struct_images(rows, np.array([False, True]))
    assert images.to_pylist() == [None, {"a": 2, "b": None}]
    assert images.type == pa.struct(list(rows.schema))
