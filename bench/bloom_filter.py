"""Benchmark: building, serializing and probing Hudi bloom filters (hudi_core.file_group.base_file.bloom_filter).

Run: `python -m bench.bloom_filter [--repeat N]`. Uses random UUID record keys and Hudi's default
filter (DYNAMIC_V0, 60000 entries, fpp 1e-9, at most 100000 entries): 60k keys (one full row) and
1M keys (two rows, the rest round-robin, as Hudi does past the bound). Prints seconds per step;
the best of `--repeat` runs is shown next to the first (a fresh process also pays for touching
new memory).
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from hudi_core.file_group.base_file.bloom_filter import BloomFilter


def _uuids(count: int, seed: int) -> pa.Array:
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 2**63, size=(count, 2), dtype=np.int64)
    return pa.array([str(uuid.UUID(int=(int(hi) << 64) | int(lo))) for hi, lo in raw])


def _timed(step: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times[0], min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    million = _uuids(1_000_000, seed=1)
    others = _uuids(1_000_000, seed=2)
    sixty_k = million.slice(0, 60_000)

    def build(keys: pa.Array) -> BloomFilter:
        bloom = BloomFilter.create()
        bloom.add_keys(keys)
        return bloom

    small, large = build(sixty_k), build(million)
    footer = small.serialize()
    rows: list[tuple[str, tuple[float, float]]] = [
        ("add_keys 60k uuids", _timed(lambda: build(sixty_k), args.repeat)),
        ("add_keys 1M uuids", _timed(lambda: build(million), args.repeat)),
        ("serialize (60k filter)", _timed(small.serialize, args.repeat)),
        ("deserialize (60k filter)", _timed(lambda: BloomFilter.deserialize(footer), args.repeat)),
        ("might_contain 1M absent keys (60k filter)", _timed(lambda: small.might_contain(others), args.repeat)),
        ("might_contain 1M present keys (1M filter)", _timed(lambda: large.might_contain(million), args.repeat)),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'step':<{width}}  first s   best s")
    for name, (first, best) in rows:
        print(f"{name:<{width}}  {first:7.3f}  {best:7.3f}")
    false_positives = int(small.might_contain(others).sum())
    print(f"false positives of the 60k filter on 1M absent keys: {false_positives}")
    print(f"keys of the 1M filter found: {int(large.might_contain(million).sum())} / {len(million)}")


if __name__ == "__main__":
    main()
