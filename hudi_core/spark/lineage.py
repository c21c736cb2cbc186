"""Column lineage of a Spark DataFrame: each output column's source columns in the Hudi tables
(or any path-based sources) its plan reads, taken from Spark's analyzed plan.

Classic Spark only (the plan lives in the driver's JVM); over Spark Connect there is none.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pyspark.sql import DataFrame

ALIAS = "org.apache.spark.sql.catalyst.expressions.Alias"
ATTRIBUTE = "org.apache.spark.sql.catalyst.expressions.AttributeReference"

SourceColumn = tuple[str, str]  # (table path, column)


def _expressions(value: Any) -> Iterator[list[dict[str, Any]]]:
    """The expressions (each a pre-order list of nodes) in one field of a serialized plan node."""
    if isinstance(value, list) and value and isinstance(value[0], dict) and "class" in value[0]:
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _expressions(item)


def _scala_items(sequence: Any) -> Iterator[Any]:
    for index in range(sequence.size()):
        yield sequence.apply(index)


def column_lineage(df: DataFrame) -> dict[str, list[SourceColumn]] | None:
    """{output column: [(source table path, source column), ...]}; None when the plan is not
    reachable (Spark Connect) or reads no path-based source."""
    try:
        plan = df._jdf.queryExecution().analyzed()
        nodes = json.loads(plan.toJSON())
    except Exception:  # no JVM plan (Spark Connect): no lineage, not an error
        return None
    derived: dict[int, set[int]] = {}
    for node in nodes:
        for value in node.values():
            for expression in _expressions(value):
                root = expression[0]
                if root.get("class") == ALIAS:
                    refs = {e["exprId"]["id"] for e in expression[1:] if e.get("class") == ATTRIBUTE}
                    derived.setdefault(root["exprId"]["id"], set()).update(refs)
    sources: dict[int, SourceColumn] = {}
    for leaf in _scala_items(plan.collectLeaves()):
        if leaf.getClass().getSimpleName() != "DataSourceV2Relation":  # the `hudi` source's relation
            continue
        path = leaf.options().get("path")
        if not path:
            continue
        for attribute in _scala_items(leaf.output()):
            sources[attribute.exprId().id()] = (str(path), str(attribute.name()))
    if not sources:
        return None

    def resolve(expr_id: int, seen: frozenset[int] = frozenset()) -> set[SourceColumn]:
        if expr_id in sources:
            return {sources[expr_id]}
        if expr_id in seen:
            return set()
        return {s for ref in derived.get(expr_id, ()) for s in resolve(ref, seen | {expr_id})}

    return {
        str(attribute.name()): sorted(resolve(attribute.exprId().id())) for attribute in _scala_items(plan.output())
    }
