"""Reproduce Spark: replay the corpus' Spark SQL scripts through our API and compare with Spark's tables.

Each `.sql` script of a version-8 Copy-on-Write sample table (CREATE TABLE ... USING HUDI, then
INSERT INTO ... VALUES) is parsed by the small parser below, turned into `HudiTable.create` and
one upsert per INSERT (Spark SQL INSERT INTO on Hudi 1.0 with a precombine field is an upsert),
and the table we write is compared with the one Spark wrote: the snapshot, the record keys and
partition paths of the rows, the partition directories, the file groups per partition, the
hoodie.properties key set and the definition it records. hudi-rs reads our table too.

The parser handles exactly what the three scripts use: comments (`--`, `/* */`), CREATE TABLE with
INT, STRING, BOOLEAN, BYTE, SHORT, LONG, FLOAT, DOUBLE, DECIMAL(p,s), DATE, TIMESTAMP, BINARY,
ARRAY<...>, MAP<...>, STRUCT<name: type, ...>; USING, TBLPROPERTIES (bare or quoted keys) and
PARTITIONED BY; INSERT INTO ... VALUES with numeric, string and boolean literals, CAST(... AS DATE /
TIMESTAMP / BINARY), ARRAY(...), MAP(...) and positional STRUCT(...).
"""

from __future__ import annotations

import collections
import datetime
import decimal
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_core import HudiTable
from pipelines.corpus import conformance_dir
from tests import hudi_rs
from tests.corpus import as_multiset, corpus_tables, data_columns, normalize_rows

pytestmark = pytest.mark.conformance

NAMES = [
    "sample_table/cow/v8_nonpartitioned",
    "sample_table/cow/v8_complexkeygen_hivestyle",
    "sample_table/cow/v8_simplekeygen_nonhivestyle",
]

# The v8 sample tables were written with Spark session time zone UTC: their expected files hold
# `TIMESTAMP '2023-04-01 12:01:00'` as 2023-04-01T12:01:00+00:00 (the v6 COW tables used CDT).
SESSION_TIME_ZONE = datetime.UTC

# Spark SQL's defaults for a Hudi table created by CREATE TABLE (`HoodieOptionConfig`): Hive-style
# partition paths unless TBLPROPERTIES say otherwise.
SPARK_SQL_TABLE_DEFAULTS = {"hoodie.datasource.write.hive_style_partitioning": "true"}

# (test, table) -> reason: assertions that fail because of a product bug (xfail, strict).
KNOWN_BUGS: dict[tuple[str, str], str] = {}

PARTITION_METAFILE = ".hoodie_partition_metadata"


def _cases(test: str) -> list[Any]:
    params = []
    for name in NAMES:
        reason = KNOWN_BUGS.get((test, name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(name, id=name.rsplit("/", 1)[-1], marks=marks))
    return params


# ---- a purpose-built Spark SQL parser --------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<skip>\s+|--[^\n]*|/\*.*?\*/)"
    r"|(?P<string>'(?:[^'\\]|\\.)*')"
    r"|(?P<number>\d+(?:\.\d+)?)"
    r"|(?P<word>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<punct>[(),<>:;=])",
    re.DOTALL,
)

_SIMPLE_TYPES: dict[str, pa.DataType] = {
    "INT": pa.int32(),
    "INTEGER": pa.int32(),
    "STRING": pa.string(),
    "BOOLEAN": pa.bool_(),
    # Hudi stores Spark's BYTE and SHORT as Avro int: they read back as int32.
    "BYTE": pa.int32(),
    "TINYINT": pa.int32(),
    "SHORT": pa.int32(),
    "SMALLINT": pa.int32(),
    "LONG": pa.int64(),
    "BIGINT": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "DATE": pa.date32(),
    "TIMESTAMP": pa.timestamp("us", tz="UTC"),
    "BINARY": pa.binary(),
}


@dataclass(frozen=True)
class Token:
    kind: str
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()


@dataclass(frozen=True)
class Expr:
    """A parsed value expression: `literal` (number as Decimal, str, bool), `cast`, `array`, `map`, `struct`."""

    kind: str
    value: Any = None
    args: tuple[Expr, ...] = ()
    type: pa.DataType | None = None


@dataclass
class CreateTable:
    name: str
    schema: pa.Schema
    partition_fields: list[str]
    properties: dict[str, str]


