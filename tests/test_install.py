"""rnnviz as a package: pip install . (and -e .) from a fresh venv, imported from another directory; the
serving install without torch; the shipped corpus; requirements and pyproject in agreement."""
import ast
import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NEEDS_TORCH = {"rnnviz.charlm.model", "rnnviz.charlm.train", "rnnviz.charlm.average", "rnnviz.train", "rnnviz.average"}


def requirement_names(lines) -> dict[str, str]:
    out = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name = re.match(r"[A-Za-z0-9_.-]+", line).group(0).lower()
            out[name] = line
    return out


def test_the_shipped_corpus_is_the_one_the_card_names():
    card = json.loads((ROOT / "models" / "shakespeare.json").read_text())
    data = (ROOT / "data" / "tinyshakespeare.txt").read_bytes()
    assert hashlib.sha256(data).hexdigest() == card["corpus_sha256"]
    assert len(data.decode()) == card["corpus_chars"] == 1_115_394
    tracked = subprocess.run(["git", "ls-files", "data/tinyshakespeare.txt"], capture_output=True, text=True, cwd=ROOT)
    ignored = subprocess.run(["git", "check-ignore", "-q", "data/tinyshakespeare.txt"], cwd=ROOT)
    assert tracked.stdout.strip() == "data/tinyshakespeare.txt" or ignored.returncode == 1  # shipped, not ignored


def test_requirements_serve_without_torch_and_match_pyproject():
    serve = requirement_names((ROOT / "requirements.txt").read_text().splitlines())
    dev = requirement_names((ROOT / "requirements-dev.txt").read_text().splitlines())
    app = ["streamlit", "segno", "redis"]  # the app's alone: pages, the class room's QR code, its shared store
    assert "torch" not in serve and set(serve) == {"numpy", "plotly", "safetensors", "threadpoolctl", "tqdm", *app}
    assert dev["torch"] == "torch==2.13.0" and {"pytest", "playwright"} <= set(dev)
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()
    lib = requirement_names(PYPROJECT["project"]["dependencies"])
    assert {k: v for k, v in serve.items() if k not in app} == lib  # same pins, less the app's own
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["app"] == [serve[k] for k in app] and extras["torch"] == ["torch==2.13.0"]


def test_every_package_and_console_script_is_declared():
    pkgs = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "rnnviz").rglob("__init__.py")}
    pkgs = {p.removesuffix(".__init__.py") for p in pkgs}
    declared = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert pkgs <= declared and declared - pkgs == {"rnnviz.models"}
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == {f"rnnviz-{n}" for n in ("train", "sample", "evaluate", "average", "convert", "serve", "lag")}
    for name, target in scripts.items():  # each entry point is a function its module really defines...
        module, func = target.split(":")
        entry = getattr(importlib.import_module(module), func, None)
        assert callable(entry) and entry.__module__ == module, name
        cli = importlib.import_module(f"rnnviz.{name.removeprefix('rnnviz-')}")  # ...run by `python -m rnnviz.<cli>`
        assert cli.main is entry and "__main__" in Path(cli.__file__).read_text(), name


