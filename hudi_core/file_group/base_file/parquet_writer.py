"""Writing Parquet base files the way Spark + Hudi 1.0 write them (spec notes §8.1, §8.2, §8.3).

Mirrors `HoodieAvroParquetWriter` with `HoodieAvroWriteSupport` (parquet-avro's `AvroWriteSupport`
plus `HoodieBloomFilterWriteSupport`): the five meta columns first, then the data columns, and the
footer key/value metadata

* `parquet.avro.schema`: the Avro schema with the meta fields (:func:`with_meta_fields_avro`),
* `writer.model.name`: `avro`,
* with a bloom filter: `org.apache.hudi.bloomfilter`, `hoodie_bloom_filter_type_code`, and, when the
  file holds at least one record key, `hoodie_min_record_key` / `hoodie_max_record_key` (compared
  like Java's `String.compareTo`, i.e. by UTF-16 code units).

pyarrow writes the Parquet types Spark's parquet-avro writes (BYTE_ARRAY String, INT32 DATE,
INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true) -- never INT96 or nanoseconds --, decimals as
FIXED_LEN_BYTE_ARRAY of the minimal size, maps as `key_value` groups with required keys), with
these layout differences it cannot avoid, all of which parquet-avro, Spark and hudi-rs read:

* lists use the standard 3-level layout (`<name> (LIST) { repeated group list { optional element } }`)
  where Hudi 1.0 writes parquet-avro's legacy 2-level one (`repeated group array`); the leaf paths
  therefore read `<col>.list.element...` instead of `<col>.array...` and, because our elements are
  nullable as the Avro items `["null", T]` say, their definition levels are one higher;
* the root group is named `schema` rather than the Avro full name, and `key_value` groups carry no
  MAP_KEY_VALUE converted type (pyarrow does not expose either);
* `created_by` names parquet-cpp-arrow instead of parquet-mr.

The file metadata version is 1 (as parquet-mr writes) and pyarrow's own `ARROW:schema` key is not
written, so the footer carries only Hudi's keys.
"""

from __future__ import annotations

import functools
import json

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_core.config.write import DEFAULT_PARQUET_CODEC, HudiWriteConfig
from hudi_core.errors import FileFormatError, HudiConfigError, HudiStorageError, SchemaError
from hudi_core.file_group.base_file.bloom_filter import BloomFilter
from hudi_core.schema.arrow_avro import AvroDict, normalize_for_write, with_meta_fields_avro
from hudi_core.schema.avro import avro_to_arrow_schema
from hudi_core.schema.meta_fields import COMMIT_SEQNO, META_FIELDS, RECORD_KEY
from hudi_core.storage import Storage

AVRO_SCHEMA_KEY = "parquet.avro.schema"
WRITER_MODEL_KEY = "writer.model.name"
BLOOM_FILTER_KEY = "org.apache.hudi.bloomfilter"
BLOOM_FILTER_TYPE_KEY = "hoodie_bloom_filter_type_code"
MIN_RECORD_KEY = "hoodie_min_record_key"
MAX_RECORD_KEY = "hoodie_max_record_key"

DEFAULT_ROW_GROUP_BYTES = 120 * 1024 * 1024  # hoodie.parquet.block.size
DEFAULT_PAGE_BYTES = 1024 * 1024  # hoodie.parquet.page.size

# hoodie.parquet.compression.codec values -> pyarrow codec names.
_CODECS = {"gzip": "gzip", "snappy": "snappy", "zstd": "zstd", "none": "none", "uncompressed": "none"}
# parquet-mr compresses gzip through zlib's default level (6); Arrow's default (9) costs ~3x the time
# for under 1% smaller files. zstd at level 1 (our default codec): on the 1M-row trips data a bulk
# insert wrote 119 MB in 2.5 s, against 125 MB in 9.2 s with gzip 6, 121 MB in 3.1 s with zstd 3
# and 165 MB in 2.5 s with snappy.
_LEVELS = {"gzip": 6, "zstd": 1}
_SUPPLEMENTARY = r"[\x{10000}-\x{10FFFF}]"
# Meta columns holding a different value in every row: a dictionary for them is built only to be
# abandoned (parquet-mr falls back to plain after the first page too); skipping it saves a third
# of the write time at the same file size.
_UNIQUE_PER_ROW = frozenset({COMMIT_SEQNO, RECORD_KEY})
# A flat column whose first rows are mostly distinct values is written plain: its dictionary would
# be about as large as the values, so hashing them buys nothing. On the trips data (coordinates,
# timestamps, ids) this writes a file 30% faster and 10% smaller than dictionaries on every column.
_DICTIONARY_SAMPLE_ROWS = 4096
_MOSTLY_DISTINCT = 0.5


