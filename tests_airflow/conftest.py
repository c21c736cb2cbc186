"""Airflow tests (run in `.venv-airflow` by `scripts/dev.py test`): a real Airflow 3 with a SQLite
metadata database in a temporary `AIRFLOW_HOME`, migrated once per session, the example DAGs and
OpenLineage writing its events to a file.

Airflow reads its configuration when first imported, so the environment is set here, at import,
before any test module imports Airflow.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_DAGS = Path(__file__).resolve().parent / "dags"
HOME = Path(tempfile.mkdtemp(prefix="hudi-airflow-home-"))
OPENLINEAGE_FILE = HOME / "openlineage.jsonl"
LAKEHOUSE = HOME / "lakehouse"

os.environ.update(
    {
        "AIRFLOW_HOME": str(HOME),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{HOME / 'airflow.db'}",
        "AIRFLOW__CORE__DAGS_FOLDER": str(ROOT / "pipelines" / "airflow"),
        # Two bundles: the example DAGs and the tests' own (dag.test() runs serialized DAGs only).
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST": json.dumps(
            [
                {
                    "name": name,
                    "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle",
                    "kwargs": {"path": str(path)},
                }
                for name, path in (("example-dags", ROOT / "pipelines" / "airflow"), ("test-dags", TEST_DAGS))
            ]
        ),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",  # paused DAGs are not queued by assets
        "AIRFLOW__CORE__UNIT_TEST_MODE": "False",
        "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(
            {"type": "file", "log_file_path": str(OPENLINEAGE_FILE), "append": True}
        ),
        "AIRFLOW__OPENLINEAGE__NAMESPACE": "hudi-airflow-tests",
        "HUDI_AIRFLOW_LAKEHOUSE_ROOT": str(LAKEHOUSE),
        "HUDI_DEMO_ROWS": "2000",
    }
)


@pytest.fixture(scope="session", autouse=True)
def airflow_db() -> Iterator[Path]:
    """The metadata database, migrated once for the session."""
    from airflow.utils import db  # noqa: PLC0415 - after the environment above

    db.initdb()
    yield HOME
    shutil.rmtree(HOME, ignore_errors=True)


def openlineage_events() -> list[dict[str, Any]]:
    """Every OpenLineage event written so far (the file transport appends one JSON per line)."""
    if not OPENLINEAGE_FILE.exists():
        return []
    return [json.loads(line) for line in OPENLINEAGE_FILE.read_text().splitlines() if line.strip()]


from tests.objectstore.conftest import s3_endpoint  # noqa: E402, F401 - moto's S3 server, shared with the main suite
