"""Every `hoodie.*` option key is spelled once, in its declaration under `hudi_core/config/`.

Code elsewhere names a key through its declaration (`HudiWriteConfig.OPERATION.key`), so a renamed
or aliased key cannot leave a stale spelling behind in a message, a default or a lookup.
Docstrings and documentation strings may mention keys; the file name `hoodie.properties` is no key.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hudi_core", "hudi_dagster", "hudi_airflow")
DECLARATIONS = ROOT / "hudi_core" / "config"
KEY = re.compile(r"hoodie(?:\.[A-Za-z0-9_]+)+")
NOT_KEYS = {"hoodie.properties", "hoodie.properties.backup"}


def _documentation(tree: ast.AST) -> set[int]:
    """Ids of the string constants that are docstrings or documentation statements."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def key_literals(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documentation = _documentation(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation:
            keys = [k for k in KEY.findall(node.value) if k not in NOT_KEYS]
            if keys:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {', '.join(keys)}")
    return found


def test_option_keys_are_spelled_only_in_their_declarations() -> None:
    sources = [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if DECLARATIONS not in path.parents
    ]
    assert len(sources) > 100
    found = [literal for path in sources for literal in key_literals(path)]
    assert not found, "hoodie.* keys outside hudi_core/config (use the declaration's .key):\n" + "\n".join(found)


def test_the_check_finds_a_key_in_code_and_not_in_documentation(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Mentions hoodie.table.name in a docstring."""\n'
        'KEY = "hoodie.table.name"\n'
        '"""Documents hoodie.index.type."""\n'
        'PATH = ".hoodie/hoodie.properties"\n'
        'MESSAGE = f"{KEY} needs hoodie.index.type=BUCKET"\n',
        encoding="utf-8",
    )
    assert key_literals(sample, tmp_path) == ["sample.py:2: hoodie.table.name", "sample.py:5: hoodie.index.type"]
