"""PyTorch as the reference answer: build `torch.nn.RNN/LSTM/GRU` holding rnnviz weights (float64).

Imports torch only when called, so the rest of rnnviz runs without it; a caller without torch gets
`TorchMissing`, whose message says how to install it.
"""
from __future__ import annotations

import numpy as np

from rnnviz.nn.cells import get

TORCH_INSTALL = "pip install torch==2.13.0 (the CPU build)"


class TorchMissing(ImportError):
    """torch is not installed: the cross-checks need it, the rest of rnnviz does not."""


def import_torch():
    """The torch module, or TorchMissing saying how to install it."""
    try:
        import torch
    except ImportError:
        raise TorchMissing(f"this check runs PyTorch, which is not installed here: {TORCH_INSTALL}") from None
    return torch


def torch_cell(cell: str, w: dict, w_reverse: dict | None = None, nonlinearity: str = "tanh"):
    """A one-layer batch-first torch module with `w` (W_ih, W_hh, b_ih, b_hh in torch layout) copied in;
    `w_reverse` makes it bidirectional with those weights for the right-to-left direction."""
    torch = import_torch()
    W_ih = np.atleast_2d(np.asarray(w["W_ih"], float))
    GH, d = W_ih.shape
    H = np.atleast_2d(w["W_hh"]).shape[1]
    kind = get(cell)
    if kind.torch_module is None:
        raise ValueError(f"torch.nn has no {cell} cell")
    m = getattr(torch.nn, kind.torch_module)(d, H, batch_first=True, bidirectional=w_reverse is not None,
                                              **kind.torch_options(nonlinearity)).double()
    with torch.no_grad():
        for weights, suffix in ((w, ""), (w_reverse, "_reverse")):
            if weights is None:
                continue
            for name, key in (("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"),
                              ("bias_hh_l0", "b_hh")):
                value = weights.get(key)
                target = getattr(m, name + suffix)
                target.copy_(torch.zeros_like(target) if value is None else
                             torch.from_numpy(np.broadcast_to(np.asarray(value, float), target.shape).copy()))
    return m
