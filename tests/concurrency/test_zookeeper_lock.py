"""ZookeeperBasedLockProvider against a real ZooKeeper server on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest
from kazoo.client import KazooClient

from hudi_core import HudiTable
from hudi_core.concurrency.lock_manager import lock_provider, provider_lock
from hudi_core.config import HudiConfigs
from hudi_core.storage import Storage
from tests.concurrency.options import LOCK_PACKAGE
from tests.concurrency.test_lock_providers import exclusive_sections
from tests.concurrency.writer_process import SCHEMA

pytestmark = pytest.mark.slow


def zk_options(url: str) -> dict[str, str]:
    host, port = url.rsplit(":", 1)
    return {
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        "hoodie.write.lock.provider": LOCK_PACKAGE + "ZookeeperBasedLockProvider",
        "hoodie.write.lock.zookeeper.url": host,
        "hoodie.write.lock.zookeeper.port": port,
        "hoodie.write.lock.zookeeper.base_path": "/hudi/locks",
        "hoodie.write.lock.wait_time_ms": "10000",
    }


def test_zookeeper_lock_excludes_and_queues_like_curator(zookeeper_url: str, tmp_path: Path) -> None:
    configs = HudiConfigs(zk_options(zookeeper_url))
    storage = Storage(str(tmp_path / "t"))
    assert exclusive_sections(lambda: provider_lock(lock_provider(storage, configs, "trips"), configs, "test")) == 1

    holder = lock_provider(storage, configs, "trips")
    assert holder.try_lock(5)
    client = KazooClient(hosts=zookeeper_url)
    client.start()
    try:
        children = client.get_children("/hudi/locks/trips")
        # Curator's InterProcessMutex orders contenders by the digits after "lock-".
        assert len(children) == 1 and children[0].rsplit("-lock-", 1)[1].isdigit()
        assert not attempt(storage, configs, "trips")
        assert attempt(storage, configs, "other_table"), "the lock key is the table name"
    finally:
        holder.unlock()
        holder.close()
    assert client.get_children("/hudi/locks/trips") == []
    client.stop()
    client.close()


def attempt(storage: Storage, configs: HudiConfigs, table: str) -> bool:
    provider = lock_provider(storage, configs, table)
    try:
        taken = provider.try_lock(0.2)
        if taken:
            provider.unlock()
        return taken
    finally:
        provider.close()


HOLDER = """
import sys, time
from hudi_core.concurrency.lock_manager import lock_provider
from hudi_core.config import HudiConfigs
from hudi_core.storage import Storage
import json
provider = lock_provider(Storage(sys.argv[1]), HudiConfigs(json.loads(sys.argv[2])), "trips")
assert provider.try_lock(5)
print("locked", flush=True)
time.sleep(600)
"""


def test_a_dead_holders_lock_goes_with_its_session(zookeeper_url: str, tmp_path: Path) -> None:
    options = {**zk_options(zookeeper_url), "hoodie.write.lock.zookeeper.session_timeout_ms": "2000"}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "t"), json.dumps(options)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    configs = HudiConfigs(options)
    assert not attempt(Storage(str(tmp_path / "t")), configs, "trips")
    holder.kill()
    holder.wait()
    holder.stdout.close()
    start = time.monotonic()
    waiter = lock_provider(Storage(str(tmp_path / "t")), configs, "trips")
    assert waiter.try_lock(30), "the lock node is ephemeral: it goes when the session expires"
    assert time.monotonic() - start < 30
    waiter.unlock()
    waiter.close()


def test_optimistic_writers_through_zookeeper(zookeeper_url: str, tmp_path: Path) -> None:
    path = tmp_path / "t"
    options = zk_options(zookeeper_url)
    rows = [{"id": f"k{i}", "city": "sf" if i % 2 else "nyc", "fare": float(i)} for i in range(10)]
    HudiTable.create(str(path), SCHEMA, "trips", ["id"], ["city"], None, "MERGE_ON_READ", options).insert(
        pa.Table.from_pylist(rows, schema=SCHEMA)
    )
    errors: list[BaseException] = []

    def upsert(city: str, fare: float) -> None:
        try:
            batch = [{"id": r["id"], "city": city, "fare": fare} for r in rows if r["city"] == city]
            HudiTable(str(path), options).upsert(pa.Table.from_pylist(batch, schema=SCHEMA))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=upsert, args=(c, f)) for c, f in (("sf", 100.0), ("nyc", 200.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    fares = {r["id"]: r["fare"] for r in HudiTable(str(path)).read(columns=["id", "fare"]).to_pylist()}
    assert fares == {r["id"]: 100.0 if r["city"] == "sf" else 200.0 for r in rows}
