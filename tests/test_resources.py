"""One way to find a shipped file: rnnviz.resources.path, from a clone and from an installed package."""
import importlib.util
import re
import shutil
from pathlib import Path

import tomllib

from rnnviz import charlm, resources
from rnnviz.experiments import lag_results
from rnnviz.lessons import clipping, sample

ROOT = Path(__file__).resolve().parents[1]


def asked_for() -> set[str]:
    """Every name the package passes to resources.path."""
    return {m for f in (ROOT / "rnnviz").rglob("*.py")
            for m in re.findall(r"""resources\.path\(["']([^"']+)["']\)""", f.read_text(encoding="utf-8"))}


def test_every_file_asked_for_ships_in_the_wheel_and_is_found_in_the_clone():
    shipped = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
                  ["rnnviz.models"])
    names = asked_for()
    assert {"shakespeare.safetensors", "shakespeare_excerpt.txt", "lag_results.json"} <= names
    assert names <= shipped
    for name in names:
        assert resources.path(name) == ROOT / "models" / name and resources.path(name).is_file()
    assert charlm.SHIPPED_MODEL == resources.path("shakespeare.safetensors")
    assert sample.EXCERPT == clipping.EXCERPT == resources.path("shakespeare_excerpt.txt")
    assert lag_results.RESULTS == resources.path("lag_results.json")


def test_an_installed_package_finds_its_own_copy(tmp_path):
    """Laid out as pip installs it (site-packages/rnnviz/models/...), the package's copy is found, not a models/
    folder beside the package (site-packages/models/, where two of the old ways looked)."""
    pkg = tmp_path / "site-packages" / "rnnviz"
    (pkg / "models").mkdir(parents=True)
    shutil.copy(ROOT / "rnnviz" / "resources.py", pkg / "resources.py")
    (pkg / "models" / "lag_results.json").write_text("{}")
    (tmp_path / "site-packages" / "models").mkdir()
    (tmp_path / "site-packages" / "models" / "lag_results.json").write_text("wrong")
    spec = importlib.util.spec_from_file_location("installed_resources", pkg / "resources.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.path("lag_results.json") == (pkg / "models" / "lag_results.json").resolve()
    assert mod.path("missing.txt").name == "missing.txt" and not mod.path("missing.txt").exists()