def codec_level(codec: str) -> int | None:
    """The compression level base files of `codec` are written at (None: the codec has none)."""
    return _LEVELS.get(codec)


def write_base_file(
    storage: Storage,
    path: str,
    table: pa.Table,
    avro_schema: AvroDict,
    bloom: BloomFilter | None,
    compression: str = DEFAULT_PARQUET_CODEC,
    row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
    page_bytes: int = DEFAULT_PAGE_BYTES,
    new_row_group_at: int | None = None,
) -> int:
    """Writes one base file and returns its size in bytes.

    Args:
        storage: the table storage.
        path: the file, relative to the base path (parent directories are created).
        table: the five meta columns first, then the data columns in `avro_schema` order.
        avro_schema: the data schema (without meta fields), e.g. from `table_avro_schema`.
        bloom: the filter already holding this file's `_hoodie_record_key` values (in file order),
            or None when meta fields are not populated (then no bloom/min/max keys are written).
        compression: `zstd` (our default), `gzip` (Apache Hudi's default), `snappy` or `none`.
        row_group_bytes: target row-group size, estimated from the in-memory Arrow size.
        page_bytes: target data page size.
        new_row_group_at: a row position where a row group must start (besides those the size sets).

    Raises:
        SchemaError: the columns do not match the meta fields plus `avro_schema`.
        HudiConfigError: unknown compression codec.
        FileFormatError / HudiStorageError: pyarrow or the storage failed (the partial file is removed).
    """
    codec = _CODECS.get(compression.lower())
    if codec is None:
        raise HudiConfigError(
            f"{HudiWriteConfig.PARQUET_COMPRESSION.key}={compression!r}: expected one of {sorted(_CODECS)}"
        )
    if row_group_bytes <= 0 or page_bytes <= 0:
        raise HudiConfigError(f"row_group_bytes ({row_group_bytes}) and page_bytes ({page_bytes}) must be positive")
    table = normalize_for_write(table)
    _check_columns(table.schema, avro_schema, path)
    metadata = footer_metadata(table, avro_schema, bloom)
    # pyarrow writes the schema metadata only into ARROW:schema, which is off; keep the schema clean.
    table = table.replace_schema_metadata(None)
    rows_per_group = max(1, row_group_bytes * table.num_rows // table.nbytes) if table.nbytes else 1
    full_path = storage.full_path(path)
    sink = storage.open_output(path)
    try:
        writer = _writer(sink, table, codec, page_bytes)
        try:
            split = new_row_group_at if new_row_group_at is not None and 0 < new_row_group_at < table.num_rows else None
            parts = [table] if split is None else [table.slice(0, split), table.slice(split)]
            for part in parts:  # every write_table call ends its own row groups
                writer.write_table(part, row_group_size=rows_per_group)
            writer.add_key_value_metadata(metadata)
        finally:
            writer.close()
        size = int(sink.tell())
        sink.close()
    except BaseException as e:
        sink.close()
        storage.delete(path)
        if isinstance(e, (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)):
            raise FileFormatError(f"{full_path}: cannot write Parquet: {e}") from e
        if isinstance(e, OSError):
            raise HudiStorageError(f"cannot write {full_path}: {e}") from e
        raise
    return size


def encoded_size(
    table: pa.Table, compression: str = DEFAULT_PARQUET_CODEC, page_bytes: int = DEFAULT_PAGE_BYTES
) -> int:
    """Bytes the column data of `table` takes in a base file (encoded as `write_base_file` encodes
    it, without the footer): what file sizing measures a sample by."""
    codec = _CODECS.get(compression.lower(), "zstd")
    sink = pa.BufferOutputStream()
    table = normalize_for_write(table).replace_schema_metadata(None)
    writer = _writer(sink, table, codec, page_bytes)
    writer.write_table(table)
    before_footer = int(sink.tell())
    writer.close()
    return before_footer


def _writer(sink: pa.NativeFile, table: pa.Table, codec: str, page_bytes: int) -> pq.ParquetWriter:
    """A Parquet writer with the base files' settings (dictionaries chosen from `table`'s rows)."""
    return pq.ParquetWriter(
        sink,
        table.schema,
        version="1.0",
        compression=codec,
        compression_level=codec_level(codec),
        use_dictionary=_dictionary_columns(table),
        data_page_size=page_bytes,
        write_statistics=True,
        store_schema=False,
        use_deprecated_int96_timestamps=False,
        use_compliant_nested_type=True,
    )


def _dictionary_columns(table: pa.Table) -> list[str]:
    """The Parquet column paths of `table` written with a dictionary: all but the unique meta
    columns and the flat columns whose first rows are mostly distinct."""
    sample = table.slice(0, _DICTIONARY_SAMPLE_ROWS)
    chosen: list[str] = []
    for name, paths in _leaf_paths(table.schema).items():
        if name in _UNIQUE_PER_ROW:
            continue
        column = sample.column(name)
        flat = not pa.types.is_nested(column.type)
        if flat and sample.num_rows and len(pc.unique(column)) > _MOSTLY_DISTINCT * sample.num_rows:
            continue
        chosen.extend(paths)
    return chosen


@functools.lru_cache(maxsize=64)
def _leaf_paths(schema: pa.Schema) -> dict[str, list[str]]:
    """The Parquet column paths of each top-level column of `schema`, as pyarrow writes them."""
    sink = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), sink, use_compliant_nested_type=True, store_schema=False)
    parquet_schema = pq.ParquetFile(pa.BufferReader(sink.getvalue())).schema
    leaves = iter(parquet_schema.column(i).path for i in range(len(parquet_schema)))
    return {field.name: [next(leaves) for _ in range(_leaf_count(field.type))] for field in schema}


