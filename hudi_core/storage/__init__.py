"""Storage: every byte hudi_core reads or writes goes through :class:`Storage`.

A Storage is rooted at a table's base path and addresses files by paths relative to it
("" is the base path itself, "city=sf/x.parquet" a data file). It wraps a
`pyarrow.fs.FileSystem`, chosen from the URI scheme (plain paths and `file://` are local).

Publishing must be atomic: :meth:`Storage.create_exclusive` creates a file only if it does not
exist, and :meth:`Storage.write_atomic` replaces a file so that readers never see a partial one.
Locally that is a hard link of a fully written temporary file, and a rename. Object stores have no
rename: on S3 (`s3://`, `s3a://`) an object PUT is atomic by itself, create-if-absent is a PUT
with `If-None-Match: *`, and :meth:`Storage.replace_if_unchanged` / :meth:`Storage.delete_if_unchanged`
are PUT / DELETE with `If-Match: <ETag>` (the storage-based table lock takes expired locks over
with them). S3 credentials, region and endpoint come from storage options registered for a URI
prefix (`register_storage_options`), else from the standard AWS environment variables of the same
names (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` or
`AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`), which every process and Spark
task of a job sees.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import posixpath
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs

from hudi_core.errors import HudiStorageError


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One directory entry: a name relative to the listed directory, its size and kind."""

    name: str
    size: int
    is_dir: bool


S3_SCHEMES = ("s3", "s3a")


# Storage options by URI prefix (`register_storage_options`), for this process.
_REGISTERED: dict[str, dict[str, str]] = {}
STORAGE_OPTION_NAMES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ENDPOINT_URL",
)


def register_storage_options(uri_prefix: str, options: Mapping[str, str]) -> None:
    """Object-store settings for every table under `uri_prefix` (e.g. `s3://bucket/lake`), under the
    AWS variable names (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
    `AWS_REGION`, `AWS_ENDPOINT_URL`): they win over the environment in this process. Spark
    executors are other processes: give them the variables (`spark.executorEnv.*`)."""
    unknown = sorted(set(options) - set(STORAGE_OPTION_NAMES))
    if unknown:
        raise HudiStorageError(f"unknown storage options {unknown}; known: {', '.join(STORAGE_OPTION_NAMES)}")
    _REGISTERED[_normal_prefix(uri_prefix)] = dict(options)


def _normal_prefix(uri: str) -> str:
    scheme, _, rest = uri.partition("://")
    return f"{'s3' if scheme.lower() in S3_SCHEMES else scheme.lower()}://{rest.strip('/')}" if rest else uri


def registered_options(uri: str) -> dict[str, str]:
    """The options registered for the longest prefix of `uri` (none: empty)."""
    normal = _normal_prefix(uri)
    matches = [p for p in _REGISTERED if normal == p or normal.startswith(p + "/")]
    return dict(_REGISTERED[max(matches, key=len)]) if matches else {}


def _setting(options: Mapping[str, str], *names: str) -> str | None:
    """The first of `names` set in `options`, else in the environment."""
    return next((options[n] for n in names if options.get(n)), None) or next(
        (os.environ[n] for n in names if os.environ.get(n)), None
    )


def _s3_file_system(options: Mapping[str, str]) -> pafs.S3FileSystem:
    endpoint = _setting(options, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
    settings: dict[str, Any] = {
        "access_key": _setting(options, "AWS_ACCESS_KEY_ID"),
        "secret_key": _setting(options, "AWS_SECRET_ACCESS_KEY"),
        "session_token": _setting(options, "AWS_SESSION_TOKEN"),
        "region": _setting(options, "AWS_REGION", "AWS_DEFAULT_REGION"),
    }
    if endpoint:
        parsed = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}")
        settings["endpoint_override"] = parsed.netloc
        settings["scheme"] = parsed.scheme
    return pafs.S3FileSystem(**{k: v for k, v in settings.items() if v is not None})


