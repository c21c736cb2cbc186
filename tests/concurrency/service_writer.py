"""A writer process for tests of inline table services between writers: a bounded number of upserts.

Usage: python -m tests.concurrency.service_writer TABLE WRITER_ID WRITES OUT OPTIONS_JSON

The writer upserts its own keys (`<writer>-<n>` in every city) WRITES times, the fare being the round;
a write refused because the other writer holds the table lock is tried again. Appended to OUT as
JSON lines: every file group a compaction or clustering rewrote (`executed`: the instant and file
group, or clustering group), every inline service that failed (`failed`) and every refused write.
"""

from __future__ import annotations

import json
import logging
import random
import sys
import time
from collections.abc import Callable
from typing import IO, Any

import pyarrow as pa

from hudi_core import ConcurrentWriteError, HudiTable
from hudi_core.services import clustering, compaction

SCHEMA = pa.schema([("id", pa.string()), ("city", pa.string()), ("fare", pa.float64())])
CITIES = ("sf", "nyc")
KEYS = 3


def batch(writer: str, round_: int) -> pa.Table:
    rows = [{"id": f"{writer}-{n}-{c}", "city": c, "fare": float(round_)} for c in CITIES for n in range(KEYS)]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


class _Failures(logging.Handler):
    """Inline services that failed after their write committed (logged, not raised)."""

    def __init__(self, report: Callable[[dict[str, Any]], None]) -> None:
        super().__init__(logging.WARNING)
        self._report = report

    def emit(self, record: logging.LogRecord) -> None:
        self._report({"failed": record.getMessage()})


def _recorded(task_function: Callable[[Any], Any], report: Callable[[dict[str, Any]], None]) -> Callable[[Any], Any]:
    def run(task: Any) -> Any:
        unit = getattr(task, "operation", None)
        report(
            {
                "executed": task.context.instant_time,
                "unit": unit.file_id if unit is not None else task.task_index,
            }
        )
        return task_function(task)

    return run


def main(argv: list[str]) -> None:
    path, writer, writes, out, options = argv
    options_map = json.loads(options)
    rng = random.Random(writer)
    with open(out, "a", encoding="utf-8") as log:

        def report(entry: dict[str, Any], sink: IO[str] = log) -> None:
            sink.write(json.dumps({"writer": writer, **entry}) + "\n")
            sink.flush()

        compaction.compact_file_group = _recorded(compaction.compact_file_group, report)  # type: ignore[assignment]
        clustering.cluster_group = _recorded(clustering.cluster_group, report)  # type: ignore[assignment]
        logging.getLogger("hudi_core.services.inline").addHandler(_Failures(report))
        round_ = 0
        while round_ < int(writes):
            try:
                HudiTable(path, options_map).upsert(batch(writer, round_))
            except ConcurrentWriteError as e:
                report({"refused": str(e)})
                time.sleep(rng.uniform(0.01, 0.1))
                continue
            round_ += 1


if __name__ == "__main__":
    main(sys.argv[1:])
