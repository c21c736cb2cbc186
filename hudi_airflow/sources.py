"""Input files of a write task, read as Arrow: Parquet or CSV, local or on S3."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs

SOURCE_FORMATS = ("parquet", "csv")


def source_paths(source: str | Sequence[str]) -> list[str]:
    """One path or URI, or several (an XCom may pass a list)."""
    paths = [source] if isinstance(source, str) else list(source)
    if not paths or not all(isinstance(p, str) and p for p in paths):
        raise ValueError(f"source must be a file path or URI, or a list of them; got {source!r}")
    return paths


def source_format(paths: Sequence[str], chosen: str | None) -> str:
    """The chosen format, else the one every path's suffix names."""
    if chosen is not None:
        return chosen
    suffixes = {p.rstrip("/").rsplit(".", 1)[-1].lower() for p in paths}
    if len(suffixes) == 1 and (found := suffixes.pop()) in SOURCE_FORMATS:
        return found
    raise ValueError(f"cannot tell the format of {list(paths)} from their names: set source_format (parquet or csv)")


def filesystem(location: str, storage_options: Mapping[str, str]) -> tuple[pafs.FileSystem, str]:
    """The pyarrow filesystem and in-filesystem path of `location`, S3 with the storage settings."""
    parsed = urlsplit(location)
    if parsed.scheme in ("s3", "s3a"):
        endpoint = storage_options.get("AWS_ENDPOINT_URL_S3") or storage_options.get("AWS_ENDPOINT_URL")
        s3 = pafs.S3FileSystem(
            access_key=storage_options.get("AWS_ACCESS_KEY_ID"),
            secret_key=storage_options.get("AWS_SECRET_ACCESS_KEY"),
            session_token=storage_options.get("AWS_SESSION_TOKEN"),
            region=storage_options.get("AWS_REGION") or storage_options.get("AWS_DEFAULT_REGION"),
            endpoint_override=endpoint,
        )
        return s3, f"{parsed.netloc}{parsed.path}"
    if parsed.scheme in ("", "file"):
        return pafs.LocalFileSystem(), parsed.path if parsed.scheme else location
    raise ValueError(f"{location!r}: sources are local paths, file:// or s3:// URIs")


def read_source(source: str | Sequence[str], chosen_format: str | None, storage_options: Mapping[str, str]) -> pa.Table:
    """The rows of the source files (a directory reads all its files)."""
    paths = source_paths(source)
    fmt = source_format(paths, chosen_format)
    tables = []
    for path in paths:
        fs, inner = filesystem(path, storage_options)
        tables.append(ds.dataset(inner, format=fmt, filesystem=fs).to_table())
    return pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]
