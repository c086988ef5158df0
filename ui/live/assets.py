"""What the browser loads for the live charts from the app's static folder (server.enableStaticServing, served at
app/static/): plotly.js, copied from the installed plotly under a name that carries its version, and this package's
ES modules, copied into live-<digest of their text>/ so that they import each other by relative paths and a new
version never meets a browser's (or nginx's "immutable") copy of the old one. No Streamlit here."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import plotly

STATIC = Path(__file__).resolve().parents[2] / "static"  # streamlit serves <app dir>/static/ at app/static/
PLOTLY_JS = f"plotly-{plotly.__version__}.min.js"
SOURCE = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
SCRIPTS = sorted(Path(__file__).parent.glob("*.js"))
MODULES = "live-" + hashlib.blake2b(b"".join(p.name.encode() + b"\0" + p.read_bytes() + b"\0" for p in SCRIPTS),
                                    digest_size=6).hexdigest()


def provide_plotly_js(static: Path = STATIC) -> bool:
    """Put the installed plotly's plotly.min.js in the static folder (once; atomically, as replicas may race);
    whether it is there."""
    target = static / PLOTLY_JS
    if target.is_file():
        return True
    try:
        fd, tmp = tempfile.mkstemp(dir=static, suffix=".part")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out, SOURCE.open("rb") as src:
            shutil.copyfileobj(src, out)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        return True
    except OSError:
        Path(tmp).unlink(missing_ok=True)  # the static folder is served: leave nothing half-written there
        return False


def provide_modules(static: Path = STATIC) -> bool:
    """Put this package's scripts in static/MODULES/ (once; a whole folder at a time, as replicas may race), and take
    away the folders of earlier versions; whether they are there."""
    target = static / MODULES
    if not target.is_dir():
        try:
            tmp = Path(tempfile.mkdtemp(dir=static, suffix=".part"))
        except OSError:
            return False
        try:
            for p in SCRIPTS:
                shutil.copyfile(p, tmp / p.name)
                os.chmod(tmp / p.name, 0o644)
            os.chmod(tmp, 0o755)
            os.rename(tmp, target)  # fails if another process made it meanwhile: theirs is the same
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if not target.is_dir():
                return False
    for old in static.glob("live-*"):
        if old.name != MODULES and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return True


def provide(static: Path = STATIC) -> bool:
    """plotly.js and the scripts in the static folder; whether both are there."""
    return provide_plotly_js(static) and provide_modules(static)


def src() -> str:
    """Where the browser finds plotly.js (relative to the page)."""
    return "app/static/" + PLOTLY_JS


def component_js(script: str, export: str = "default") -> str:
    """A component's `js`: Streamlit imports it from a blob: URL, which can import nothing by a relative path, so it
    imports `script` (one of SCRIPTS) from the static folder, relative to the page, and hands it the component's
    arguments. Every component doing so gets the same module instance: the scripts share state by importing it."""
    assert (Path(__file__).parent / script) in SCRIPTS, script
    return (f"export default async function (component) {{\n"
            f"  const url = new URL({'app/static/' + MODULES + '/' + script!r}, document.baseURI).href;\n"
            f"  return (await import(url)).{export}(component);\n}}\n")
