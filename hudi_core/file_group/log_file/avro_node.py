"""The compiled form of an Avro schema that the log-block codec decodes and encodes with."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa


@dataclass(eq=False)
class AvroNode:
    """One Avro type, resolved: its decoding kind, Arrow type and children.

    `kind` is a primitive name or "fixed", "enum", "decimal", "record", "array", "map", "union".
    `size` is the fixed size (0 for a `bytes` decimal). Unions keep the index of their null branch
    (-1 if none), of their one value branch (-1 if none, children then empty) and their width.
    `min_size` is the fewest bytes a value takes, which bounds block counts read from corrupt data;
    `fixed_size` is the size every value takes, or -1 when values vary.
    """

    kind: str
    path: str
    arrow_type: pa.DataType
    children: list[AvroNode] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    size: int = 0
    null_index: int = -1
    value_index: int = -1
    branch_count: int = 0
    min_size: int = 0
    fixed_size: int = -1
