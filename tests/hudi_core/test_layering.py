"""hudi_core's packages form floors that only import downward, and no modules import each other in
a cycle.

Floors, from the ground up (a package on a floor may import its own floor and the ones below):

    errors, metrics, config, storage, expr, parallel
    timeline
    schema, keygen
    file_group      base and log files, the bloom filter of base files
    merge           merge rules and the file-group reader that applies them
    index, metadata, table    record locations; the metadata table; the table on storage
    lifecycle       an instant on storage: heartbeats, markers, crash points, rollback, pending
                    plans, the metadata-table update every commit makes
    concurrency     the locks and conflict checks a commit takes (below every writer that commits,
                    as Hudi's transaction manager is below its write client)
    write           the planner (engine-neutral decisions, routing, file sizing), the file-group
                    writes it fans out, and the write client's commit protocol
    engine          where file-group work runs: Arrow threads in process, Spark executors
    services        table services, inline scheduling, metadata indexing and validation, upgrades
    sync            catalog (meta) sync: the Hive metastore and AWS Glue registrations of a table
    hudi_table      the façade: HudiTable, write_hudi
    cli, spark      entry points: the command line; Spark sessions, the data source, DataFrame writes
    orchestration   what orchestrator integrations share (hudi_dagster, hudi_airflow): the write that
                    follows its data's engine, consumers' commit windows, the CDC mirror, services

Every import counts, those under TYPE_CHECKING and inside functions too, and there are no exceptions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "hudi_core"

FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "metrics", "config", "storage", "expr", "parallel"),
    ("timeline",),
    ("schema", "keygen"),
    ("file_group",),
    ("merge",),
    ("index", "metadata", "table"),
    ("lifecycle",),
    ("concurrency",),
    ("write",),
    ("engine",),
    ("services", "sync"),
    ("hudi_table",),
    ("cli", "spark"),
    ("orchestration",),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> Iterator[str]:
    """hudi_core modules and packages `path` imports (a `from X import y` names X.y too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets = set()
        for target in _imports(path, name):
            if target in paths:
                targets.add(target)
            elif target.rpartition(".")[0] == "hudi_core":
                targets.add("hudi_core.hudi_table")  # a name the package root re-exports: the façade's floor
        graph[name] = targets - {name}
    return graph


def _floor(module: str) -> int:
    top = module.split(".")[1] if "." in module else ""
    for level, packages in enumerate(FLOORS):
        if top in packages:
            return level
    raise AssertionError(f"{module} is on no floor: add its package to FLOORS")


def test_every_package_is_on_one_floor() -> None:
    for module in _graph():
        if module != "hudi_core":
            _floor(module)


def test_imports_only_look_down() -> None:
    graph = _graph()
    upward = {
        (module, target)
        for module, targets in graph.items()
        if module != "hudi_core"
        for target in targets
        if target != "hudi_core" and _floor(target) > _floor(module)
    }
    assert not upward, "imports from a lower floor to a higher one:\n" + "\n".join(
        f"{a} -> {b}" for a, b in sorted(upward)
    )


def test_no_modules_import_each_other_in_a_cycle() -> None:
    graph = _graph()
    # A package's __init__ that re-exports its own modules is not a cycle of the code; a module
    # importing its package's __init__ is (it runs that __init__ first).
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if module.startswith(target + ".") or target.startswith(module + "."):
                continue  # a package and its own modules
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_integrations_stay_apart() -> None:
    """hudi_core imports neither integration; hudi_dagster and hudi_airflow never import each other
    (they run in different environments: .venv and .venv-airflow)."""
    root = PACKAGE.parent
    rules = {
        "hudi_core": ("hudi_dagster", "hudi_airflow"),
        "hudi_dagster": ("hudi_airflow",),
        "hudi_airflow": ("hudi_dagster",),
    }
    found = []
    for package, forbidden in rules.items():
        for path in sorted((root / package).rglob("*.py")):
            for target in _imports(path, _module_name(path)):
                if target.split(".")[0] in forbidden:
                    found.append(f"{path.relative_to(root)} imports {target}")
    assert not found, "\n".join(found)
