"""The one way to find a file that ships with rnnviz (the Shakespeare model and its card, the excerpt the pages read,
the learning-the-lag results): in an installed package they sit in rnnviz/models/ (pyproject.toml packages the
clone's models/ folder as `rnnviz.models`); in a clone they sit in models/ at its top."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
PLACES = (_PACKAGE / "models", _PACKAGE.parent / "models")  # installed, then a clone


def path(name: str) -> Path:
    """Where the shipped file `name` is (e.g. "shakespeare.safetensors"): the installed copy, else the clone's; where
    neither exists, the clone's path, so that a message can say where it was looked for."""
    for place in PLACES:
        if (place / name).is_file():
            return place / name
    return PLACES[-1] / name