@dataclass
class Script:
    create: CreateTable
    inserts: list[list[dict[str, Any]]] = field(default_factory=list)  # one list of rows per INSERT


def tokenize(sql: str) -> list[Token]:
    tokens = []
    position = 0
    while position < len(sql):
        match = _TOKEN.match(sql, position)
        if match is None:
            raise ValueError(f"unexpected SQL at {sql[position : position + 30]!r}")
        position = match.end()
        kind = match.lastgroup
        assert kind is not None
        if kind != "skip":
            tokens.append(Token(kind, match.group()))
    return tokens


class Parser:
    def __init__(self, sql: str) -> None:
        self.tokens = tokenize(sql)
        self.position = 0

    # -- token helpers

    def peek(self) -> Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def next(self) -> Token:
        token = self.peek()
        if token is None:
            raise ValueError("unexpected end of SQL")
        self.position += 1
        return token

    def accept(self, text: str) -> bool:
        token = self.peek()
        if token is not None and token.upper == text.upper():
            self.position += 1
            return True
        return False

    def expect(self, text: str) -> None:
        token = self.next()
        if token.upper != text.upper():
            raise ValueError(f"expected {text!r}, got {token.text!r}")

    def identifier(self) -> str:
        token = self.next()
        if token.kind != "word":
            raise ValueError(f"expected an identifier, got {token.text!r}")
        return token.text

    def string(self) -> str:
        token = self.next()
        if token.kind != "string":
            raise ValueError(f"expected a string literal, got {token.text!r}")
        return re.sub(r"\\(.)", r"\1", token.text[1:-1])

    def comma_separated(self, item: Callable[[], Any]) -> list[Any]:
        self.expect("(")
        items = []
        if not self.accept(")"):
            items.append(item())
            while self.accept(","):
                items.append(item())
            self.expect(")")
        return items

    # -- statements

    def script(self) -> Script:
        create: CreateTable | None = None
        inserts: list[list[dict[str, Any]]] = []
        while self.peek() is not None:
            if self.accept(";"):
                continue
            if self.accept("CREATE"):
                create = self.create_table()
            elif self.accept("INSERT"):
                if create is None:
                    raise ValueError("INSERT before CREATE TABLE")
                inserts.append(self.insert_values(create))
            else:
                raise ValueError(f"unsupported statement at {self.next().text!r}")
        if create is None:
            raise ValueError("the script creates no table")
        return Script(create, inserts)

    def create_table(self) -> CreateTable:
        self.expect("TABLE")
        name = self.identifier()
        columns = self.comma_separated(self.column)
        self.expect("USING")
        if self.identifier().upper() != "HUDI":
            raise ValueError("only USING HUDI tables are supported")
        properties: dict[str, str] = {}
        partition_fields: list[str] = []
        while self.peek() is not None and self.peek() != Token("punct", ";"):
            if self.accept("TBLPROPERTIES"):
                properties.update(dict(self.comma_separated(self.table_property)))
            elif self.accept("PARTITIONED"):
                self.expect("BY")
                partition_fields = self.comma_separated(self.identifier)
            else:
                raise ValueError(f"unsupported CREATE TABLE clause {self.next().text!r}")
        # Spark moves partition columns to the end of a data source table's schema.
        by_name = dict(columns)
        ordered = [c for c in columns if c[0] not in partition_fields] + [(p, by_name[p]) for p in partition_fields]
        return CreateTable(name, pa.schema(ordered), partition_fields, properties)

    def column(self) -> tuple[str, pa.DataType]:
        return self.identifier(), self.data_type()

    def table_property(self) -> tuple[str, str]:
        token = self.peek()
        key = self.string() if token is not None and token.kind == "string" else self.identifier()
        self.expect("=")
        return key, self.string()

    def data_type(self) -> pa.DataType:
        name = self.identifier().upper()
        if name in _SIMPLE_TYPES:
            return _SIMPLE_TYPES[name]
        if name == "DECIMAL":
            precision, scale = self.comma_separated(lambda: int(self.next().text))
            return pa.decimal128(precision, scale)
        if name == "ARRAY":
            self.expect("<")
            element = self.data_type()
            self.expect(">")
            return pa.list_(pa.field("element", element))
        if name == "MAP":
            self.expect("<")
            key = self.data_type()
            self.expect(",")
            value = self.data_type()
            self.expect(">")
            return pa.map_(key, value)
        if name == "STRUCT":
            self.expect("<")
            fields = [self.struct_field()]
            while self.accept(","):
                fields.append(self.struct_field())
            self.expect(">")
            return pa.struct(fields)
        raise ValueError(f"unsupported Spark SQL type {name}")

    def struct_field(self) -> pa.Field:
        name = self.identifier()
        self.expect(":")
        return pa.field(name, self.data_type())

    def insert_values(self, create: CreateTable) -> list[dict[str, Any]]:
        self.expect("INTO")
        if self.identifier() != create.name:
            raise ValueError("INSERT INTO another table")
        self.expect("VALUES")
        rows = [self.comma_separated(self.expression)]
        while self.accept(","):
            rows.append(self.comma_separated(self.expression))
        result = []
        for values in rows:
            # Positional: the VALUES columns are the table columns in table-schema order.
            if len(values) != len(create.schema):
                raise ValueError(f"{len(values)} values for {len(create.schema)} columns")
            result.append({f.name: evaluate(v, f.type) for f, v in zip(create.schema, values, strict=True)})
        return result

    def expression(self) -> Expr:
        token = self.next()
        if token.kind == "number":
            return Expr("literal", decimal.Decimal(token.text))
        if token.kind == "string":
            self.position -= 1
            return Expr("literal", self.string())
        if token.upper in ("TRUE", "FALSE"):
            return Expr("literal", token.upper == "TRUE")
        if token.upper == "CAST":
            self.expect("(")
            inner = self.expression()
            self.expect("AS")
            target = self.data_type()
            self.expect(")")
            return Expr("cast", args=(inner,), type=target)
        if token.upper in ("ARRAY", "MAP", "STRUCT"):
            return Expr(token.text.lower(), args=tuple(self.comma_separated(self.expression)))
        raise ValueError(f"unsupported SQL expression at {token.text!r}")


