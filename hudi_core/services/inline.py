"""Table services that run right after a write commits, as Hudi's write client runs them.

In order: inline compaction (`hoodie.compact.inline` / `hoodie.compact.schedule.inline`) and log
compaction (`hoodie.log.compaction.inline`) of Merge-on-Read tables, inline clustering
(`hoodie.clustering.inline` / `hoodie.clustering.schedule.inline`), then cleaning
(`hoodie.clean.automatic`, on by default) and archival (`hoodie.archive.automatic`, on by default).

The write has committed by then: a service that fails is logged and left for the next run (its
plan, if written, is finished or rolled back then), and the write still succeeds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hudi_core.config.services import HudiArchivalConfig, HudiCleanConfig, HudiClusteringConfig, HudiCompactionConfig
from hudi_core.errors import HudiError
from hudi_core.services import archival, clean, clustering, compaction
from hudi_core.services.base import ServiceContext, ServiceResult

logger = logging.getLogger(__name__)


def run_inline_services(ctx: ServiceContext) -> list[ServiceResult]:
    """Runs every table service the options ask for after a commit; returns what ran."""
    results: list[ServiceResult] = []
    configs = ctx.configs

    def attempt(name: str, run: Callable[[], object]) -> None:
        try:
            result = run()
        except HudiError as e:
            logger.warning("inline %s failed after the write committed (the next run retries): %s", name, e)
            return
        if isinstance(result, ServiceResult):
            results.append(result)

    state = ctx.state()
    if state.config.is_mor:
        if configs.value(HudiCompactionConfig.INLINE) and compaction.compaction_due(ctx, state):
            attempt("compaction", lambda: compaction.run_compaction(ctx))
        elif configs.value(HudiCompactionConfig.SCHEDULE_INLINE) and compaction.compaction_due(ctx, state):
            attempt("compaction scheduling", lambda: compaction.schedule_compaction(ctx))
        if configs.value(HudiCompactionConfig.LOG_COMPACTION_INLINE):
            attempt("log compaction", lambda: compaction.run_compaction(ctx, kind=compaction.LOG_COMPACTION))
    if configs.value(HudiClusteringConfig.INLINE) and clustering.clustering_due(ctx, ctx.state()):
        attempt("clustering", lambda: clustering.run_clustering(ctx))
    elif configs.value(HudiClusteringConfig.SCHEDULE_INLINE) and clustering.clustering_due(ctx, ctx.state()):
        attempt("clustering scheduling", lambda: clustering.schedule_clustering(ctx))
    if configs.value(HudiCleanConfig.AUTOMATIC):
        attempt("clean", lambda: clean.run_clean(ctx))
    if configs.value(HudiArchivalConfig.AUTOMATIC):
        attempt("archival", lambda: archival.run_archive(ctx))
    return results