def app_imports() -> list[str]:
    """Every rnnviz module the app imports (app.py, pages/, ui/), and every module of nn/, lessons/, figures/,
    charlm/ and the CLI shims that needs no torch by design."""
    mods = set()
    for f in [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rnnviz"):
                mods.add(node.module)
            elif isinstance(node, ast.Import):
                mods |= {a.name for a in node.names if a.name.startswith("rnnviz")}
    for f in (ROOT / "rnnviz").rglob("*.py"):
        mod = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        mods.add(mod)
    return sorted(mods - NEEDS_TORCH)


def test_the_app_and_the_library_work_without_torch():
    mods = app_imports()
    assert {"rnnviz.charlm", "rnnviz.charlm.runner", "rnnviz.charlm.checkpoint", "rnnviz.lessons.sample",
            "rnnviz.nn.cells", "rnnviz.figures.sample", "rnnviz.charlm.convert"} <= set(mods)
    code = textwrap.dedent(f"""
        import sys, importlib
        sys.modules["torch"] = None  # import torch raises ImportError, as where it is not installed
        for m in {mods!r}:
            importlib.import_module(m)
        from rnnviz import charlm
        lm = charlm.load(charlm.SHIPPED_MODEL)
        tr = lm.generate_trace("ROMEO:", 40, temperature=0.8, seed=1)
        up = charlm.check_upload(charlm.SHIPPED_MODEL.read_bytes(), charlm.card_path(charlm.SHIPPED_MODEL).read_bytes())
        assert up.generate("ROMEO:", 40, temperature=0.8, seed=1) == tr.text[6:]
        from rnnviz.nn.torch_ref import TorchMissing, import_torch
        try:
            import_torch()
        except TorchMissing as e:
            print("missing:", e)
        print(len(tr.text), sys.modules["torch"])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "missing: this check runs PyTorch" in out.stdout and out.stdout.strip().endswith("46 None")


@pytest.mark.slow
def test_every_page_serves_without_torch():
    code = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None
        sys.path.insert(0, {str(ROOT)!r})
        from streamlit.testing.v1 import AppTest
        for page in {sorted(p.stem for p in (ROOT / "app_pages").glob("*.py"))!r}:
            at = AppTest.from_file({str(ROOT / "app.py")!r}, default_timeout=120)
            at.switch_page(f"app_pages/{{page}}.py")
            at.run()
            assert not at.exception, (page, [e.value for e in at.exception])
            print(page, "ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr


def copy_tracked(dest: Path) -> Path:
    """The files a fresh clone has (tracked or added, not ignored), copied so that a build leaves no trace here."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True, cwd=ROOT,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        if (ROOT / f).is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, dest / f)
    return dest


# What README's "The package" section shows: each print's comment is what it prints.
PACKAGE_EXAMPLE = '''\
import numpy as np
from rnnviz.nn.cells import rnn_forward
from rnnviz.nn.gradients import rnn_gradients
from rnnviz import charlm

tr = rnn_forward([1, 0, 0], W_ih=1.0, W_hh=0.5)        # one tanh unit reads 1, 0, 0
print(np.round(tr.h.ravel(), 5))                       # [0.76159 0.3634  0.17973]
back = rnn_gradients(tr, 0.5).log10_spectral           # log10 |dh_3/dh_t|, 0 to 3 steps back
print(np.round(10 ** back, 5))                         # [1.      0.48385 0.20998 0.04409]
lm = charlm.load(charlm.SHIPPED_MODEL)                 # the Shakespeare LSTM that ships with rnnviz
print(lm.generate("ROMEO:", 38, top_k=1).strip())      # I will not see the season of the sea,
'''


def check_example_output(stdout: str, example: str = PACKAGE_EXAMPLE) -> None:
    want = [line.split("# ", 1)[1].strip() for line in example.splitlines() if line.startswith("print(")]
    assert stdout.strip().splitlines() == want


def venv(tmp: Path, system_site: bool) -> Path:
    args = [sys.executable, "-m", "venv", str(tmp / "venv")] + (["--system-site-packages"] if system_site else [])
    subprocess.run(args, check=True, timeout=300)
    return tmp / "venv" / "bin"


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True])
def test_pip_install_from_a_fresh_venv_and_import_from_elsewhere(tmp_path, editable):
    src = copy_tracked(tmp_path / "src")
    bin_ = venv(tmp_path, system_site=True)  # dependencies from this machine; the package itself from src
    target = ["-e", str(src)] if editable else [str(src)]
    out = subprocess.run([bin_ / "pip", "install", "-q", "--no-deps", *target], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "example.py").write_text(PACKAGE_EXAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([bin_ / "python", "example.py"], capture_output=True, text=True, cwd=elsewhere, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    check_example_output(run.stdout)
    where = subprocess.run([bin_ / "python", "-c", "import rnnviz, rnnviz.charlm as c; print(rnnviz.__file__); "
                            "print(c.SHIPPED_MODEL)"], capture_output=True, text=True, cwd=elsewhere, env=env)
    pkg, model = where.stdout.split()
    if editable:
        assert Path(pkg) == src / "rnnviz" / "__init__.py" and Path(model) == src / "models" / "shakespeare.safetensors"
    else:
        assert "site-packages" in pkg and Path(model) == Path(pkg).parent / "models" / "shakespeare.safetensors"
    sample = subprocess.run([bin_ / "rnnviz-sample", "--prime", "ROMEO:", "-n", "38", "--top-k", "1"],
                            capture_output=True, text=True, cwd=elsewhere, env=env, timeout=300)
    assert sample.returncode == 0 and sample.stdout == "ROMEO:\nI will not see the season of the sea,\n"
    helps = [subprocess.run([bin_ / f"rnnviz-{n}", "--help"], capture_output=True, text=True, cwd=elsewhere, env=env)
             for n in ("train", "evaluate", "average", "convert")]
    assert all(h.returncode == 0 and "usage: python -m rnnviz." in h.stdout for h in helps)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RNNVIZ_NETWORK_INSTALL") != "1", reason="downloads the dependencies: set RNNVIZ_NETWORK_INSTALL=1")
def test_pip_install_into_an_empty_venv(tmp_path):
    """The real check: nothing from this machine's site-packages; pip fetches numpy, plotly, ... (no torch)."""
    src = copy_tracked(tmp_path / "src")
    bin_ = venv(tmp_path, system_site=False)
    out = subprocess.run([bin_ / "pip", "install", "-q", str(src)], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    (tmp_path / "example.py").write_text(PACKAGE_EXAMPLE)
    run = subprocess.run([bin_ / "python", "example.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    check_example_output(run.stdout)
    freeze = subprocess.run([bin_ / "pip", "freeze"], capture_output=True, text=True).stdout.lower()
    assert "torch" not in freeze and "streamlit" not in freeze