def evaluate(expr: Expr, target: pa.DataType) -> Any:
    """The Python value of `expr` stored into a column of type `target` (Spark's implicit cast)."""
    if expr.kind == "cast":
        assert expr.type is not None
        if not expr.type.equals(target):
            raise ValueError(f"CAST AS {expr.type} into a {target} column is not supported")
        return evaluate(expr.args[0], expr.type)
    if expr.kind == "array":
        assert pa.types.is_list(target)
        return [evaluate(e, target.value_type) for e in expr.args]
    if expr.kind == "map":
        assert pa.types.is_map(target)
        pairs = list(zip(expr.args[::2], expr.args[1::2], strict=True))
        return [(evaluate(k, target.key_type), evaluate(v, target.item_type)) for k, v in pairs]
    if expr.kind == "struct":
        # STRUCT(...) names its fields col1, col2, ...: stored into a struct column by position.
        assert pa.types.is_struct(target) and target.num_fields == len(expr.args)
        return {target.field(i).name: evaluate(e, target.field(i).type) for i, e in enumerate(expr.args)}
    value = expr.value
    if isinstance(value, bool):
        assert pa.types.is_boolean(target)
        return value
    if isinstance(value, decimal.Decimal):
        if pa.types.is_integer(target):
            assert value == value.to_integral_value()
            return int(value)
        if pa.types.is_floating(target):
            return float(value)
        if pa.types.is_decimal(target):
            return value.quantize(decimal.Decimal(1).scaleb(-target.scale))
        raise ValueError(f"numeric literal into a {target} column")
    if pa.types.is_string(target):
        return value
    if pa.types.is_date(target):
        return datetime.date.fromisoformat(value)
    if pa.types.is_timestamp(target):
        local = datetime.datetime.fromisoformat(value).replace(tzinfo=SESSION_TIME_ZONE)
        return local.astimezone(datetime.UTC)
    if pa.types.is_binary(target):
        return value.encode("utf-8")
    raise ValueError(f"string literal into a {target} column")


def parse_script(sql: str) -> Script:
    return Parser(sql).script()


# ---- replaying a script through our API --------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    name: str
    script: Script
    ours: Path
    spark: Path


