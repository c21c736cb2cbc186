"""Airflow assets for Hudi tables: `hudi://` URIs, their normalizer, and their OpenLineage datasets.

A table's asset URI names where it lives: `hudi:///abs/path` for a local table (a path or a
`file://` URI), `hudi://bucket/key` for a table on S3 (`s3://` or `s3a://`). Writers emit the asset
of their table, so downstream DAGs schedule on it (`schedule=[hudi_asset(path)]`). The provider
registers the normalizer for the `hudi` scheme, so two spellings of one table are one asset.
"""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import SplitResult, urlsplit

from airflow.sdk import Asset

SCHEME = "hudi"
_OBJECT_STORE_SCHEMES = ("s3", "s3a")


def hudi_uri(table_path: str) -> str:
    """The asset URI of the table at `table_path` (a local path, `file://`, `s3://` or `s3a://` URI),
    as Airflow stores it once normalized (a local table's `hudi:///abs/path` is kept as `hudi:/abs/path`)."""
    return Asset(uri=_raw_uri(table_path)).uri


def _raw_uri(table_path: str) -> str:
    parsed = urlsplit(table_path)
    if parsed.scheme in _OBJECT_STORE_SCHEMES:
        if not parsed.netloc:
            raise ValueError(f"{table_path!r} names no bucket")
        return f"{SCHEME}://{parsed.netloc}{_normal_path(parsed.path or '/', table_path)}"
    if parsed.scheme == "file":
        return f"{SCHEME}://{_normal_path(parsed.path, table_path)}"
    if parsed.scheme:
        raise ValueError(f"{table_path!r}: Hudi assets name local, file:// and s3:// tables")
    return f"{SCHEME}://{_normal_path(posixpath.abspath(table_path), table_path)}"


def hudi_asset(table_path: str, name: str | None = None, extra: dict[str, Any] | None = None) -> Asset:
    """The Airflow asset of a Hudi table (`name`: its display name, default the URI)."""
    uri = _raw_uri(table_path)
    return Asset(uri=uri, name=name or uri, extra=extra or {})


def table_location(asset_uri: str) -> str:
    """The table path a `hudi://` URI names: the local path, or the `s3://` URI."""
    parsed = urlsplit(asset_uri)
    if parsed.scheme != SCHEME:
        raise ValueError(f"{asset_uri!r} is not a {SCHEME}:// asset URI")
    return f"s3://{parsed.netloc}{parsed.path}" if parsed.netloc else parsed.path


def _normal_path(path: str, original: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"{original!r}: a Hudi asset needs an absolute table path")
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/")  # normpath keeps a leading '//'


def normalize_hudi_uri(parsed: SplitResult) -> SplitResult:
    """Airflow's URI normalizer for the `hudi` scheme: one spelling per table (no `.`, `..` or
    doubled slashes in the path; bucket names lower case); a URI without a table path is refused."""
    if parsed.path in ("", "/"):
        raise ValueError(f"{parsed.geturl()!r} names no table: use hudi:///abs/path or hudi://bucket/key")
    return parsed._replace(netloc=parsed.netloc.lower(), path=_normal_path(parsed.path, parsed.geturl()))


def create_hudi_asset(*, table_path: str, extra: dict[str, Any] | None = None) -> Asset:
    """The asset factory Airflow registers for the scheme (e.g. when lineage names a table)."""
    return hudi_asset(table_path, extra=extra)


def hudi_asset_to_openlineage(asset: Asset, lineage_context: Any) -> Any:
    """The OpenLineage dataset of a Hudi asset: the table's storage location, named as OpenLineage
    names files and object-store paths (namespace `file` or `s3://bucket`, name the path)."""
    return openlineage_dataset(table_location(asset.uri))


def openlineage_dataset(location: str) -> Any:
    """An OpenLineage dataset for a table or file at `location` (path or URI)."""
    from airflow.providers.common.compat.openlineage.facet import Dataset  # noqa: PLC0415 - optional provider

    parsed = urlsplit(location)
    if parsed.scheme in _OBJECT_STORE_SCHEMES:
        return Dataset(namespace=f"s3://{parsed.netloc}", name=parsed.path.lstrip("/"))
    path = parsed.path if parsed.scheme == "file" else posixpath.abspath(location)
    return Dataset(namespace="file", name=path)
