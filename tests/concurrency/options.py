"""Write options of the concurrency tests."""

from __future__ import annotations

LOCK_PACKAGE = "org.apache.hudi.client.transaction.lock."


def occ(provider: str, **extra: str) -> dict[str, str]:
    """Optimistic concurrency with lock provider `provider` (a simple class name), plus `extra`
    (keys with dots written as in Hudi, passed as a dict: `occ("X", **{"hoodie.a": "1"})`)."""
    return {
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        "hoodie.write.lock.provider": LOCK_PACKAGE + provider,
        **extra,
    }
