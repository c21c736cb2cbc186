"""Resources: one SparkSession per run (ours, or dagster-pyspark's `PySparkResource`), and a Hudi
table by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dagster as dg
from pydantic import Field, PrivateAttr

from hudi_core import HudiTable, WriteResult
from hudi_core.orchestration.writes import write_data
from hudi_dagster.config import HudiTableConfig, WriteMode

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkResource(dg.ConfigurableResource):  # type: ignore[type-arg]  # generic only in stubs
    """A SparkSession shared by every step of a run, with the `hudi` data source registered.

    Local mode (`master`) by default; `remote` connects to a Spark Connect server instead (steps in
    separate processes then share one Spark; `hudi_core.engine.spark.connect.ConnectServer` starts
    one locally). Hudi jobs should use Dagster's `in_process_executor` (`hudi_dagster.hudi_asset_job`):
    the multiprocess executor starts a JVM per step. An active session is reused; the session is
    stopped at the end of the run only if this resource created it.
    """

    master: str = Field(default="local[*]", description="Spark master for a local or cluster session.")
    remote: str | None = Field(default=None, description="Spark Connect URL (sc://host:port) to use instead.")
    conf: dict[str, str] = Field(default_factory=dict, description="Spark settings by their full names.")

    _session: Any = PrivateAttr(default=None)
    _created: bool = PrivateAttr(default=False)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._session = None

    def get_session(self) -> SparkSession:
        """The run's session, created on first use."""
        if self._session is None:
            self._session = self._open()
        return self._session  # type: ignore[no-any-return]

    def _open(self) -> SparkSession:
        from pyspark.sql import SparkSession  # noqa: PLC0415 - PySpark is the `spark` extra

        from hudi_core import spark as hudi_spark  # noqa: PLC0415

        remote = self.remote
        if remote is None:
            existing = SparkSession.getActiveSession()
            if existing is not None:
                hudi_spark.register(existing)
                self._created = False
                return existing
        self._created = True
        return hudi_spark.session(self.master, remote=remote, **self.conf)

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._session is not None and self._created:
            self._session.stop()
        self._session, self._created = None, False


def spark_session_of(resource: Any) -> SparkSession:
    """The session of a Spark resource: ours (`SparkResource`) or dagster-pyspark's
    `PySparkResource`, whose session gets the `hudi` data source registered."""
    if isinstance(resource, SparkResource):
        return resource.get_session()
    session = getattr(resource, "spark_session", None)
    if session is None:
        raise dg.DagsterInvariantViolationError(
            f"{type(resource).__name__} is not a Spark resource: use hudi_dagster.SparkResource or "
            "dagster_pyspark.PySparkResource"
        )
    from hudi_core import spark as hudi_spark  # noqa: PLC0415 - PySpark is the `spark` extra

    hudi_spark.register(session)
    return session  # type: ignore[no-any-return]


class HudiTableResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """A Hudi table named by config, for ops and assets that write or maintain it directly."""

    table: HudiTableConfig

    def load(self) -> HudiTable:
        """The table (it must exist)."""
        return HudiTable(self.table.path)

    def exists(self) -> bool:
        from hudi_core.hudi_table import table_exists  # noqa: PLC0415

        return table_exists(self.table.path)

    def write(
        self,
        data: Any,
        mode: WriteMode | str = WriteMode.UPSERT,
        checkpoint: str | None = None,
        checkpoint_identifier: str | None = None,
    ) -> WriteResult:
        """Writes Arrow/pandas data (Arrow engine) or a Spark DataFrame (Spark engine); creates the table."""
        options = self.table.write_options(mode)
        return write_data(self.table.path, data, options, checkpoint, checkpoint_identifier)
