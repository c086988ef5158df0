"""`python -m rnnviz`: the command-line tools and how to run each."""
from __future__ import annotations

import sys

from rnnviz import __version__
from rnnviz.cli import COMMANDS


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        print(f"rnnviz {__version__}")
        return 0
    width = max(map(len, COMMANDS))
    lines = [f"rnnviz {__version__}: exact, inspectable recurrent networks for teaching. The command-line tools",
             "(each as rnnviz-NAME once installed, or python -m rnnviz.NAME; NAME --help for its options):", ""]
    lines += [f"  {name:<{width}}  {what}" for name, what in COMMANDS.items()]
    lines += ["", "The app: rnnviz-serve (pip install 'rnnviz[app]' and Debian's nginx), or streamlit run app.py in "
              "a clone."]
    print("\n".join(lines))
    return 0 if args in ([], ["-h"], ["--help"]) else 2


if __name__ == "__main__":
    raise SystemExit(main())
