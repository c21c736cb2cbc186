"""Rows sent to the tasks the driver chose for them.

`DataFrame.repartition(n, column)` sends a row to task `pmod(murmur3(column, seed 42), n)`: by hash
chance, so groups of equal work can share a task while another task stays idle (20 table partitions
over 4 tasks land as 6, 3, 6 and 5). When the driver knows each group's work, it assigns the groups
to tasks (`hudi_core.parallel.balanced_bins`) and gives every group an integer key that Spark's hash
sends to its task. Which task a group lands in never changes what is computed, since all of a
group's rows still meet in one task, so a Spark whose hash differed would only lose the balance.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as sf

HASH_SEED = 42  # Spark's Murmur3Hash seed, used by hash partitioning and `hash()`
PLACEMENT = "__hudi_task_key"
# Above this many values the key map would be a large literal in every row's plan, and with that
# many groups hash chance balances tasks well enough.
MAX_PLACED_VALUES = 1024
_MASK = 0xFFFFFFFF


def _rotate_left(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def spark_int_hash(value: int, seed: int = HASH_SEED) -> int:
    """Spark's `Murmur3_x86_32.hashInt`: the hash of an IntegerType value, as a signed 32-bit int."""
    k1 = (value & _MASK) * 0xCC9E2D51 & _MASK
    k1 = _rotate_left(k1, 15) * 0x1B873593 & _MASK
    h1 = (seed & _MASK) ^ k1
    h1 = (_rotate_left(h1, 13) * 5 + 0xE6546B64) & _MASK
    h1 ^= 4  # the input's length in bytes
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _MASK
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def task_keys(tasks: int) -> list[int]:
    """For each task of a stage of `tasks`, the smallest non-negative integer key Spark's hash
    partitioning sends there."""
    keys: dict[int, int] = {}
    candidate = 0
    while len(keys) < tasks:
        keys.setdefault(spark_int_hash(candidate) % tasks, candidate)
        candidate += 1
    return [keys[task] for task in range(tasks)]


def placed(frame: DataFrame, column: str, assignment: Mapping[str, int], tasks: int) -> DataFrame:
    """`frame` in `tasks` partitions, the rows whose `column` value is a key of `assignment` in the
    task it names. Other values (none, when the assignment covers every value) go to hash chance,
    as do all of them past `MAX_PLACED_VALUES`; rows of one value always share a task."""
    if not assignment or len(assignment) > MAX_PLACED_VALUES:
        return frame.repartition(tasks, column)
    keys = task_keys(tasks)
    pairs: list[Column] = []
    for value, task in assignment.items():
        pairs += [sf.lit(value), sf.lit(keys[task])]
    key = sf.coalesce(sf.create_map(*pairs)[sf.col(column)], sf.hash(sf.col(column)))
    return frame.withColumn(PLACEMENT, key.cast("int")).repartition(tasks, PLACEMENT).drop(PLACEMENT)
