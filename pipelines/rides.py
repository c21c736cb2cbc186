"""Seeded ride events for the example lakehouse (numpy-vectorized; no Python loop per row)."""

from __future__ import annotations

import datetime as dt
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CITIES = ("san_francisco", "new_york", "sao_paulo", "berlin", "tokyo", "chennai")
STATUSES = ("completed", "completed", "completed", "cancelled")
SCHEMA = pa.schema(
    [
        ("ride_id", pa.string()),
        ("ts", pa.int64()),
        ("ride_date", pa.string()),
        ("city", pa.string()),
        ("rider", pa.string()),
        ("driver", pa.string()),
        ("distance_km", pa.float64()),
        ("fare", pa.float64()),
        ("status", pa.string()),
    ]
)


def _seed(*parts: object) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def _numbered(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "-")


def rides_for_day(day: str, rows: int) -> pa.Table:
    """`rows` rides picked up on `day` (YYYY-MM-DD); the same day always gives the same rides."""
    rng = np.random.default_rng(_seed("rides", day))
    start_ms = int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp() * 1000)
    numbers = pa.array(np.arange(rows)).cast(pa.string())
    distance = np.round(rng.gamma(2.0, 3.0, rows), 3)
    return pa.table(
        {
            "ride_id": pc.binary_join_element_wise(f"ride-{day}", numbers, "-"),
            "ts": start_ms + rng.integers(0, 86_400_000, rows),
            "ride_date": pa.array([day] * rows, pa.string()),
            "city": pc.take(pa.array(CITIES), rng.integers(0, len(CITIES), rows)),
            "rider": _numbered("rider", rng.integers(0, 5000, rows)),
            "driver": _numbered("driver", rng.integers(0, 800, rows)),
            "distance_km": distance,
            "fare": np.round(2.5 + distance * rng.uniform(1.0, 3.0, rows), 2),
            "status": pc.take(pa.array(STATUSES), rng.integers(0, len(STATUSES), rows)),
        },
        schema=SCHEMA,
    )


def corrections(stored: pa.Table, fraction: float, seed: int) -> pa.Table:
    """Late fare corrections for `fraction` of the stored rides: same keys, later `ts`, new fares."""
    rng = np.random.default_rng(_seed("corrections", seed))
    count = max(1, round(stored.num_rows * fraction))
    chosen = stored.select(SCHEMA.names).take(pa.array(np.sort(rng.choice(stored.num_rows, count, replace=False))))
    fares = np.round(chosen.column("fare").to_numpy() * rng.uniform(0.8, 1.2, count), 2)
    chosen = chosen.set_column(SCHEMA.get_field_index("ts"), "ts", pc.add(chosen.column("ts"), 60_000))
    return chosen.set_column(SCHEMA.get_field_index("fare"), "fare", pa.array(fares))
