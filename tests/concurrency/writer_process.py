"""A writer process of the multi-writer load test: random upserts for a bounded time.

Usage: python -m tests.concurrency.writer_process TABLE WRITER_ID SECONDS CITIES OUT OPTIONS_JSON

Every attempt is appended to OUT as a JSON line: the rows it upserted and either its instant and
completion time (acknowledged) or the instant that lost a conflict (rejected).
"""

from __future__ import annotations

import json
import random
import re
import sys
import time

import pyarrow as pa

from hudi_core import HudiTable
from hudi_core.errors import WriteConflictError

SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
KEYS_PER_CITY = 20
BATCH = 4


def key(city: str, number: int) -> str:
    return f"{city}-{number:03d}"


def main(argv: list[str]) -> None:
    path, writer, seconds, cities, out, options = argv
    options_map = json.loads(options)
    rng = random.Random(int(writer))
    deadline = time.monotonic() + float(seconds)
    sequence = 0
    with open(out, "a", encoding="utf-8") as log:
        while time.monotonic() < deadline:
            city = rng.choice(cities.split(","))
            rows = [
                {"id": key(city, number), "city": city, "fare": int(writer) * 1_000_000 + sequence * 10 + i}
                for i, number in enumerate(rng.sample(range(KEYS_PER_CITY), BATCH))
            ]
            sequence += 1
            try:
                result = HudiTable(path, options_map).upsert(pa.Table.from_pylist(rows, schema=SCHEMA))
            except WriteConflictError as e:
                match = re.search(r"write (\d+) conflicts", str(e))
                entry = {"writer": writer, "rows": rows, "rejected": match.group(1) if match else None}
            else:
                entry = {
                    "writer": writer,
                    "rows": rows,
                    "instant": result.instant_time,
                    "completion": result.completion_time,
                }
            log.write(json.dumps(entry) + "\n")
            log.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