def replay(script: Script, path: Path) -> HudiTable:
    """CREATE TABLE and INSERT INTO, the way Spark SQL on Hudi 1.0 runs them."""
    create = script.create
    props = create.properties
    options = {**SPARK_SQL_TABLE_DEFAULTS, **{k: v for k, v in props.items() if k.startswith("hoodie.")}}
    ordering = props.get("preCombineField")
    table = HudiTable.create(
        str(path),
        create.schema,
        create.name,
        [k.strip() for k in props["primaryKey"].split(",")],
        create.partition_fields,
        [ordering] if ordering else None,
        props.get("type", "cow"),
        options,
    )
    for rows in script.inserts:
        # INSERT INTO a table with a precombine field is an upsert on Hudi 1.0 (Spark SQL).
        table.upsert(pa.Table.from_pylist(rows, schema=create.schema), options)
    return table


def _sql_path(name: str) -> Path:
    return conformance_dir() / "tables" / f"{name}.sql"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, corpus_table: Callable[[str], Path]) -> Callable[[str], Replay]:
    """Each script replayed once per module, next to the extracted Spark-written table."""
    done: dict[str, Replay] = {}

    def get(name: str) -> Replay:
        if name not in done:
            script = parse_script(_sql_path(name).read_text(encoding="utf-8"))
            target = tmp_path_factory.mktemp("replay") / script.create.name
            replay(script, target)
            done[name] = Replay(name, script, target, corpus_table(name))
        return done[name]

    return get


def _properties(base: Path) -> dict[str, str]:
    """hoodie.properties as written (simple `key=value` lines; values keep their escapes)."""
    text = (base / ".hoodie" / "hoodie.properties").read_text(encoding="utf-8")
    pairs = (line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key: value for key, value in pairs}


def _partition_dirs(base: Path) -> set[str]:
    found = set()
    for root, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if d != ".hoodie"]
        if PARTITION_METAFILE in files:
            found.add(Path(root).relative_to(base).as_posix().removeprefix("."))
    return found


def _file_groups(table: HudiTable) -> dict[str, int]:
    ids = {(s.partition_path, s.file_id) for s in table.file_slices()}
    return dict(collections.Counter(partition for partition, _ in ids))


def _spark_expected(name: str) -> list[dict[str, Any]]:
    return {t.name: t for t in corpus_tables()}[name].expected_snapshot()


# ---- the parser itself ---------------------------------------------------------------------------


def test_parse_script_literals_typed_by_column() -> None:
    sql = """
        CREATE TABLE t (id INT, d DECIMAL(10,5), ts TIMESTAMP, f FLOAT, -- a comment
                        s STRUCT<a: STRING, b: STRUCT<c: DOUBLE>>, m MAP<STRING, INT>, l ARRAY<INT>)
        USING HUDI TBLPROPERTIES (type = 'cow', 'hoodie.x' = 'y') PARTITIONED BY (id);
        /* block */ INSERT INTO t VALUES (1.5, CAST('2023-04-01 12:01:00' AS TIMESTAMP), 1.0,
                                          STRUCT('x', STRUCT(2.5)), MAP('k', 1), ARRAY(1, 2), 7);
    """
    script = parse_script(sql)
    assert script.create.schema.names == ["d", "ts", "f", "s", "m", "l", "id"]
    assert script.create.properties == {"type": "cow", "hoodie.x": "y"}
    # Values are positional in table-schema order (partition columns last).
    assert script.inserts == [
        [
            {
                "d": decimal.Decimal("1.50000"),
                "ts": datetime.datetime(2023, 4, 1, 12, 1, tzinfo=datetime.UTC),
                "f": 1.0,
                "s": {"a": "x", "b": {"c": 2.5}},
                "m": [("k", 1)],
                "l": [1, 2],
                "id": 7,
            }
        ]
    ]


@pytest.mark.parametrize("name", _cases("schema"))
def test_parse_script_schema_equals_spark_table_schema(name: str, corpus_table: Callable[[str], Path]) -> None:
    script = parse_script(_sql_path(name).read_text(encoding="utf-8"))
    spark_schema = HudiTable(str(corpus_table(name))).schema
    expected = pa.schema([spark_schema.field(n) for n in data_columns(spark_schema.names)])
    assert script.create.schema.equals(expected), f"{script.create.schema}\n!=\n{expected}"
    assert len(script.inserts) == 2


# ---- replay against Spark ------------------------------------------------------------------------


