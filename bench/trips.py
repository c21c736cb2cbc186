"""A seeded, vectorized trips-like data generator shared by the benchmarks.

`trips(rows)` gives a table shaped like Hudi's quickstart trips (about 200 bytes per row in memory):

=================  ====================  ==============================================
column             type                  values
=================  ====================  ==============================================
uuid               string                random version-4 UUIDs (the record key)
ts                 int64                 epoch milliseconds of the pickup (ordering)
city               string                one of `partitions` cities (the partition)
rider, driver      string                `rider-NNNNNN` / `driver-NNNNN` from fixed pools
fare, tip, tolls   double                dollars
begin_lat/lon ...  double                pickup and drop-off coordinates
distance_km        double
passengers         int32                 1 to 6
rate_code          int32                 1 to 6 (mostly 1)
duration_s         int64                 trip seconds
is_shared          bool
payment_type       string                card, cash, wallet, voucher
trip_date          date32                the pickup day (UTC)
pickup_at          timestamp[us, UTC]    the pickup instant (same as `ts`)
=================  ====================  ==============================================

Everything is built with numpy and Arrow kernels (no Python loop per row): a million rows take about
half a second (a second in a fresh process, which first has to touch its memory). `updates(base, ...)`
derives an upsert batch from a generated table. Both are deterministic for a given seed.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CITIES: tuple[str, ...] = (
    "san_francisco",
    "sao_paulo",
    "chennai",
    "new_york",
    "amsterdam",
    "berlin",
    "tokyo",
    "lagos",
    "mumbai",
    "paris",
    "london",
    "sydney",
    "toronto",
    "mexico_city",
    "seoul",
    "cairo",
    "madrid",
    "jakarta",
    "istanbul",
    "buenos_aires",
)
PAYMENT_TYPES: tuple[str, ...] = ("card", "cash", "wallet", "voucher")
START_MS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
SPAN_MS = 30 * 86_400_000  # pickups spread over 30 days
RIDERS = 100_000
DRIVERS = 20_000

SCHEMA = pa.schema(
    [
        pa.field("uuid", pa.string()),
        pa.field("ts", pa.int64()),
        pa.field("city", pa.string()),
        pa.field("rider", pa.string()),
        pa.field("driver", pa.string()),
        pa.field("fare", pa.float64()),
        pa.field("tip", pa.float64()),
        pa.field("tolls", pa.float64()),
        pa.field("begin_lat", pa.float64()),
        pa.field("begin_lon", pa.float64()),
        pa.field("end_lat", pa.float64()),
        pa.field("end_lon", pa.float64()),
        pa.field("distance_km", pa.float64()),
        pa.field("passengers", pa.int32()),
        pa.field("rate_code", pa.int32()),
        pa.field("duration_s", pa.int64()),
        pa.field("is_shared", pa.bool_()),
        pa.field("payment_type", pa.string()),
        pa.field("trip_date", pa.date32()),
        pa.field("pickup_at", pa.timestamp("us", tz="UTC")),
    ]
)

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_DASHES = (8, 13, 18, 23)  # positions of '-' in the 36-character text form


def city_names(partitions: int) -> list[str]:
    """The city (partition) values of a table generated with `partitions` cities, in generator order."""
    if partitions <= len(CITIES):
        return list(CITIES[:partitions])
    return [*CITIES, *(f"city_{i:03d}" for i in range(len(CITIES), partitions))]


def _fixed_width_strings(chars: np.ndarray) -> pa.Array:
    """A string array from an (n, width) uint8 array of ASCII characters, without a Python loop."""
    rows, width = chars.shape
    offsets = np.arange(0, (rows + 1) * width, width, dtype=np.int32)
    data = np.ascontiguousarray(chars).reshape(-1)
    return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(data))


def uuids(rng: np.random.Generator, rows: int) -> pa.Array:
    """`rows` random version-4 UUIDs in their 36-character text form."""
    raw = rng.integers(0, 256, size=(rows, 16), dtype=np.uint8)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    nibbles = np.empty((rows, 32), dtype=np.uint8)
    nibbles[:, 0::2] = raw >> 4
    nibbles[:, 1::2] = raw & 0x0F
    hex_chars = _HEX[nibbles]
    text = np.full((rows, 36), ord("-"), dtype=np.uint8)
    source = 0
    target = 0
    for dash in (*_DASHES, 36):
        count = dash - target
        text[:, target:dash] = hex_chars[:, source : source + count]
        source += count
        target = dash + 1
    return _fixed_width_strings(text)


def _numbered(prefix: str, count: int, digits: int) -> pa.Array:
    """`prefix` + a zero-padded number, for numbers 0 .. count-1 (a pool to take values from)."""
    numbers = np.arange(count, dtype=np.int64)
    chars = np.empty((count, len(prefix) + digits), dtype=np.uint8)
    chars[:, : len(prefix)] = np.frombuffer(prefix.encode(), dtype=np.uint8)
    for position in range(digits):
        chars[:, len(prefix) + digits - 1 - position] = ord("0") + (numbers // 10**position) % 10
    return _fixed_width_strings(chars)


_RIDER_POOL = _numbered("rider-", RIDERS, 6)
_DRIVER_POOL = _numbered("driver-", DRIVERS, 5)


def _columns(rng: np.random.Generator, rows: int, city_index: np.ndarray, cities: list[str]) -> dict[str, pa.Array]:
    pickup_ms = START_MS + rng.integers(0, SPAN_MS, rows, dtype=np.int64)
    begin_lat = rng.uniform(-60.0, 70.0, rows)
    begin_lon = rng.uniform(-180.0, 180.0, rows)
    end_lat = begin_lat + rng.normal(0.0, 0.05, rows)
    end_lon = begin_lon + rng.normal(0.0, 0.05, rows)
    distance = np.round(rng.gamma(2.0, 3.0, rows), 3)
    fare = np.round(2.5 + distance * rng.uniform(1.0, 3.0, rows), 2)
    tip = np.round(fare * rng.choice([0.0, 0.1, 0.15, 0.2], rows), 2)
    return {
        "uuid": uuids(rng, rows),
        "ts": pa.array(pickup_ms),
        "city": pc.take(pa.array(cities, pa.string()), pa.array(city_index)),
        "rider": pc.take(_RIDER_POOL, pa.array(rng.integers(0, RIDERS, rows))),
        "driver": pc.take(_DRIVER_POOL, pa.array(rng.integers(0, DRIVERS, rows))),
        "fare": pa.array(fare),
        "tip": pa.array(tip),
        "tolls": pa.array(np.where(rng.random(rows) < 0.1, np.round(rng.uniform(1.0, 15.0, rows), 2), 0.0)),
        "begin_lat": pa.array(begin_lat),
        "begin_lon": pa.array(begin_lon),
        "end_lat": pa.array(end_lat),
        "end_lon": pa.array(end_lon),
        "distance_km": pa.array(distance),
        "passengers": pa.array(rng.integers(1, 7, rows, dtype=np.int32)),
        "rate_code": pa.array(rng.choice(np.array([1, 1, 1, 1, 2, 3, 4, 5, 6], dtype=np.int32), rows)),
        "duration_s": pa.array((distance * rng.uniform(90.0, 240.0, rows)).astype(np.int64)),
        "is_shared": pa.array(rng.random(rows) < 0.2),
        "payment_type": pc.take(pa.array(PAYMENT_TYPES, pa.string()), pa.array(rng.integers(0, 4, rows))),
        "trip_date": pa.array((pickup_ms // 86_400_000).astype(np.int32), pa.date32()),
        "pickup_at": pa.array(pickup_ms * 1000, pa.timestamp("us", tz="UTC")),
    }


def trips(rows: int, seed: int = 42, partitions: int = 20) -> pa.Table:
    """`rows` trips spread uniformly over `partitions` cities (see the module docstring).

    Args:
        rows: number of rows.
        seed: the numpy seed; the same arguments always give the same table.
        partitions: number of distinct `city` values (the first ones of :data:`CITIES`, then `city_NNN`).
    """
    rng = np.random.default_rng(seed)
    cities = city_names(partitions)
    city_index = rng.integers(0, partitions, rows)
    return pa.Table.from_pydict(_columns(rng, rows, city_index, cities), schema=SCHEMA)


def updates(
    base: pa.Table,
    fraction: float,
    new_fraction: float,
    seed: int,
    concentrated_partitions: int | None = None,
) -> pa.Table:
    """An upsert batch for `base` (a table from :func:`trips`).

    Args:
        base: the stored rows.
        fraction: share of `base`'s keys to update: their `ts` grows (by 1 ms to 1 h) and their `fare`
            changes; the other columns keep their values.
        new_fraction: new keys to add, as a share of `base`'s row count.
        seed: the numpy seed; the same arguments always give the same batch.
        concentrated_partitions: when given, updated and new rows come only from the first N cities
            (in :func:`city_names` order, i.e. the hot partitions); otherwise updates are drawn
            uniformly from all rows and new rows spread over all cities.

    Returns:
        The updated rows followed by the new rows, shuffled, in `base`'s schema.
    """
    rng = np.random.default_rng(seed)
    cities = sorted(set(base.column("city").unique().to_pylist()), key=_city_order)
    if concentrated_partitions is not None:
        cities = cities[: max(1, concentrated_partitions)]
        candidates = np.flatnonzero(pc.is_in(base.column("city"), pa.array(cities)).to_numpy(zero_copy_only=False))
    else:
        candidates = np.arange(base.num_rows)
    wanted = min(round(fraction * base.num_rows), len(candidates))
    chosen = np.sort(rng.choice(candidates, size=wanted, replace=False))
    updated = base.take(pa.array(chosen))
    bumped = pc.add(updated.column("ts"), pa.array(rng.integers(1, 3_600_000, wanted, dtype=np.int64)))
    fares = np.round(updated.column("fare").to_numpy() * rng.uniform(1.05, 1.5, wanted) + 0.01, 2)
    updated = updated.set_column(base.schema.get_field_index("ts"), "ts", bumped)
    updated = updated.set_column(base.schema.get_field_index("fare"), "fare", pa.array(fares))
    new_rows = round(new_fraction * base.num_rows)
    parts = [updated]
    if new_rows:
        city_index = rng.integers(0, len(cities), new_rows)
        fresh = pa.Table.from_pydict(_columns(rng, new_rows, city_index, cities), schema=SCHEMA)
        parts.append(fresh.select(base.column_names).cast(base.schema))
    batch = pa.concat_tables(parts).combine_chunks()
    return batch.take(pa.array(rng.permutation(batch.num_rows)))


def _city_order(city: str) -> tuple[int, str]:
    known = {name: i for i, name in enumerate(CITIES)}
    return (known.get(city, len(CITIES)), city)
