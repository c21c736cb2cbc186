"""The read planner engines call: Hudi's read options in, a scan plan (or a change feed) out.

One object turns a query (columns, filters, time travel, and the read options under Hudi's Spark
names) into what an engine executes: a `ScanPlan` of file slices, or a `CdcReader` whose commits are
read one per task. Options follow one precedence: the planner's own (a handle's) under the call's;
what the table persisted comes from its config, never from options. The Arrow engine (through
`HudiTable`) and the Spark data source use the same planner, so a query means the same in both.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from hudi_core.config import HudiConfigs, validate_options
from hudi_core.config.metadata import HudiMetadataConfig
from hudi_core.config.read import HudiReadConfig, IncrementalFormat, QueryType
from hudi_core.errors import HudiConfigError
from hudi_core.storage import Storage
from hudi_core.table.cdc import CdcReader, SliceReader
from hudi_core.table.scan import ScanPlan, TableScanner
from hudi_core.table.state import TableState, load_table_state, on_fresh_state
from hudi_core.timeline.commit_metadata import CommitMetadata
from hudi_core.timeline.instant import normalize_instant_time

Filters = Sequence[Sequence[Any]] | None
WINDOW_OPTIONS = (HudiReadConfig.BEGIN_INSTANT_TIME.key, HudiReadConfig.END_INSTANT_TIME.key)


class ReadPlanner:
    """Plans reads of the table at `storage` under `options` (validated; applied to every plan).

    Each plan loads the table state once (config and timeline) and plans against it.
    """

    def __init__(
        self,
        storage: Storage,
        options: Mapping[str, str] | None = None,
        metadata_cache: MutableMapping[str, CommitMetadata] | None = None,
    ) -> None:
        self.storage = storage
        self.options = dict(options or {})
        validate_options(self.options)
        self._metadata_cache: MutableMapping[str, CommitMetadata] = metadata_cache if metadata_cache is not None else {}

    def state(self) -> TableState:
        """The table's config and timeline, loaded now."""
        return load_table_state(self.storage, self._metadata_cache)

    def configs(self, options: Mapping[str, str] | None = None) -> HudiConfigs:
        """The one precedence of a read's options: the planner's, under the call's (both validated)."""
        call_options = dict(options or {})
        validate_options(call_options)
        return HudiConfigs(self.options, call_options)

    def scanner(self, state: TableState, configs: HudiConfigs | None = None) -> TableScanner:
        """The scanner of `state` under `configs` (default: the planner's options)."""
        use_metadata = (configs or self.configs()).value(HudiMetadataConfig.ENABLE)
        return TableScanner(self.storage, state.config, state.timeline, use_metadata)

    # ---- snapshot, time travel, read-optimized and incremental plans ----------------------------

    def plan(
        self,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        as_of: str | None = None,
        options: Mapping[str, str] | None = None,
    ) -> ScanPlan:
        """The plan of the query the options name (snapshot by default); CDC queries are refused
        here (their rows are computed per commit: use `cdc_reader`)."""
        configs = self.configs(options)
        query_type = configs.value(HudiReadConfig.QUERY_TYPE)
        if query_type is QueryType.INCREMENTAL:
            if as_of is not None or configs.contains(HudiReadConfig.AS_OF_INSTANT):
                raise HudiConfigError("an incremental query cannot also time travel (as.of.instant)")
            if configs.get(HudiReadConfig.INCREMENTAL_FORMAT) is IncrementalFormat.CDC:
                raise HudiConfigError("CDC queries are not planned slice by slice: use read() or read_cdc()")
            start, end = begin_instant(configs), configs.get(HudiReadConfig.END_INSTANT_TIME)
            return self.plan_incremental(start, end, columns, filters, configs=configs, names=WINDOW_OPTIONS)
        as_of_value = as_of if as_of is not None else configs.get(HudiReadConfig.AS_OF_INSTANT)
        argument = "as_of" if as_of is not None else configs.given_key(HudiReadConfig.AS_OF_INSTANT)
        as_of_time = normalize_instant_time(as_of_value, argument or "as_of") if as_of_value is not None else None
        read_optimized = query_type is QueryType.READ_OPTIMIZED
        return on_fresh_state(
            self.state,
            lambda state: self.scanner(state, configs).snapshot(columns, filters, as_of_time, read_optimized),
        )

    def plan_incremental(
        self,
        start: str,
        end: str | None = None,
        columns: Sequence[str] | None = None,
        filters: Filters = None,
        inclusive_start: bool = False,
        fallback_to_full_scan: bool | None = None,
        configs: HudiConfigs | None = None,
        names: tuple[str, str] = ("start", "end"),
    ) -> ScanPlan:
        """The plan of the records changed by instants completed in (start, end]; `names` name
        start and end in errors."""
        configs = configs or self.configs()
        start_time, end_time = incremental_window(start, end, names)
        if fallback_to_full_scan is None:
            fallback_to_full_scan = configs.value(HudiReadConfig.INCREMENTAL_FALLBACK_FULL_SCAN)
        return on_fresh_state(
            self.state,
            lambda state: self.scanner(state, configs).incremental(
                start_time, end_time, columns, filters, inclusive_start, fallback_to_full_scan
            ),
        )

    # ---- change data capture -------------------------------------------------------------------

    def is_cdc_query(self, options: Mapping[str, str] | None = None) -> bool:
        """Whether the read options ask for change data capture."""
        configs = self.configs(options)
        return (
            configs.value(HudiReadConfig.QUERY_TYPE) is QueryType.INCREMENTAL
            and configs.get(HudiReadConfig.INCREMENTAL_FORMAT) is IncrementalFormat.CDC
        )

    def cdc_window(self, options: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
        """The normalized (start, end) of the CDC query the read options name."""
        configs = self.configs(options)
        return incremental_window(begin_instant(configs), configs.get(HudiReadConfig.END_INSTANT_TIME), WINDOW_OPTIONS)

    def cdc_reader(self, read_slices: SliceReader, state: TableState | None = None) -> CdcReader:
        """A change-feed reader over `state` (default: loaded now); `read_slices` is the engine
        reading the file slices a commit's changes are computed from."""
        state = state or self.state()
        return CdcReader(self.storage, state.config, state.timeline, self.scanner(state), read_slices)


def begin_instant(configs: HudiConfigs) -> str:
    """The begin instant an incremental query must name."""
    start = configs.get(HudiReadConfig.BEGIN_INSTANT_TIME)
    if start is None:
        raise HudiConfigError(
            f"an incremental query needs {HudiReadConfig.BEGIN_INSTANT_TIME.key} (an instant time or 'earliest')"
        )
    return str(start)


def incremental_window(
    start: str, end: str | None, names: tuple[str, str] = ("start", "end")
) -> tuple[str | None, str | None]:
    """The normalized (start, end) of an incremental window; `names` name them in errors."""
    if not isinstance(start, str):
        raise HudiConfigError(f"{names[0]} must be an instant time or 'earliest', got {start!r}")
    text = start.strip().lower()
    # "000" (any zeros) is Hudi's usual "from the beginning": Apache Hudi compares it as a string.
    from_beginning = text == "earliest" or (text.isdigit() and int(text) == 0)
    start_time = None if from_beginning else normalize_instant_time(start, names[0])
    return start_time, normalize_instant_time(end, names[1]) if end is not None else None
