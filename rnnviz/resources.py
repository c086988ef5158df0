"""The one way to find a file that ships with rnnviz (the Shakespeare model and its card, the excerpt the pages read,
the learning-the-lag results, the corpus, the app itself): in an installed package they sit inside it (pyproject.toml
packages the clone's models/ as `rnnviz.models`, data/ as `rnnviz.data`, the app as `rnnviz.app`); in a clone they
sit at its top (models/, data/, app.py)."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def path(name: str, folder: str = "models") -> Path:
    """Where the shipped file `name` is (e.g. "shakespeare.safetensors"; "tinyshakespeare.txt" with folder="data"):
    the installed copy, else the clone's; where neither exists, the clone's path, so that a message can say where it
    was looked for."""
    places = (_PACKAGE / folder, _PACKAGE.parent / folder)
    for place in places:
        if (place / name).is_file():
            return place / name
    return places[-1] / name


def app_root() -> Path:
    """The directory holding app.py, app_pages/, ui/ and .streamlit/ (what `streamlit run app.py` runs in): the
    installed copy (rnnviz/app/), else the clone's top."""
    installed = _PACKAGE / "app"
    return installed if (installed / "app.py").is_file() else _PACKAGE.parent


CORPUS = path("tinyshakespeare.txt", "data")  # the text the shipped model was trained on (1,115,394 characters)
