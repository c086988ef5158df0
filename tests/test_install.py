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

from tests.conftest import ROOT, long_only

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PYPROJECT_VERSION = re.search(r'__version__ = "(.+)"', (ROOT / "rnnviz" / "__init__.py").read_text()).group(1)
SCRIPTS = ("train", "sample", "evaluate", "average", "convert", "lag", "serve")
NEEDS_TORCH = {"rnnviz.charlm.model"}  # the CLIs that train or average import it only to run
# the console scripts run from an installed wheel, 50 s between them: before a release (RNNVIZ_LONG=1), to keep the
# default run under ten minutes (the wheel is still built, installed and served from in the default run)
WHEEL_SCRIPTS = long_only("the console scripts from a wheel")


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
    assert dev["torch"] == "torch==2.13.0" and {"pytest", "playwright"} <= set(dev)  # CI: one exact build
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()
    lib = requirement_names(PYPROJECT["project"]["dependencies"])
    assert {k: v for k, v in serve.items() if k not in app} == lib  # same pins, less the app's own
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["app"] == [serve[k] for k in app] and extras["torch"] == ["torch>=2.4,<3"]  # a range: pip resolves
    from packaging.requirements import Requirement  # ... it together with a project's own torch

    assert Requirement(extras["torch"][0]).specifier.contains(dev["torch"].split("==")[1])  # CI tests inside it


def test_every_package_and_console_script_is_declared():
    pkgs = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "rnnviz").rglob("__init__.py")}
    pkgs = {p.removesuffix(".__init__.py") for p in pkgs}
    declared = set(PYPROJECT["tool"]["setuptools"]["packages"])
    app = {"rnnviz.app"} | {"rnnviz.app." + ".".join(d.relative_to(ROOT).parts) for top in ("app_pages", "ui")
                            for d in [ROOT / top, *(ROOT / top).rglob("*")] if d.is_dir() and any(d.glob("*.py"))}
    assert pkgs <= declared and declared - pkgs == {"rnnviz.models", "rnnviz.data"} | app  # the app, all of it
    dirs = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert all(Path(dirs[p]) == Path(*p.split(".")[2:]) for p in app if p != "rnnviz.app") and dirs["rnnviz.app"] == "."
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", "ui", "app_pages", "static", ".streamlit"], capture_output=True,
                             text=True, cwd=ROOT, check=True).stdout.split()
    for f in (Path(f) for f in tracked if not f.endswith(".py")):  # the app's scripts, styles, icon and config
        package = "rnnviz.app" + "".join(f".{p}" for p in f.parent.parts if f.parent.parts[0] in ("ui", "app_pages"))
        assert any(f.relative_to(Path(*package.split(".")[2:])).match(g) for g in data.get(package, [])), f
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == {f"rnnviz-{n}" for n in SCRIPTS}
    for name, target in scripts.items():
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
        tr = lm.draw(charlm.SamplingSettings("ROMEO:", 40, temperature=0.8, seed=1))
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
from rnnviz.nn.gradients import gradients_through_time
from rnnviz import charlm