@pytest.mark.parametrize("name", _cases("snapshot"))
def test_replay_snapshot_equals_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    ours = HudiTable(str(run.ours)).read()
    expected = _spark_expected(name)
    assert data_columns(ours.column_names) == list(expected[0])
    assert as_multiset(normalize_rows(ours)) == as_multiset(expected)
    spark = HudiTable(str(run.spark)).read()
    assert as_multiset(normalize_rows(ours)) == as_multiset(normalize_rows(spark))


@pytest.mark.parametrize("name", _cases("meta_keys"))
def test_replay_record_keys_and_partition_paths_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    columns = ["_hoodie_record_key", "_hoodie_partition_path", *data_columns(run.script.create.schema.names)]
    ours = normalize_rows(HudiTable(str(run.ours)).read(), columns)
    spark = normalize_rows(HudiTable(str(run.spark)).read(), columns)
    assert as_multiset(ours) == as_multiset(spark)


@pytest.mark.parametrize("name", _cases("partition_dirs"))
def test_replay_partition_directories_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    assert _partition_dirs(run.ours) == _partition_dirs(run.spark)


@pytest.mark.parametrize("name", _cases("file_groups"))
def test_replay_file_groups_per_partition_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    assert _file_groups(HudiTable(str(run.ours))) == _file_groups(HudiTable(str(run.spark)))


@pytest.mark.parametrize("name", _cases("timeline"))
def test_replay_timeline_actions_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)

    def actions(base: Path) -> list[tuple[str, str]]:
        return [(i.action.value, i.state.value) for i in HudiTable(str(base)).timeline.instants()]

    assert actions(run.ours) == actions(run.spark)


@pytest.mark.parametrize("name", _cases("hudi_rs"))
def test_replay_hudi_rs_read_equals_ours(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    ours = HudiTable(str(run.ours)).read()
    theirs = hudi_rs.snapshot(run.ours)
    assert theirs.num_rows == ours.num_rows
    assert as_multiset(normalize_rows(theirs, ours.column_names)) == as_multiset(
        normalize_rows(ours, ours.column_names)
    )


@pytest.mark.parametrize("name", _cases("properties_keys"))
def test_replay_properties_keys_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    assert sorted(_properties(run.ours)) == sorted(_properties(run.spark))


# Values that record the table's definition (not timestamps, checksums or the schema text).
DEFINITION_KEYS = [
    "hoodie.table.type",
    "hoodie.table.version",
    "hoodie.table.initial.version",
    "hoodie.table.name",
    "hoodie.database.name",
    "hoodie.table.recordkey.fields",
    "hoodie.table.partition.fields",
    "hoodie.table.precombine.field",
    "hoodie.table.keygenerator.type",
    "hoodie.datasource.write.hive_style_partitioning",
    "hoodie.datasource.write.partitionpath.urlencode",
    "hoodie.datasource.write.drop.partition.columns",
    "hoodie.record.merge.mode",
    "hoodie.record.merge.strategy.id",
    "hoodie.compaction.payload.class",
    "hoodie.timeline.layout.version",
    "hoodie.timeline.path",
    "hoodie.timeline.history.path",
    "hoodie.archivelog.folder",
    "hoodie.table.checksum",
]


@pytest.mark.parametrize("name", _cases("properties_values"))
def test_replay_definition_properties_equal_spark(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    ours, spark = _properties(run.ours), _properties(run.spark)
    assert {k: ours.get(k) for k in DEFINITION_KEYS} == {k: spark.get(k) for k in DEFINITION_KEYS}


def _avro_shape(schema: Any) -> Any:
    """An Avro schema without what may legitimately differ: union branch order and null defaults."""
    if isinstance(schema, list):
        return sorted((_avro_shape(s) for s in schema), key=repr)
    if isinstance(schema, dict):
        return {k: _avro_shape(v) for k, v in schema.items() if not (k == "default" and v is None)}
    return schema


@pytest.mark.parametrize("name", _cases("create_schema"))
def test_replay_create_schema_matches_spark_up_to_union_order(name: str, replayed: Callable[[str], Replay]) -> None:
    run = replayed(name)
    ours, spark = (
        json.loads(_properties(base)["hoodie.table.create.schema"].replace("\\:", ":"))
        for base in (run.ours, run.spark)
    )
    assert _avro_shape(ours) == _avro_shape(spark)
