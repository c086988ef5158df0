"""Helpers the tests share (imported from here, never from another test file): small character models built in
NumPy, and the script in a page's export box."""
from __future__ import annotations

import json

import numpy as np

from rnnviz import charlm


def tiny(cell: str, seed: int = 0, layers: int = 2, nonlinearity: str | None = None) -> charlm.CharLM:
    """A small random model of any cell, built in NumPy (PyTorch's layout)."""
    rng = np.random.default_rng(seed)
    card = {"itos": list("abcde \n"), "cell": cell, "embed_size": 5, "hidden_size": 6, "num_layers": layers}
    if nonlinearity:
        card["nonlinearity"] = nonlinearity
    shapes = charlm.expected_shapes(card)
    return charlm.CharLM({k: rng.normal(0, 0.6, s).astype(np.float32) for k, s in shapes.items()}, card)


def tiny_checkpoint(cell="gru", V="abcdefgh :\n", H=8, layers=1):
    """A small random model of `cell` as the bytes of its weights (float16 safetensors) and of its card."""
    from safetensors.numpy import save

    card = {"itos": list(V), "cell": cell, "embed_size": 4, "hidden_size": H, "num_layers": layers}
    rng = np.random.default_rng(0)
    return save({k: rng.normal(0, 0.5, s).astype(np.float16) for k, s in charlm.expected_shapes(card).items()}), \
        json.dumps(card).encode()


def code_of(at, page: str):
    """The script in the page's export box, opened as a visitor opens it (it is built only while open)."""
    assert not any(c.value.startswith('"""Exported from rnnviz') for c in at.code)  # closed: nothing built or sent
    at.session_state[f"{page}.export"] = True
    at.run()
    assert not at.exception
    return next(c.value for c in at.code if c.value.startswith('"""Exported from rnnviz'))