def _leaf_count(arrow_type: pa.DataType) -> int:
    """Parquet leaf columns of a column of `arrow_type` (fields of structs, list items, map keys and values)."""
    if pa.types.is_struct(arrow_type):
        return sum(_leaf_count(arrow_type.field(i).type) for i in range(arrow_type.num_fields))
    if pa.types.is_map(arrow_type):
        return _leaf_count(arrow_type.key_type) + _leaf_count(arrow_type.item_type)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return _leaf_count(arrow_type.value_type)
    return 1


def footer_metadata(table: pa.Table, avro_schema: AvroDict, bloom: BloomFilter | None) -> dict[str, str]:
    """The footer key/value metadata of a base file holding `table` (see the module docstring)."""
    metadata: dict[str, str] = {}
    if bloom is not None:
        bounds = java_min_max(table.column(RECORD_KEY))
        if bounds is not None:
            metadata[MIN_RECORD_KEY] = bounds[0]
        metadata[BLOOM_FILTER_KEY] = bloom.serialize()
        if bounds is not None:
            metadata[MAX_RECORD_KEY] = bounds[1]
        metadata[BLOOM_FILTER_TYPE_KEY] = bloom.filter_type
    metadata[WRITER_MODEL_KEY] = "avro"
    metadata[AVRO_SCHEMA_KEY] = json.dumps(
        with_meta_fields_avro(avro_schema), separators=(",", ":"), ensure_ascii=False
    )
    return metadata


def java_min_max(keys: pa.ChunkedArray | pa.Array) -> tuple[str, str] | None:
    """Smallest and largest non-null string as Java's `String.compareTo` orders them; None if there is none.

    UTF-8 byte order equals code point order, which differs from Java's UTF-16 code unit order only
    between supplementary characters (surrogate pairs) and U+E000..U+FFFF; only keys holding a
    supplementary character take the slow path.
    """
    keys = keys.drop_null()
    if len(keys) == 0:
        return None
    if pc.all(pc.string_is_ascii(keys)).as_py() or not pc.any(pc.match_substring_regex(keys, _SUPPLEMENTARY)).as_py():
        bounds = pc.min_max(keys)
        return str(bounds["min"].as_py()), str(bounds["max"].as_py())
    values = [str(v) for v in keys.to_pylist()]
    return min(values, key=_utf16), max(values, key=_utf16)


def _utf16(value: str) -> bytes:
    # Big-endian UTF-16 bytes compare like Java's char-by-char comparison (shorter prefix first).
    return value.encode("utf-16-be")


def _check_columns(schema: pa.Schema, avro_schema: AvroDict, path: str) -> None:
    names = schema.names
    if tuple(names[: len(META_FIELDS)]) != META_FIELDS:
        raise SchemaError(f"{path}: the first columns must be the meta fields {list(META_FIELDS)}, got {names[:5]}")
    for name in META_FIELDS:
        if not pa.types.is_string(schema.field(name).type):
            raise SchemaError(f"{path}: meta column {name!r} must be string, got {schema.field(name).type}")
    expected = avro_to_arrow_schema(avro_schema)
    data = schema.names[len(META_FIELDS) :]
    if data != expected.names:
        raise SchemaError(f"{path}: data columns {data} do not match the Avro schema fields {expected.names}")
    for field in expected:
        actual = schema.field(field.name).type
        if actual != field.type:
            raise SchemaError(f"{path}: column {field.name!r} is {actual} but the Avro schema says {field.type}")
