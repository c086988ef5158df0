"""What every rnnviz command line shares: its name as it was run, help that shows each flag's default, `--version`,
range checks done by argparse, and one clear message where PyTorch is missing.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from rnnviz import __version__

TORCH = "torch>=2.4,<3"  # what `pip install` needs for the commands that train, average or convert (= rnnviz[torch])
COMMANDS = {  # `python -m rnnviz` lists them; pyproject.toml installs each as rnnviz-<name>
    "train": "train a character model (needs PyTorch)",
    "sample": "sample text from a model (the shipped one by default)",
    "evaluate": "score a model on a corpus's validation split",
    "average": "average the weights of checkpoints of one model (needs PyTorch)",
    "convert": "convert a PyTorch state dict into an rnnviz model (needs PyTorch)",
    "lag": "learning the lag: train each cell on delayed recall (needs PyTorch)",
    "serve": "serve the app (installed or a clone's): Streamlit replicas behind nginx, HTTP or HTTPS",
}


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each flag's default, with the description and epilog kept as written."""

    def _get_help_string(self, action):
        if "default" in (action.help or ""):  # the help already says it in its own words
            return action.help
        text = super()._get_help_string(action)
        if isinstance(action.default, str) and (not action.default.isprintable() or not action.default.strip()):
            text = text.replace("%(default)s", "%(default)r")  # a line break shows as '\\n', not as a blank
        return text


def prog(cli: str) -> str:
    """The command as the user typed it: `rnnviz-sample` for the console script, `python -m rnnviz.sample` else."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name.startswith("rnnviz-") else f"python -m rnnviz.{cli}"


def parser(cli: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """An ArgumentParser for `cli` with the shared formatter, the real program name and `--version`."""
    ap = argparse.ArgumentParser(prog=prog(cli), description=description, epilog=epilog, formatter_class=Formatter)
    ap.add_argument("--version", action="version", version=f"rnnviz {__version__}")
    return ap


def number(kind: type, low: float | None = None, high: float | None = None, low_open: bool = False,
           high_open: bool = False):
    """An argparse `type` that parses `kind` and refuses values outside [low, high] (open ends where asked)."""
    lo = "" if low is None else ("(" if low_open else "[") + f"{low:g}"
    hi = "" if high is None else f"{high:g}" + (")" if high_open else "]")
    if low is None:
        rule = f"at most {high:g}" if not high_open else f"below {high:g}"
    elif high is None:
        rule = f"more than {low:g}" if low_open else f"{low:g} or more"
    else:
        rule = f"in {lo}, {hi}"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if (low is not None and (value < low or (low_open and value == low))) or \
                (high is not None and (value > high or (high_open and value == high))):
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


positive_int = number(int, 1)
count = number(int, 0)
positive = number(float, 0, low_open=True)
non_negative = number(float, 0)
probability = number(float, 0, 1, low_open=True)  # top-p, a validation fraction: (0, 1]


def import_torch(what: str):
    """torch, or exit 2 with what to install (instead of a traceback) where it is not installed."""
    try:
        import torch
    except ImportError:
        print(f"error: {what} needs PyTorch: pip install '{TORCH}' (or pip install 'rnnviz[torch]')", file=sys.stderr)
        raise SystemExit(2) from None
    return torch


def model_paths(out: str | os.PathLike) -> tuple[Path, Path]:
    """(OUT.safetensors, OUT.json) for an output name given without extension: `models/mine.v2` keeps its `.v2`
    (Path.with_suffix would drop it and could overwrite models/mine); a trailing .safetensors or .json is the name's
    extension, not part of it."""
    name = str(out)
    for ext in (".safetensors", ".json"):
        name = name.removesuffix(ext) if name.endswith(ext) and len(name) > len(ext) else name
    return Path(name + ".safetensors"), Path(name + ".json")


def make_readable(*paths: Path) -> None:
    """Mode 0666 less the umask (0644 usually), as open() would make them: safetensors writes its file 0600, which
    a service account serving a model someone else trained cannot read."""
    mask = os.umask(0)
    os.umask(mask)
    for path in paths:
        os.chmod(path, 0o666 & ~mask)
