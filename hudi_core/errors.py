"""The one exception hierarchy of hudi_core.

Every error a user can see derives from :class:`HudiError`. Messages name the offending
path, key, column or instant so that the error can be acted on without a debugger.
"""

from __future__ import annotations


class HudiError(Exception):
    """Base class of every error raised by hudi_core."""


class HudiConfigError(HudiError, ValueError):
    """An option key is unknown or unsupported, or its value is malformed."""


class HudiStorageError(HudiError):
    """A storage operation (list, read, write, rename) failed."""


class TimelineChangedError(HudiStorageError):
    """An instant file of a loaded timeline disappeared (archived or rolled back by another process
    meanwhile): reload the timeline and try again."""


class TableNotFoundError(HudiError):
    """The path holds no Hudi table (no `.hoodie/hoodie.properties`)."""


class UnsupportedTableVersionError(HudiError):
    """The table version is not one this build can read or write."""


class UnsupportedFeatureError(HudiError):
    """The table or request uses a Hudi feature this build does not implement."""


class TimelineError(HudiError):
    """An instant file is malformed or the timeline is inconsistent."""


class InstantNotFoundError(TimelineError):
    """A requested instant does not exist on the timeline (or is not completed)."""


class FileFormatError(HudiError):
    """A base file, log file, HFile or instant file holds unreadable or corrupt bytes."""


class SchemaError(HudiError):
    """Data does not match the table schema, or a type has no Hudi/Arrow mapping."""


class HudiNotInstalledError(HudiError, ImportError):
    """An optional dependency is missing; the message names the pip extra to install."""


class WriteConflictError(HudiError):
    """A write lost an optimistic-concurrency race or hit a pending service plan; safe to retry."""


class ConcurrentWriteError(HudiError):
    """Another live writer holds the table lock."""


class CommitError(HudiError):
    """A commit failed with an unknown outcome; inspect the timeline before retrying."""


class DuplicateKeyError(HudiError):
    """An insert batch holds duplicate record keys under `hoodie.datasource.insert.dup.policy=fail`."""


class IncrementalRangeUnavailableError(HudiError):
    """An incremental or CDC query reaches instants whose files were archived or cleaned."""


class MetadataTableError(HudiError):
    """The metadata table under `.hoodie/metadata` is inconsistent or unreadable."""


class FilterError(HudiError, ValueError):
    """A read filter names an unknown column or operator, or a value that does not fit the column."""


class InvalidKeyError(HudiError, ValueError):
    """A record key field is missing from the data, or a record's key is null or empty."""


class TableExistsError(HudiError):
    """A table is being created where one already exists."""


class MetaSyncError(HudiError):
    """A catalog (Hive metastore, AWS Glue) could not be brought up to date with a table.

    The table itself is unchanged by a failed sync: a write whose sync fails has committed, and the
    next sync (after the next write, or `hudi-core sync`) catches the catalog up.
    """
