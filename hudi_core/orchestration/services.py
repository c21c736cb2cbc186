"""Table services by name, as orchestrators schedule them: each runs only when there is work."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, get_args

from hudi_core.hudi_table import HudiTable
from hudi_core.lifecycle.service_result import ServiceResult

Service = Literal["compaction", "log_compaction", "clustering", "clean", "archive", "savepoint"]
SERVICES: tuple[Service, ...] = get_args(Service)
DEFAULT_SERVICES: tuple[Service, ...] = ("compaction", "clustering", "clean", "archive")


def savepoint_latest(table: HudiTable, options: Mapping[str, str], user: str = "") -> ServiceResult | None:
    """A savepoint of the newest completed commit, unless it has one already."""
    commits = table.timeline.completed_data_instants()  # table-service commits too: the newest files
    if not commits or commits[-1].requested_time in table.savepoints():
        return None
    return table.savepoint(commits[-1].requested_time, user=user, comment="scheduled", options=options)


_RUNNERS: dict[str, Callable[[HudiTable, Mapping[str, str], str], ServiceResult | None]] = {
    "compaction": lambda t, o, _: t.compact(options=o) if t.table_config.is_mor else None,
    "log_compaction": lambda t, o, _: t.log_compact(options=o) if t.table_config.is_mor else None,
    "clustering": lambda t, o, _: t.cluster(options=o),
    "clean": lambda t, o, _: t.clean(options=o),
    "archive": lambda t, o, _: t.archive(options=o),
    "savepoint": savepoint_latest,
}


def check_service(service: str) -> Service:
    """`service` if it names a table service, else a ValueError listing them."""
    if service not in _RUNNERS:
        raise ValueError(f"unknown table service {service!r}; choose from {', '.join(SERVICES)}")
    return service  # type: ignore[return-value]  # checked against the Literal's values above


def run_service(table: HudiTable, service: str, options: Mapping[str, str], user: str = "") -> ServiceResult | None:
    """Runs `service` on `table` (a savepoint records `user`); None when it found nothing to do
    (compactions on a Copy-on-Write table never have anything)."""
    return _RUNNERS[check_service(service)](table, options, user)
