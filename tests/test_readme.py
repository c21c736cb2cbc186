"""Every Python example of the README runs, in order, as one script in an empty folder: the
examples build on each other as a reader follows them (the table written first is the one read),
so none can drift from the API.

The script runs in a fresh interpreter (the Spark example starts its own local session) with the
README's relative paths under a temporary folder.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def readme_examples() -> list[str]:
    return BLOCK.findall((ROOT / "README.md").read_text())


def test_the_readme_has_examples_for_every_part() -> None:
    script = "\n".join(readme_examples())
    for needed in ("HudiTable.create", "read_incremental", "latest_checkpoint", "hudi_spark.write", "dg.materialize"):
        assert needed in script, f"no README example uses {needed}"


@pytest.mark.slow
def test_every_python_example_of_the_readme_runs(tmp_path: Path) -> None:
    blocks = readme_examples()
    script = "\n\n".join(f"# ---- README example {n} ----\n{block}" for n, block in enumerate(blocks, 1))
    (tmp_path / "readme_examples.py").write_text(script)
    done = subprocess.run(
        [sys.executable, "readme_examples.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
