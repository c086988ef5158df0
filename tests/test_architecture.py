"""The compute package stays importable from a notebook: no streamlit anywhere in rnnviz/."""
import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "rnnviz"


def test_no_streamlit_import_in_source():
    offenders = []
    for f in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{f.name}: {n}" for n in names if n.split(".")[0] == "streamlit"]
    assert offenders == []


def test_importing_every_module_loads_no_streamlit():
    mods = sorted(".".join(f.relative_to(PKG.parent).with_suffix("").parts) for f in PKG.rglob("*.py")
                  if f.stem != "__init__")
    code = f"import sys; import {', '.join(mods)}; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_sliders_and_number_boxes_are_drawn_by_the_one_module_that_declares_controls():
    """ui/controls.py draws every st.slider, st.select_slider and st.number_input from a control's one declaration;
    a page or module that calls them itself would carry a second copy of a label, range or step."""
    import re

    from tests.conftest import ROOT

    call = re.compile(r"\.(slider|select_slider|number_input)\(")
    files = [ROOT / "app.py", *(ROOT / "app_pages").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]
    callers = sorted(str(p.relative_to(ROOT)) for p in files if call.search(p.read_text()))
    assert callers == ["ui/controls.py"]