def _resolve(base_uri: str, options: Mapping[str, str]) -> tuple[pafs.FileSystem, str, str]:
    scheme = base_uri.split("://", 1)[0].lower() if "://" in base_uri else ""
    if scheme in S3_SCHEMES:
        path = base_uri.split("://", 1)[1].rstrip("/")
        if not path or path.startswith("/"):
            raise HudiStorageError(f"{base_uri} names no bucket")
        return _s3_file_system(options), path, f"{scheme}://{path}"
    if "://" not in base_uri and base_uri.startswith("file:/"):
        # Hadoop's spelling of a local path (`file:/x`): what Hive metastores and Spark print.
        path = os.path.abspath(base_uri[len("file:") :])
        return pafs.LocalFileSystem(), path, "file://" + path
    if "://" not in base_uri:
        path = os.path.abspath(os.path.expanduser(base_uri))
        return pafs.LocalFileSystem(), path, "file://" + path
    if base_uri.startswith("file://"):
        path = os.path.abspath(base_uri[len("file://") :])
        return pafs.LocalFileSystem(), path, "file://" + path
    try:
        fs, path = pafs.FileSystem.from_uri(base_uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
        raise HudiStorageError(f"cannot open storage for {base_uri}: {e}") from e
    return fs, path.rstrip("/"), base_uri.rstrip("/")


class Storage:
    """Files under one base path.

    Args:
        base_uri: a local path, a `file://` URI, or any URI pyarrow has a file system for.
        options: object-store settings under the AWS variable names (see
            `register_storage_options`, which sets them for every Storage under a prefix).
    """

    def __init__(self, base_uri: str, options: Mapping[str, str] | None = None) -> None:
        self.options = {**registered_options(base_uri), **(options or {})}
        self.fs, self.base_path, self.base_uri = _resolve(base_uri, self.options)
        self._s3_client: Any = None

    def __getstate__(self) -> dict[str, Any]:
        # Tasks carry their Storage to other processes (a process pool, Spark executors): the S3
        # client is made again there, from the same environment.
        return {**self.__dict__, "_s3_client": None}

    def relative(self, relative: str) -> str:
        """`relative` in normal form ("" for the base path itself).

        Every path a Storage touches passes here, whoever supplied it (a partition value, a plan, a
        marker, a metadata-table listing): an absolute path, or one whose `..` segments lead out of
        the base path, is a HudiStorageError naming it.
        """
        if relative.startswith("/"):
            raise HudiStorageError(f"{relative!r} is an absolute path, not a path inside the table at {self.base_uri}")
        normal = posixpath.normpath(relative) if relative else ""
        if normal == ".." or normal.startswith("../"):
            raise HudiStorageError(f"{relative!r} leads outside the table at {self.base_uri}")
        return "" if normal == "." else normal

    def relative_path(self, recorded: str) -> str:
        """The relative path of a full path or URI that a plan records (`file:/...`, `s3://...`, or
        a bare file-system path); a HudiStorageError when it is not inside the table."""
        for prefix in (self.full_uri(""), self.base_uri, self.base_path):
            if recorded == prefix:
                return ""
            if recorded.startswith(prefix + "/"):
                try:
                    return self.relative(recorded[len(prefix) + 1 :])
                except HudiStorageError:
                    break
        raise HudiStorageError(f"{recorded!r} is not inside the table at {self.base_uri}")

    def full_path(self, relative: str) -> str:
        """The file-system path of `relative` (which may be "" for the base path)."""
        normal = self.relative(relative)
        return posixpath.join(self.base_path, normal) if normal else self.base_path

    def full_uri(self, relative: str) -> str:
        """The URI of `relative` as Hudi records it in plans (`file:/...` for local paths)."""
        if self.is_local:
            return "file:" + self.full_path(relative)
        normal = self.relative(relative)
        return posixpath.join(self.base_uri, normal) if normal else self.base_uri

    def sub(self, relative: str) -> Storage:
        """A Storage rooted at `relative` below this one (sharing the file system)."""
        child = Storage.__new__(Storage)
        child.fs = self.fs
        child.options = self.options
        child._s3_client = self._s3_client
        child.base_path = self.full_path(relative)
        child.base_uri = self.full_uri(relative) if not self.is_local else "file://" + child.base_path
        return child

    def list_dir(self, relative: str = "") -> list[FileEntry]:
        """Entries directly in `relative`; an absent directory lists as empty."""
        selector = pafs.FileSelector(self.full_path(relative), allow_not_found=True, recursive=False)
        try:
            infos = self.fs.get_file_info(selector)
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot list {self.full_path(relative)}: {e}") from e
        return [
            FileEntry(info.base_name, info.size or 0, info.type == pafs.FileType.Directory)
            for info in infos
            if info.type in (pafs.FileType.File, pafs.FileType.Directory)
        ]

    def exists(self, relative: str) -> bool:
        try:
            info = self.fs.get_file_info(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot stat {self.full_path(relative)}: {e}") from e
        return bool(info.type != pafs.FileType.NotFound)

    def read_bytes(self, relative: str) -> bytes:
        try:
            with self.fs.open_input_stream(self.full_path(relative)) as stream:
                return bytes(stream.read())
        except FileNotFoundError as e:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}") from e
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot read {self.full_path(relative)}: {e}") from e

    def open_input_file(self, relative: str) -> pa.NativeFile:
        """A random-access file (for Parquet readers)."""
        try:
            return self.fs.open_input_file(self.full_path(relative))
        except FileNotFoundError as e:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}") from e
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot open {self.full_path(relative)}: {e}") from e

    # ---- writing -------------------------------------------------------------------------------

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def makedirs(self, relative: str) -> None:
        try:
            self.fs.create_dir(self.full_path(relative), recursive=True)
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot create directory {self.full_path(relative)}: {e}") from e

    def open_output(self, relative: str) -> pa.NativeFile:
        """A new output stream at `relative` (parents created), replacing any existing file.

        A write, flush or close that fails (a full disk) raises HudiStorageError naming the file,
        and the partial file is removed: a failed write leaves nothing behind.
        """
        normal = self.relative(relative)
        path = self.full_path(normal)
        parent = posixpath.dirname(normal)
        if parent:
            self.makedirs(parent)
        try:
            stream = self.fs.open_output_stream(path)
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot write {path}: {e}") from e
        return pa.PythonFile(_GuardedOutput(stream, self, normal), mode="w")

    def write_bytes(self, relative: str, data: bytes) -> None:
        """Writes a whole file (not atomically: for files no reader trusts before publication)."""
        with self.open_output(relative) as stream:
            stream.write(data)

    def write_atomic(self, relative: str, data: bytes) -> None:
        """Replaces `relative` with `data` so that readers see the old or the new file, never a part."""
        relative = self.relative(relative)  # checked before a temporary file exists
        if not self.is_local:
            self.write_bytes(relative, data)  # an object store publishes a PUT whole or not at all
            return
        temporary = f"{relative}.{uuid.uuid4().hex}.tmp"
        self.write_bytes(temporary, data)
        try:
            self.rename(temporary, relative)
        except HudiStorageError:
            _discard(self, temporary)
            raise
        # Hadoop's local file system keeps a `.<name>.crc` beside each file it wrote and rejects the
        # file when its content no longer matches: a checksum of the replaced content must go.
        directory, name = posixpath.split(relative)
        self.delete(posixpath.join(directory, f".{name}.crc"))

    def create_exclusive(self, relative: str, data: bytes) -> bool:
        """Creates `relative` holding `data` unless it exists; returns whether this call created it.

        Locally a fully written temporary file is hard-linked to the name: link() fails if the name
        exists, so creation is exclusive and readers never see a partial file.
        """
        if self.is_s3:
            return self._s3_put(relative, data, IfNoneMatch="*")
        if not self.is_local:
            raise HudiStorageError(f"create-if-absent is not available on {type(self.fs).__name__}")
        path = self.full_path(relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{uuid.uuid4().hex}.tmp"
        try:
            with open(temporary, "wb") as f:
                f.write(data)
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError as e:
            raise HudiStorageError(f"cannot create {path}: {e}") from e
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        return True

    # ---- object-store conditional requests -------------------------------------------------------

    @property
    def is_s3(self) -> bool:
        return isinstance(self.fs, pafs.S3FileSystem)

    def _s3(self) -> Any:
        if self._s3_client is None:
            try:  # the `s3` extra: pyarrow does not expose conditional requests
                boto3 = importlib.import_module("boto3")
            except ImportError as e:
                raise HudiStorageError("tables on S3 need boto3: pip install 'hudi-dagster[s3]'") from e
            settings = {
                "aws_access_key_id": _setting(self.options, "AWS_ACCESS_KEY_ID"),
                "aws_secret_access_key": _setting(self.options, "AWS_SECRET_ACCESS_KEY"),
                "aws_session_token": _setting(self.options, "AWS_SESSION_TOKEN"),
                "region_name": _setting(self.options, "AWS_REGION", "AWS_DEFAULT_REGION"),
                "endpoint_url": _setting(self.options, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
            }
            self._s3_client = boto3.client("s3", **{k: v for k, v in settings.items() if v is not None})
        return self._s3_client

    def _s3_key(self, relative: str) -> tuple[str, str]:
        bucket, _, key = self.full_path(relative).partition("/")
        return bucket, key

    def _s3_put(self, relative: str, data: bytes, **condition: str) -> bool:
        """A conditional PUT; False when the condition failed (another writer got there first)."""
        bucket, key = self._s3_key(relative)
        try:
            self._s3().put_object(Bucket=bucket, Key=key, Body=data, **condition)
        except Exception as e:
            if _precondition_failed(e):
                return False
            raise HudiStorageError(f"cannot write {self.full_uri(relative)}: {e}") from e
        return True

    def read_tagged(self, relative: str) -> tuple[bytes, str] | None:
        """The content of `relative` and a version tag (S3: the ETag), or None if it does not exist."""
        relative = self.relative(relative)  # outside the table is an error, not an absent file
        if not self.is_s3:
            try:
                return self.read_bytes(relative), ""
            except HudiStorageError:
                return None
        bucket, key = self._s3_key(relative)
        try:
            response = self._s3().get_object(Bucket=bucket, Key=key)
        except Exception as e:
            if _not_found(e):
                return None
            raise HudiStorageError(f"cannot read {self.full_uri(relative)}: {e}") from e
        return bytes(response["Body"].read()), str(response["ETag"])

    def replace_if_unchanged(self, relative: str, data: bytes, tag: str) -> bool:
        """Replaces `relative` only if it still has version `tag` (S3: `If-Match`); False otherwise."""
        if not self.is_s3:
            raise HudiStorageError("replace_if_unchanged is for object stores (local locks rename aside)")
        return self._s3_put(relative, data, IfMatch=tag)

    def delete_if_unchanged(self, relative: str, tag: str) -> bool:
        """Deletes `relative` only if it still has version `tag` (S3: `If-Match`); False otherwise."""
        if not self.is_s3:
            raise HudiStorageError("delete_if_unchanged is for object stores (local locks rename aside)")
        bucket, key = self._s3_key(relative)
        try:
            self._s3().delete_object(Bucket=bucket, Key=key, IfMatch=tag)
        except Exception as e:
            if _precondition_failed(e) or _not_found(e):
                return False
            raise HudiStorageError(f"cannot delete {self.full_uri(relative)}: {e}") from e
        return True

    def rename(self, source: str, target: str) -> None:
        try:
            self.fs.move(self.full_path(source), self.full_path(target))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot rename {self.full_path(source)} to {self.full_path(target)}: {e}") from e

    def delete(self, relative: str, missing_ok: bool = True) -> None:
        try:
            self.fs.delete_file(self.full_path(relative))
        except FileNotFoundError:
            if not missing_ok:
                raise HudiStorageError(f"file not found: {self.full_path(relative)}") from None
        except OSError as e:
            if e.errno == errno.ENOENT and missing_ok:
                return
            raise HudiStorageError(f"cannot delete {self.full_path(relative)}: {e}") from e

    def delete_dir(self, relative: str) -> None:
        try:
            self.fs.delete_dir(self.full_path(relative))
        except FileNotFoundError:
            return
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot delete {self.full_path(relative)}: {e}") from e

    def modified_ms(self, relative: str) -> int | None:
        """When `relative` was last modified (epoch ms), or None if it does not exist."""
        try:
            info = self.fs.get_file_info(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot stat {self.full_path(relative)}: {e}") from e
        if info.type == pafs.FileType.NotFound or info.mtime_ns is None:
            return None
        return int(info.mtime_ns // 1_000_000)

    def size(self, relative: str) -> int:
        try:
            info = self.fs.get_file_info(self.full_path(relative))
        except (OSError, pa.ArrowException) as e:
            raise HudiStorageError(f"cannot stat {self.full_path(relative)}: {e}") from e
        if info.type == pafs.FileType.NotFound:
            raise HudiStorageError(f"file not found: {self.full_path(relative)}")
        return int(info.size or 0)


class _GuardedOutput:
    """An output stream (wrapped by `pa.PythonFile`) whose failures raise HudiStorageError naming
    the file, after closing it and removing the partial file; later calls repeat the first error."""

    def __init__(self, stream: pa.NativeFile, storage: Storage, relative: str) -> None:
        self._stream = stream
        self._storage = storage
        self._relative = relative
        self._error: HudiStorageError | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        # Open until closed by the caller, even after a failure: pyarrow would otherwise replace
        # the error of a later write (a Parquet footer) with a vaguer "operation on closed file".
        return self._closed

    def _fail(self, error: Exception) -> HudiStorageError:
        if self._error is None:
            self._error = HudiStorageError(f"cannot write {self._storage.full_path(self._relative)}: {error}")
            with contextlib.suppress(OSError, pa.ArrowException):
                self._stream.close()
            _discard(self._storage, self._relative)
        return self._error

    def write(self, data: Any) -> int:
        if self._error is not None:
            raise self._error
        try:
            return int(self._stream.write(data))
        except (OSError, pa.ArrowException) as e:
            raise self._fail(e) from e

    def flush(self) -> None:
        if self._error is not None:
            raise self._error
        try:
            self._stream.flush()
        except (OSError, pa.ArrowException) as e:
            raise self._fail(e) from e

    def tell(self) -> int:
        return int(self._stream.tell())

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._error is not None:
            return  # closed and removed when it failed
        try:
            self._stream.close()  # flushes what is buffered: a full disk may surface only here
        except (OSError, pa.ArrowException) as e:
            raise self._fail(e) from e


def _discard(storage: Storage, relative: str) -> None:
    """Removes what a failed write left; the write's own error is the one worth reporting."""
    with contextlib.suppress(HudiStorageError):
        storage.delete(relative)


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""


def _precondition_failed(error: Exception) -> bool:
    # 412 PreconditionFailed; 409 ConditionalRequestConflict when two conditional writes race.
    return _error_code(error) in ("PreconditionFailed", "412", "ConditionalRequestConflict", "409")


def _not_found(error: Exception) -> bool:
    return _error_code(error) in ("NoSuchKey", "404", "NotFound")
