"""Partition values of a partition path, as Hudi's partition value extractors give them."""

from __future__ import annotations

from urllib.parse import unquote

from hudi_core.config.sync import HudiMetaSyncConfig as S
from hudi_core.config.sync import PartitionValueExtractor
from hudi_core.errors import MetaSyncError


def partition_values(
    path: str, extractor: PartitionValueExtractor, field_count: int, decode: bool = False
) -> list[str]:
    """The catalog partition values of the partition at `path` (relative to the base path).

    Raises MetaSyncError when the path does not have the shape the extractor reads, or gives a
    number of values other than the catalog's partition columns.
    """
    values = _extract(path, extractor)
    if decode:
        values = [unquote(value) for value in values]
    if len(values) != field_count:
        raise MetaSyncError(
            f"partition path {path!r} gives {len(values)} value(s) with {extractor.value}, but the catalog "
            f"table has {field_count} partition column(s): set {S.PARTITION_FIELDS.key} "
            f"and {S.PARTITION_EXTRACTOR.key} to match the table's partition paths"
        )
    return values


def _after_equals(part: str) -> str:
    return part.split("=", 1)[1] if "=" in part else part


def _extract(path: str, extractor: PartitionValueExtractor) -> list[str]:
    if extractor is PartitionValueExtractor.NON_PARTITIONED:
        return []
    if extractor is PartitionValueExtractor.SINGLE_PART:
        return [path]
    if extractor is PartitionValueExtractor.HIVE_STYLE:
        _key, sep, value = path.partition("=")
        if not sep or "/" in path:
            raise MetaSyncError(f"partition path {path!r} is not one hive-style key=value level")
        return [value]
    if extractor is PartitionValueExtractor.MULTI_PART_KEYS:
        return [_after_equals(part) for part in path.split("/")]
    levels = 4 if extractor is PartitionValueExtractor.SLASH_ENCODED_HOUR else 3
    parts = [_after_equals(part) for part in path.split("/")]
    if len(parts) != levels or not all(part.isdigit() for part in parts):
        shape = "yyyy/mm/dd/hh" if levels == 4 else "yyyy/mm/dd"
        raise MetaSyncError(f"partition path {path!r} is not {shape}, as {extractor.value} reads it")
    return ["-".join(parts)]
