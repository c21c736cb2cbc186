"""Partition paths, and pruning them with read filters.

Partition folders are `v1/v2` or, hive-style, `f1=v1/f2=v2`; null or empty values are written as
`__HIVE_DEFAULT_PARTITION__` (`default` before 0.12), optionally URL-encoded (spec notes §7).
A path only tells a column's value when the key generator copies the value verbatim: the
timestamp-based key generator formats it (a path `2023/04/01/12` does not equal the column's
epoch value), and floats, decimals and timestamps print in forms that do not round-trip. Filters on
such columns are never applied to paths, only to rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from hudi_core.config.table import KeyGeneratorType, TableConfig
from hudi_core.expr import Filter
from hudi_core.keygen.partition_path import HIVE_DEFAULT_PARTITION, LEGACY_DEFAULT_PARTITION, unescape_path_name


def _parse_exact(text: str, arrow_type: pa.DataType) -> Any:
    """The column value a path segment spells, or raises ValueError when it cannot be exact."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return text
    if pa.types.is_integer(arrow_type):
        return int(text)
    if pa.types.is_boolean(arrow_type):
        if text.lower() not in ("true", "false"):
            raise ValueError(text)
        return text.lower() == "true"
    if pa.types.is_date32(arrow_type):
        return pa.scalar(text).cast(pa.date32()).as_py()
    raise ValueError(f"no exact path form for {arrow_type}")


class PartitionPruner:
    """Decides from a partition path alone whether a partition may hold rows matching filters."""

    def __init__(self, config: TableConfig, schema: pa.Schema) -> None:
        self._fields = list(config.partition_fields)
        self._hive_style = config.hive_style_partitioning
        self._url_encoded = config.partition_path_urlencode
        self._types: dict[str, pa.DataType] = {}
        if config.key_generator_type in (KeyGeneratorType.TIMESTAMP, KeyGeneratorType.NON_PARTITION):
            return
        for name in self._fields:
            if config.partition_field_types.get(name, "SIMPLE") != "SIMPLE":
                continue  # custom key generator: timestamp-typed fields are formatted
            index = schema.get_field_index(name)
            if index >= 0:
                self._types[name] = schema.field(index).type

    @property
    def prunable_fields(self) -> frozenset[str]:
        return frozenset(self._types)

    def values(self, partition_path: str) -> dict[str, Any]:
        """Exact column values spelled by `partition_path` (fields that cannot be known are absent)."""
        segments = partition_path.split("/") if partition_path else []
        if len(segments) != len(self._fields):
            return {}
        result: dict[str, Any] = {}
        for name, segment in zip(self._fields, segments, strict=True):
            if self._hive_style:
                key, sep, text = segment.partition("=")
                if not sep or key != name:
                    return {}
            else:
                text = segment
            if name not in self._types:
                continue
            if self._url_encoded:
                text = unescape_path_name(text)
            if text in (HIVE_DEFAULT_PARTITION, LEGACY_DEFAULT_PARTITION) or text == "":
                result[name] = None
                continue
            try:
                result[name] = _parse_exact(text, self._types[name])
            except (ValueError, pa.ArrowInvalid):
                continue
        return result

    def may_match(self, partition_path: str, filters: Sequence[Filter]) -> bool:
        relevant = [f for f in filters if f.column in self._types]
        if not relevant:
            return True
        values = self.values(partition_path)
        return all(f.matches_value(values[f.column]) for f in relevant if f.column in values)
