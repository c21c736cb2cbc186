"""Nothing outside the table on S3 (the loopback S3-compatible server): `Storage` refuses keys outside
its prefix, and random partition values either stay under the table's prefix and read back in our
reader and in hudi-rs, or are refused before anything is written (tests/partition_values.py)."""

from __future__ import annotations

from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_core import HudiTable
from hudi_core.errors import HudiStorageError
from hudi_core.storage import Storage
from tests.hudi_core.test_hostile_paths import storage_calls
from tests.partition_values import CANARY, SCHEMA, Listing, ValueChecker


def _listing(bucket: str) -> Listing:
    pages = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return {item["Key"]: item["ETag"] for page in pages for item in page.get("Contents", [])}


def test_storage_on_s3_refuses_keys_outside_its_prefix(bucket: str) -> None:
    client = boto3.client("s3")
    client.put_object(Bucket=bucket, Key="lake/canary", Body=CANARY)
    storage = Storage(f"s3://{bucket}/lake/t")
    storage.write_bytes("inside", b"inside")
    before = _listing(bucket)
    calls = {
        **storage_calls(storage, "../canary"),
        "replace_if_unchanged": lambda: storage.replace_if_unchanged("../canary", b"x", "tag"),
        "delete_if_unchanged": lambda: storage.delete_if_unchanged("../canary", "tag"),
    }
    for method, call in calls.items():
        with pytest.raises(HudiStorageError, match=r"'\.\./canary' leads outside the table"):
            call()
        assert _listing(bucket) == before, method
    assert storage.relative_path(f"s3://{bucket}/lake/t/p/f") == "p/f"
    with pytest.raises(HudiStorageError, match="is not inside the table"):
        storage.relative_path(f"s3://{bucket}/lake/t/../canary")


def test_s3_upsert_of_any_partition_value_stays_inside_or_is_refused(bucket: str) -> None:
    boto3.client("s3").put_object(Bucket=bucket, Key="lake/canary", Body=CANARY)
    base = f"s3://{bucket}/lake/t"
    table = HudiTable.create(base, SCHEMA, "values", ["id"], ["city"], ["ts"])

    def write(rows: list[dict[str, Any]]) -> None:
        table.upsert(pa.Table.from_pylist(rows, schema=SCHEMA))

    checker = ValueChecker(base, "lake/t", lambda: _listing(bucket), write)
    checker.run(max_examples=4)
