"""Hudi components in a scaffolded `dg` project: `create-dagster project`, a `defs.yaml`, `dg check
defs` and `dg list defs` in the active virtualenv (no uv sync, no network), then the loaded
definitions materialize: an incremental table with a transform from the project, and a CDC mirror."""

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from hudi_core import HudiTable, write_hudi

BIN = Path(sys.executable).parent
DEFS_YAML = """\
type: hudi_dagster.components.HudiLakehouseComponent
attributes:
  root: {root}
  tables:
    - name: bronze
      record_key: [id]
      partition_fields: [day]
      external: true
      commit_sensor: true
      maintenance: {{services: [clean, archive], cron: "0 4 * * *"}}
    - name: silver
      record_key: [id]
      incremental_from: bronze
      transform: lake.transforms:doubled
      automation: eager
    - name: mirror
      record_key: [id]
      partition_fields: [day]
      cdc_from: bronze
"""
TRANSFORMS = """\
import pyarrow.compute as pc


def doubled(context, changes):
    return changes.set_column(changes.schema.get_field_index("v"), "v", pc.multiply(changes["v"], 2))
"""


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_the_lakehouse_component_loads_with_dg_and_materializes(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(BIN.parent),
        "DAGSTER_DG_UPDATE_CHECK_ENABLED": "0",  # no network
        "DAGSTER_HOME": str(tmp_path / "home"),
    }
    (tmp_path / "home").mkdir()
    run([str(BIN / "create-dagster"), "project", "--no-uv-sync", "lake"], tmp_path, env)
    project = tmp_path / "lake"
    root = tmp_path / "tables"
    component = project / "src" / "lake" / "defs" / "lakehouse"
    component.mkdir(parents=True)
    (component / "defs.yaml").write_text(DEFS_YAML.format(root=root))
    (project / "src" / "lake" / "transforms.py").write_text(TRANSFORMS)
    env["PYTHONPATH"] = f"{project / 'src'}{os.pathsep}{env.get('PYTHONPATH', '')}"  # the project, not installed

    assert "All definitions loaded successfully" in run([str(BIN / "dg"), "check", "defs"], project, env)
    listed = json.loads(run([str(BIN / "dg"), "list", "defs", "--json"], project, env))
    assert sorted(a["asset_key"] for a in listed["assets"]) == ["bronze", "mirror", "silver"]
    assert {c["key"] for c in listed["asset_checks"]} >= {"silver:record_key_unique", "bronze:table_health"}
    assert [j["name"] for j in listed["jobs"]] == ["bronze_maintenance"]
    assert [s["name"] for s in listed["schedules"]] == ["bronze_maintenance_schedule"]
    assert "bronze_commits" in {s["name"] for s in listed["sensors"]}

    # The same definitions, loaded in process, materialize against a real source table.
    bronze = str(root / "bronze")
    rows = pa.table({"id": ["a", "b"], "day": ["d1", "d2"], "v": [1, 2]})
    write_hudi(
        bronze,
        rows,
        {
            "hoodie.table.name": "bronze",
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.partitionpath.field": "day",
            "hoodie.table.cdc.enabled": "true",
        },
    )
    sys.path.insert(0, str(project / "src"))
    try:
        from lake.definitions import defs  # type: ignore[import-not-found]  # noqa: PLC0415

        loaded: dg.Definitions = defs()
        assets = [loaded.resolve_assets_def(name) for name in ("silver", "mirror")]
        assert dg.materialize(assets).success
    finally:
        sys.path.remove(str(project / "src"))
        for name in [m for m in sys.modules if m == "lake" or m.startswith("lake.")]:
            del sys.modules[name]
    silver = HudiTable(str(root / "silver")).read(columns=["id", "v"]).to_pylist()
    assert sorted((r["id"], r["v"]) for r in silver) == [("a", 2), ("b", 4)]
    mirror = HudiTable(str(root / "mirror")).read(columns=["id", "v"]).to_pylist()
    assert sorted((r["id"], r["v"]) for r in mirror) == [("a", 1), ("b", 2)]