tr = rnn_forward([1, 0, 0], W_ih=1.0, W_hh=0.5)        # one tanh unit reads 1, 0, 0
print(np.round(tr.h.ravel(), 5))                       # [0.76159 0.3634  0.17973]
back = gradients_through_time("rnn", {"W_hh": 0.5}, tr)  # dh_3/dh_t, 0 to 3 steps back
back = back.log10_spectral                             # their log10 spectral norms
print(np.round(10 ** back, 5))                         # [1.      0.48385 0.20998 0.04409]
lm = charlm.load(charlm.SHIPPED_MODEL)                 # the Shakespeare LSTM that ships with rnnviz
print(lm.generate("ROMEO:", 38, top_k=1).strip())      # I will not see the season of the sea,
'''


def check_example_output(stdout: str, example: str = PACKAGE_EXAMPLE) -> None:
    want = [line.split("# ", 1)[1].strip() for line in example.splitlines() if line.startswith("print(")]
    assert stdout.strip().splitlines() == want


def site_dirs() -> list[str]:
    """This environment's site-packages: a venv's own, and its base's where the venv sees them."""
    return [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


def venv(tmp: Path, system_site: bool) -> Path:
    """A fresh venv; with system_site, it sees the packages of the environment running the tests (after its own),
    through a .pth file. (`venv --system-site-packages` would not do: run from a venv, it gives the base
    interpreter's packages, not the venv's, where `pip install -r requirements-dev.txt` put them.) No pip inside:
    this environment's pip installs into it (`pip --python`), so nothing is downloaded."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True, timeout=300)
    if system_site:
        purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
        site = subprocess.run([tmp / "venv" / "bin" / "python", "-c", purelib], capture_output=True, text=True,
                              check=True).stdout.strip()
        (Path(site) / "running-environment.pth").write_text("\n".join(site_dirs()) + "\n")
    return tmp / "venv" / "bin"


def pip_install(bin_: Path, *args) -> subprocess.CompletedProcess:
    """This environment's pip installing into the venv at bin_, with no dependencies and no index."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_ / "python"), "install", "-q", "--no-deps",
                           "--no-index", *map(str, args)], capture_output=True, text=True, timeout=600)


def can_build_here() -> bool:
    """Whether this environment's setuptools builds this wheel by itself (>= 77: pyproject.toml's SPDX license)."""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(x) for x in re.findall(r"\d+", setuptools.__version__)[:2])
    return version >= (77, 0)


def build_wheel(src: Path, dest: Path) -> Path:
    """The wheel `pip wheel` builds from src: with this environment's setuptools where it can (offline), else in
    pip's isolated build environment (setuptools from the package index)."""
    flags = ["--no-build-isolation"] if can_build_here() else []
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *flags, "-w", str(dest), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return next(dest.glob("rnnviz-*.whl"))


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(bin, elsewhere): a wheel built from the files of a fresh clone, installed into a fresh venv that takes the
    dependencies from this environment; `elsewhere` is an empty directory outside the clone. One per session."""
    tmp = tmp_path_factory.mktemp("installed")
    wheel = build_wheel(copy_tracked(tmp / "src"), tmp / "dist")
    bin_ = venv(tmp, system_site=True)
    out = pip_install(bin_, wheel)
    assert out.returncode == 0, out.stdout + out.stderr
    (tmp / "elsewhere").mkdir()
    return bin_, tmp / "elsewhere"


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True])
def test_pip_install_from_a_fresh_venv_and_import_from_elsewhere(tmp_path, editable, request):
    if editable:
        src = copy_tracked(tmp_path / "src")
        bin_ = venv(tmp_path, system_site=True)  # dependencies from this environment; the package itself from src
        flags = ["--no-build-isolation"] if can_build_here() else []
        out = pip_install(bin_, *flags, "-e", src)
        assert out.returncode == 0, out.stdout + out.stderr
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
    else:
        bin_, elsewhere = request.getfixturevalue("installed")
    (elsewhere / "example.py").write_text(PACKAGE_EXAMPLE)
    env = clean_env()
    run = subprocess.run([bin_ / "python", "example.py"], capture_output=True, text=True, cwd=elsewhere, timeout=300,
                         env=env)
    assert run.returncode == 0, run.stderr
    check_example_output(run.stdout)
    where = subprocess.run([bin_ / "python", "-c", "import rnnviz, rnnviz.charlm as c; print(rnnviz.__file__); "
                            "print(c.SHIPPED_MODEL)"], capture_output=True, text=True, cwd=elsewhere, env=env)
    pkg, model = where.stdout.split()
    if editable:
        assert Path(pkg) == src / "rnnviz" / "__init__.py" and Path(model) == src / "models" / "shakespeare.safetensors"
    else:
        assert Path(pkg).is_relative_to(bin_.parent)  # the venv's own copy, not this environment's
        assert "site-packages" in pkg and Path(model) == Path(pkg).parent / "models" / "shakespeare.safetensors"
    assert (Path(pkg).parent / "py.typed").is_file()  # type checkers read the package's annotations
    sample = subprocess.run([bin_ / "rnnviz-sample", "--prime", "ROMEO:", "-n", "38", "--top-k", "1"],
                            capture_output=True, text=True, cwd=elsewhere, env=env, timeout=300)
    assert sample.returncode == 0 and sample.stdout == "ROMEO:\nI will not see the season of the sea,\n"




def run_script(bin_: Path, cwd: Path, name: str, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([bin_ / name, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=clean_env(),
                          timeout=timeout)


@pytest.mark.slow
@WHEEL_SCRIPTS
def test_every_console_script_explains_itself_from_a_wheel(installed):
    bin_, elsewhere = installed
    for name in SCRIPTS:
        h = run_script(bin_, elsewhere, f"rnnviz-{name}", "--help")
        assert h.returncode == 0 and h.stderr == "" and "Traceback" not in h.stdout, (name, h)
        assert h.stdout.startswith(f"usage: rnnviz-{name} "), (name, h.stdout)  # not `python -m rnnviz.{name}`
        v = run_script(bin_, elsewhere, f"rnnviz-{name}", "--version")
        assert v.returncode == 0 and v.stdout.strip() == f"rnnviz {PYPROJECT_VERSION}", (name, v)
        options = re.split(r"\n(?=  -)", h.stdout.split("\noptions:\n", 1)[1])
        assert all("(default" in o for o in options if "--" in o and "-h, --help" not in o and "--version" not in o
                   and "store" not in o and not re.search(r"--(resume|quiet|float32|force|float16|bfloat16)\b", o)), \
            (name, [o for o in options if "(default" not in o])
    listing = subprocess.run([bin_ / "python", "-m", "rnnviz"], capture_output=True, text=True, cwd=elsewhere,
                             env=clean_env())
    assert listing.returncode == 0 and all(re.search(rf"^  {n} ", listing.stdout, re.M) for n in SCRIPTS)
    # without torch: what to install, not a traceback (help still works)
    for name, module in (("train", "rnnviz.charlm.train"), ("average", "rnnviz.charlm.average")):
        for args in (["--help"], ["x", "y.safetensors"] if name == "average" else ["--corpus", "c.txt"]):
            code = (f"import sys; sys.modules['torch'] = None; sys.argv = ['rnnviz-{name}', *{args!r}]; "
                    f"from {module} import main; raise SystemExit(main())")
            out = subprocess.run([bin_ / "python", "-c", code], capture_output=True, text=True, cwd=elsewhere,
                                 env=clean_env(), timeout=120)
            assert "Traceback" not in out.stderr, out.stderr
            if args == ["--help"]:
                assert out.returncode == 0 and out.stdout.startswith(f"usage: rnnviz-{name} ")
            else:
                assert out.returncode == 2 and "needs PyTorch: pip install 'torch>=2.4,<3'" in out.stderr


@pytest.mark.slow
@WHEEL_SCRIPTS
def test_every_console_script_runs_from_a_wheel_outside_the_clone(installed):
    bin_, here = installed
    (here / "corpus.txt").write_text("to be, or not to be: that is the question.\n" * 40)
    sample = run_script(bin_, here, "rnnviz-sample", "--prime", "ROMEO:", "-n", "38", "--top-k", "1")
    assert sample.returncode == 0 and sample.stdout == "ROMEO:\nI will not see the season of the sea,\n"
    bad = run_script(bin_, here, "rnnviz-sample", "--top-p", "1.5")
    assert bad.returncode == 2 and "argument --top-p: must be in (0, 1], got 1.5" in bad.stderr
    train = run_script(bin_, here, "rnnviz-train", "--corpus", "corpus.txt", "--out", "tiny.v1", "--layers", "1",
                       "--hidden", "8", "--embed", "4", "--seq-len", "16", "--batch", "2", "--steps", "2",
                       "--eval-every", "1", "--warmup", "1", "--quiet")
    assert train.returncode == 0, train.stderr
    assert (here / "tiny.v1.safetensors").stat().st_mode & 0o044 == 0o044  # readable by others, as umask 022 allows
    evaluate = run_script(bin_, here, "rnnviz-evaluate", "tiny.v1.safetensors", "--corpus", "corpus.txt")
    assert evaluate.returncode == 0 and json.loads(evaluate.stdout)["val_chars"] > 100, evaluate.stderr
    avg = run_script(bin_, here, "rnnviz-average", "avg", "tiny.v1.safetensors", "tiny.v1.safetensors")
    assert avg.returncode == 0 and (here / "avg.safetensors").is_file(), avg.stderr
    shipped = Path(subprocess.run([bin_ / "python", "-c", "from rnnviz import charlm; print(charlm.SHIPPED_MODEL)"],
                                  capture_output=True, text=True, env=clean_env()).stdout.strip())
    mismatched = run_script(bin_, here, "rnnviz-average", "mixed", "tiny.v1.safetensors", shipped)
    assert mismatched.returncode == 2 and "Traceback" not in mismatched.stderr
    assert "is not the same model as tiny.v1.safetensors" in mismatched.stderr
    (here / "itos.json").write_text(json.dumps(json.loads((here / "tiny.v1.json").read_text())["itos"]))
    convert = run_script(bin_, here, "rnnviz-convert", "tiny.v1.safetensors", "mine.v2", "--itos-json", "itos.json")
    assert convert.returncode == 0 and (here / "mine.v2.safetensors").is_file(), convert.stderr
    lag = run_script(bin_, here, "rnnviz-lag", "--lags", "1", "--steps", "1", "--lstm-hidden", "2", "--batch", "2",
                     "--rows", "rnn", "lstm", "--seeds", "0")
    assert lag.returncode == 0 and json.loads((here / "lag_results.json").read_text())["lags"] == [1], lag.stderr
    serve = run_script(bin_, here, "rnnviz-serve", "--app-root", here)  # a directory without an app
    assert serve.returncode == 2 and "Traceback" not in serve.stderr
    assert "holds no app.py" in serve.stderr and "--app-root" in serve.stderr
    corpus = subprocess.run([bin_ / "python", "-c", "from rnnviz import resources; print(resources.CORPUS)"],
                            capture_output=True, text=True, env=clean_env(), cwd=here).stdout.strip()
    assert Path(corpus).is_relative_to(bin_.parent) and Path(corpus).read_bytes() == (ROOT / "data" /
                                                                                      "tinyshakespeare.txt").read_bytes()


async def every_page(url: str, pages: list[str]) -> dict[str, tuple[int, str]]:
    """Each page opened by a visitor of its own, one after another: (exceptions shown, session id) per page."""
    from benchmarks.load import Session

    out = {}
    for page in pages:
        s = Session(url, page)
        await s.open()
        await s.ws.close()
        out[page] = (s.exceptions, s.session_id)
    return out


@pytest.mark.slow
def test_the_installed_app_serves_every_page_from_outside_the_clone(installed, tmp_path):
    """pip install "rnnviz[app]", then rnnviz-serve from any directory: the app installed in the wheel (rnnviz/app/),
    behind nginx, every page run to its end with no exception."""
    import asyncio
    import signal

    from rnnviz.processes import free_ports
    from tests.test_serve import need_nginx, read_until
    from ui.path import LESSONS

    need_nginx()
    bin_, here = installed
    port = free_ports("127.0.0.1", 8650, 1)[0]
    proc = subprocess.Popen([bin_ / "rnnviz-serve", "--replicas", "1", "--port", str(port), "--workdir",
                             tmp_path], cwd=here, env=clean_env(), stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        banner = read_until(proc, "rnnviz on", timeout=150)
        replica = int(re.search(r"^replica 1: pid (\d+)", banner, re.M).group(1))
        app_dir = Path(os.readlink(f"/proc/{replica}/cwd"))
        assert app_dir.is_relative_to(bin_.parent) and (app_dir / "app.py").is_file()  # the wheel's own app
        pages = ["", *(ls.url for ls in LESSONS), "class_room"]
        shown = asyncio.run(every_page(f"http://127.0.0.1:{port}", pages))
        assert all(sid for _, sid in shown.values()) and {p: n for p, (n, _) in shown.items() if n} == {}
        log = (tmp_path / "replica-1.log").read_text()
        assert "Traceback" not in log and "Error" not in log, log[-2000:]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RNNVIZ_NETWORK_INSTALL") != "1",
                    reason="downloads the dependencies: set RNNVIZ_NETWORK_INSTALL=1")
def test_pip_install_into_an_empty_venv(tmp_path):
    """The real check: nothing from this machine's site-packages; pip fetches numpy, plotly, ... (no torch)."""
    src = copy_tracked(tmp_path / "src")
    bin_ = venv(tmp_path, system_site=False)
    out = subprocess.run([sys.executable, "-m", "pip", "--python", bin_ / "python", "install", "-q", str(src)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    (tmp_path / "example.py").write_text(PACKAGE_EXAMPLE)
    run = subprocess.run([bin_ / "python", "example.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    check_example_output(run.stdout)
    freeze = subprocess.run([sys.executable, "-m", "pip", "--python", bin_ / "python", "freeze"], capture_output=True,
                            text=True).stdout.lower()
    assert "torch" not in freeze and "streamlit" not in freeze


def test_the_image_is_reproducible_and_compose_starts_nginx_promptly():
    docker = (ROOT / "Dockerfile").read_text()
    base = re.search(r"^FROM (\S+)", docker, re.M).group(1)
    assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base), base  # a version, not "3.11"
    assert re.search(r"pip install .*--require-hashes -r /tmp/requirements\.lock", docker)
    assert "requirements.txt" not in re.sub(r"#.*", "", docker)
    lock = (ROOT / "deploy" / "requirements.lock").read_text()
    pinned = r"^([a-z0-9][a-z0-9._-]*)==(\S+) \\\n(?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+"
    pins = dict(re.findall(pinned, lock, re.M))
    assert len(pins) == len(re.findall(r"^[a-z0-9]", lock, re.M)) > 20  # every package pinned, each with its hashes
    serve = requirement_names((ROOT / "requirements.txt").read_text().splitlines())
    from packaging.requirements import Requirement
    for name, line in serve.items():
        assert Requirement(line).specifier.contains(pins[name]), (name, pins[name], line)
    assert "torch" not in pins
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    image = re.search(r"image: nginx:(\d+)\.(\d+)\.(\d+)-alpine", compose)
    assert image and tuple(map(int, image.groups())) >= (1, 27, 3)  # `resolve` in an upstream (open source nginx)
    assert re.search(r"SERVERS: .*resolver 127\.0\.0\.11 valid=\d+s;.*server app:8501 resolve", compose)
    assert re.search(r"zone \w+ \d+k;", compose)  # `resolve` needs the upstream in shared memory
    health = re.search(r"  app:.*?healthcheck:(.*?)\n\n", compose, re.S).group(1)
    assert "start_interval: 1s" in health  # nginx waits for a healthy replica: not 30 s for the first probe
    template = (ROOT / "deploy" / "nginx.conf.template").read_text()
    assert "X-Forwarded-Proto $scheme" not in template
    assert re.search(r"map \$http_x_forwarded_proto \$rnnviz_forwarded_proto \{\s*\"\"\s+\$scheme;", template)


def test_build_outputs_venvs_and_generated_files_stay_out_of_git_and_the_image():
    paths = ["build/lib/x.py", "dist/rnnviz-0.1.0.whl", "rnnviz.egg-info/PKG-INFO", ".venv/bin/python",
             "venv/bin/python", "static/plotly-6.0.0.min.js"]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *paths], capture_output=True, text=True, cwd=ROOT)
    assert ignored.stdout.split() == paths
    docker = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {"build", "dist", "*.egg-info", ".venv", "venv", "static/plotly-*.min.js"} <= docker
    assert (ROOT / "LICENSE").read_text().startswith("MIT License") and PYPROJECT["project"]["license"] == "MIT"
    assert "rnnviz contributors" in PYPROJECT["project"]["authors"][0]["name"]
    assert (ROOT / "rnnviz" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["rnnviz"]
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and f"## [{PYPROJECT_VERSION}]" in changelog
    assert "MIT" in (ROOT / "README.md").read_text().split("## License", 1)[1]
