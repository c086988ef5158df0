"""The recurrent cells, one object per cell, registered by name (see `base.Cell`: step, exact local Jacobians,
gate table, parameter count, and its `Presentation`: name, colours, gate panels). Adding a cell is adding one file
beside these and one line to REGISTRY (a cell whose `compared` is set joins the gates and gradients pages'
comparisons with no other edit).

Weights use PyTorch's layout and gate order where torch has the cell, so `torch.nn.RNN/LSTM/GRU` parameters plug
straight in: W_ih is (G*H, input_size), W_hh is (G*H, H); G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n).
The step functions, traced forward passes and traces are re-exported here under their old names.
"""
from __future__ import annotations

import numpy as np

from rnnviz.nn.cells.base import (  # noqa: F401  (re-exported: the helpers every page imports from here)
    Cell,
    one_hot,
    output_layer,
    sigmoid,
    singular_values,
    spectral_radius,
)
from rnnviz.nn.cells.gru import GRU, GRUTrace, gru_cell, gru_forward  # noqa: F401
from rnnviz.nn.cells.linear import LinearCell
from rnnviz.nn.cells.lru import LRUCell
from rnnviz.nn.cells.lstm import LSTM, LSTMTrace, lstm_cell, lstm_forward  # noqa: F401
from rnnviz.nn.cells.mingru import MinGRUCell
from rnnviz.nn.cells.minlstm import MinLSTMCell
from rnnviz.nn.cells.rnn import RNN, RNNTrace, rnn_cell, rnn_forward  # noqa: F401
from rnnviz.nn.cells.selective import SelectiveCell

# ---- the registry: one import line above and one entry here per cell ------------------------------------------
REGISTRY: dict[str, Cell] = {
    "rnn": RNN(),
    "lstm": LSTM(),
    "gru": GRU(),
    "linear": LinearCell(),  # the linear recurrences and the selective cell: issue 25's "recurrence returns"
    "mingru": MinGRUCell(),
    "minlstm": MinLSTMCell(),
    "lru": LRUCell(),
    "selective": SelectiveCell(),
}


def get(name: str) -> Cell:
    """The registered cell called `name`; ValueError naming the known ones otherwise."""
    cell = REGISTRY.get(name) if isinstance(name, str) else None
    if cell is None:
        raise ValueError(f"no cell called {name!r}; the cells are {', '.join(REGISTRY)}")
    return cell


def compared() -> tuple[str, ...]:
    """The cells the gates and gradients pages set side by side, in the registry's order: the plain RNN first (the
    one clipping and the weight scales follow), then the gated cells (the first with a forget gate, the LSTM, sets
    the lockstep's parameter budget)."""
    return tuple(name for name, cell in REGISTRY.items() if cell.compared)


# stacked blocks in W_ih / W_hh of the cells torch.nn has, in torch's order (the character model's cells)
GATES = {name: len(cell.gates) for name, cell in REGISTRY.items() if cell.torch_module}


def init_weights(cell: str, input_size: int, hidden_size: int, seed: int = 0, radius: float | None = None,
                 forget_bias: float = 0.0) -> dict[str, np.ndarray]:
    """PyTorch-style uniform(-1/sqrt(H), 1/sqrt(H)) weights; optionally rescale each W_hh block so its
    spectral radius is `radius`, and set the forget-gate bias (b_ih's f block; b_hh's f block is 0)."""
    kind, H = get(cell), hidden_size
    w = kind.init(input_size, hidden_size, np.random.default_rng(seed))
    if radius is not None:
        for gblock in range(len(kind.gates)):
            blk = w["W_hh"][gblock * H:(gblock + 1) * H]
            rho = spectral_radius(blk)
            if rho > 0:
                blk *= radius / rho
    if kind.forget_gate is not None:
        k = kind.gates.index(kind.forget_gate)
        w["b_ih"][k * H:(k + 1) * H] = forget_bias
        w["b_hh"][k * H:(k + 1) * H] = 0.0
    return w

