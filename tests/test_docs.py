"""The docs site's walk-through (docs/walkthrough.md) runs as written: its code blocks, one after another in a fresh
interpreter, print what their comments say; and every public dataclass names its fields where help() and the API pages
show them. (`mkdocs build --strict`, in .ci/run, builds the site itself.)"""
import re
import subprocess
import sys

from tests.conftest import ROOT
from tests.test_install import check_example_output


def test_the_walkthrough_prints_what_it_says():
    text = (ROOT / "docs" / "walkthrough.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    assert code.count("print(") == 3
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    check_example_output(out.stdout, code)


def test_every_public_dataclass_documents_its_fields_where_help_sees_them():
    """Each field of a public dataclass is named in its docstring's Attributes section (help() and the docs site
    show it)."""
    import dataclasses
    import importlib
    import inspect
    import pkgutil

    import rnnviz

    found, bare = set(), {}
    for info in pkgutil.walk_packages(rnnviz.__path__, "rnnviz."):
        if info.name.startswith("rnnviz.app") or info.name in ("rnnviz.charlm.model",):
            continue  # the app's own modules (an install's copy), and the torch module
        try:
            mod = importlib.import_module(info.name)
        except ImportError:
            continue  # needs torch where it is missing
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == info.name \
                    and not name.startswith("_"):
                found.add(f"{info.name}.{name}")
                attributes = (obj.__doc__ or "").partition("Attributes:")[2]
                missing = [f.name for f in dataclasses.fields(obj) if not re.search(rf"^\s+{f.name}:", attributes,
                                                                                   re.M)]
                if missing:
                    bare[f"{info.name}.{name}"] = missing
    assert {"rnnviz.nn.gradients.GradientReport", "rnnviz.serve.Site"} <= found
    assert bare == {}, "fields help() cannot see (add an Attributes: section to the class docstring)"
