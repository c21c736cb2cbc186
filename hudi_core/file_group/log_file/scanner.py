"""Choosing the log blocks of a file slice that a query sees (Hudi's log record scanner rules).

Blocks are taken in log-file order. A data or delete block counts only if its INSTANT_TIME is a
committed instant the query sees (instants older than the active timeline were archived and count
as committed). A rollback command block removes every earlier block written by its
TARGET_INSTANT_TIME, and corrupt blocks are ignored. A log-compacted block (header
COMPACTED_BLOCK_TIMES) replaces the earlier blocks of the instants it lists.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from hudi_core import metrics
from hudi_core.file_group.log_file.format import ROLLBACK_COMMAND, BlockType, HeaderKey
from hudi_core.file_group.log_file.reader import RawBlock, read_log_blocks
from hudi_core.storage import Storage

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BlockVisibility:
    """Which block instants a query sees.

    Attributes:
        visible: requested times of the completed instants the query sees.
        timeline_start: the first instant of the active timeline; older instants were archived
            after completing and count as committed.
        upper_bound: the latest instant time the query sees, if bounded.
    """

    visible: frozenset[str]
    timeline_start: str | None = None
    upper_bound: str | None = None

    def sees(self, instant: str | None) -> bool:
        if instant is None:
            return False
        if instant in self.visible:
            return True
        archived = self.timeline_start is not None and instant < self.timeline_start
        return archived and (self.upper_bound is None or instant <= self.upper_bound)


def effective_blocks(blocks: Sequence[RawBlock], visibility: BlockVisibility) -> list[RawBlock]:
    """The data and delete blocks that remain after applying the scanner rules, in order."""
    kept: list[RawBlock] = []
    for block in blocks:
        if block.block_type is BlockType.CORRUPT:
            # Hudi skips these too (a torn append); never silently: the skip is logged and counted.
            metrics.add(corrupt_blocks_skipped=1)
            logger.warning(
                "skipping corrupt log block in %s at offset %d (%d bytes)",
                block.log_file,
                block.offset,
                len(block.content),
            )
            continue
        if block.block_type is BlockType.COMMAND:
            if block.header.get(HeaderKey.COMMAND_BLOCK_TYPE) == ROLLBACK_COMMAND:
                target = block.header.get(HeaderKey.TARGET_INSTANT_TIME)
                kept = [b for b in kept if b.instant_time != target]
            continue
        if not visibility.sees(block.instant_time):
            continue
        compacted = block.header.get(HeaderKey.COMPACTED_BLOCK_TIMES)
        if compacted:
            replaced = {t.strip() for t in compacted.split(",") if t.strip()}
            kept = [b for b in kept if b.instant_time not in replaced]
        kept.append(block)
    return kept


def scan_log_files(
    storage: Storage, log_paths: Sequence[str], visibility: BlockVisibility, counted: bool = True
) -> list[RawBlock]:
    """Reads the log files of a slice (paths relative to the base path) and applies the rules."""
    blocks: list[RawBlock] = []
    for path in log_paths:
        blocks.extend(read_log_blocks(storage.read_bytes(path), path, counted))
    return effective_blocks(blocks, visibility)
