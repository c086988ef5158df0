"""The docs site's walk-through (docs/walkthrough.md) runs as written: its code blocks, one after another in a fresh
interpreter, print what their comments say. (`mkdocs build --strict`, in .ci/run, builds the site itself.)"""
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
