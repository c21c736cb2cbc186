"""S3 settings given as storage options, not environment variables: a Dagster IO manager and a
table config on the loopback S3 server from a process whose environment names no endpoint or
credentials (they would send it to AWS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hudi_core.errors import HudiStorageError
from hudi_core.storage import register_storage_options, registered_options

ROOT = Path(__file__).resolve().parents[2]
CODE = """
import sys
import dagster as dg
import pyarrow as pa
from hudi_core import HudiTable
from hudi_dagster import HudiPyArrowIOManager, HudiTableConfig, hudi_incremental_asset

endpoint, bucket = sys.argv[1], sys.argv[2]
options = {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_REGION": "us-east-1"}
root = f"s3://{bucket}/lake"
manager = HudiPyArrowIOManager(root_uri=root, storage_options=options)

@dg.asset(metadata={"record_key": "id"})
def fares() -> pa.Table:
    return pa.table({"id": ["a", "b"], "fare": [1.0, 2.0]})

copy = hudi_incremental_asset(name="copy", source="fares", source_path=f"{root}/fares",
    target=HudiTableConfig(path=f"s3a://{bucket}/other/copy", record_key=["id"], storage_options=options))
assert dg.materialize([fares], resources={"io_manager": manager}).success
assert dg.materialize([copy]).success
print(sorted(HudiTable(f"s3a://{bucket}/other/copy").read(columns=["id"]).column("id").to_pylist()))
"""


def test_io_manager_and_table_config_take_s3_settings_as_storage_options(s3_endpoint: str, bucket: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") or k == "AWS_ALLOW_HTTP"}
    env["AWS_EC2_METADATA_DISABLED"] = "true"  # no credential lookups beyond the options
    done = subprocess.run(
        [sys.executable, "-c", CODE, s3_endpoint, bucket],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "['a', 'b']"


def test_registered_options_match_by_longest_prefix_and_refuse_unknown_names() -> None:
    register_storage_options("s3://lake-x", {"AWS_REGION": "eu-west-1"})
    register_storage_options("s3a://lake-x/raw/", {"AWS_REGION": "us-west-2"})
    assert registered_options("s3a://lake-x/raw/t1")["AWS_REGION"] == "us-west-2"
    assert registered_options("s3://lake-x/gold/t2")["AWS_REGION"] == "eu-west-1"
    assert registered_options("s3://lake-xy/t") == {}
    with pytest.raises(HudiStorageError, match="unknown storage options"):
        register_storage_options("s3://lake-x", {"aws_region": "eu-west-1"})
