"""Table services that run right after a write commits, as Hudi's write client runs them.

In order: inline compaction (`hoodie.compact.inline` / `hoodie.compact.schedule.inline`) and log
compaction (`hoodie.log.compaction.inline`) of Merge-on-Read tables, inline clustering
(`hoodie.clustering.inline` / `hoodie.clustering.schedule.inline`), then cleaning
(`hoodie.clean.automatic`, on by default) and archival (`hoodie.archive.automatic`, on by default).

The write has committed by then: a service that fails, for whatever reason (a full disk too), is
logged and reported as a warning of the write's result, and left for its next run (its plan, if
written, is finished or rolled back then). The write still succeeds, and the other services run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from hudi_core.config.services import HudiArchivalConfig, HudiCleanConfig, HudiClusteringConfig, HudiCompactionConfig
from hudi_core.lifecycle.service_result import ServiceResult
from hudi_core.services import archival, clean, clustering, compaction
from hudi_core.services.base import ServiceContext
from hudi_core.write.client import WriteResult

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class InlineServices:
    """What ran after a commit: the services' results, and one warning per service that failed."""

    results: tuple[ServiceResult, ...] = ()
    warnings: tuple[str, ...] = ()


def run_inline_services(ctx: ServiceContext) -> InlineServices:
    """Runs every table service the options ask for after a commit; never raises."""
    results: list[ServiceResult] = []
    warnings: list[str] = []
    configs = ctx.configs

    def attempt(name: str, due: Callable[[], bool], run: Callable[[], object]) -> None:
        try:
            if not due():
                return
            result = run()
        except Exception as e:  # the write committed: a failed service neither undoes nor fails it
            message = f"inline {name} failed after the write committed (its next run retries): {type(e).__name__}: {e}"
            logger.warning("%s", message)
            warnings.append(message)
            return
        if isinstance(result, ServiceResult):
            results.append(result)

    def compaction_due() -> bool:
        state = ctx.state()
        return state.config.is_mor and compaction.compaction_due(ctx, state)

    def clustering_due() -> bool:
        return clustering.clustering_due(ctx, ctx.state())

    def always() -> bool:
        return True

    # One lock hold for them all (one writer at a time): the state loaded under it is reused from
    # one service to the next while none of them changed the table. `attempt` catches what a service
    # raises, so what reaches the except is the lock's own failure (taken by another writer, or not
    # written): the services not yet run wait for the next write.
    try:
        with ctx.run("inline services"):
            if configs.value(HudiCompactionConfig.INLINE):
                attempt("compaction", compaction_due, lambda: compaction.run_compaction(ctx))
            elif configs.value(HudiCompactionConfig.SCHEDULE_INLINE):
                attempt("compaction scheduling", compaction_due, lambda: compaction.schedule_compaction(ctx))
            if configs.value(HudiCompactionConfig.LOG_COMPACTION_INLINE):
                attempt(
                    "log compaction",
                    lambda: ctx.state().config.is_mor,
                    lambda: compaction.run_compaction(ctx, kind=compaction.LOG_COMPACTION),
                )
            if configs.value(HudiClusteringConfig.INLINE):
                attempt("clustering", clustering_due, lambda: clustering.run_clustering(ctx))
            elif configs.value(HudiClusteringConfig.SCHEDULE_INLINE):
                attempt("clustering scheduling", clustering_due, lambda: clustering.schedule_clustering(ctx))
            if configs.value(HudiCleanConfig.AUTOMATIC):
                attempt("clean", always, lambda: clean.run_clean(ctx))
            if configs.value(HudiArchivalConfig.AUTOMATIC):
                attempt("archival", always, lambda: archival.run_archive(ctx))
    except Exception as e:
        message = f"inline services skipped after the write committed (their next run retries): {type(e).__name__}: {e}"
        logger.warning("%s", message)
        warnings.append(message)
    return InlineServices(tuple(results), tuple(warnings))


def with_inline_services(result: WriteResult, ctx: ServiceContext) -> WriteResult:
    """`result` of a committed write, with the inline services run after it and their warnings."""
    ran = run_inline_services(ctx)
    return replace(result, table_services=ran.results, service_warnings=ran.warnings)
