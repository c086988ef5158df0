"""Exported PyTorch scripts run and reproduce the numbers the pages showed."""
import subprocess
import sys

import pytest

from tests.conftest import tables
from tests.helpers import code_of


def run_script(code: str, tmp_path) -> str:
    f = tmp_path / "exported.py"
    f.write_text(code)
    out = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "matches rnnviz to 1e-9" in out.stdout
    return out.stdout


@pytest.mark.slow
def test_scalar_export_reproduces_the_table(open_page, tmp_path):
    at = open_page("scalar", wh="2")
    table = list(tables(at)[0]["hₜ = tanh(·)"])
    out = run_script(code_of(at, "scalar"), tmp_path)
    printed = [line.split("[")[1].rstrip("]") for line in out.splitlines() if line.startswith("h_")]
    assert [f"{float(v):.3f}" for v in printed] == table == ["0.762", "0.909", "0.949"]


@pytest.mark.parametrize("page,query", [("vector", {"H": "5", "rho": "1.5"}), ("gates", {}),
                                        ("gates", {"cell": "gru"})])
@pytest.mark.slow
def test_vector_and_gate_exports_run(open_page, tmp_path, page, query):
    at = open_page(page, **query)
    assert not at.exception
    run_script(code_of(at, page), tmp_path)


@pytest.mark.slow
def test_export_catches_a_wrong_number(open_page, tmp_path):
    code = code_of(open_page("scalar"), "scalar").replace("0.5]]", "0.6]]", 1)  # tamper with w_h
    f = tmp_path / "bad.py"
    f.write_text(code)
    out = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "disagrees" in out.stderr
