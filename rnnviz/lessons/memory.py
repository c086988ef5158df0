"""Memory side by side: how much of the first input x_1 each cell still carries at step t, the spectral norm of
dh_t/dx_1, exact, for the three cells of the gates page (untrained, or trained on the lag task and shipped), and the
inputs of its two presets (the words and widget keys: ui/lessons/gates_memory.py).

    dh_t/dx_1 = [dstate_t/dstate_{t-1}] ... [dstate_2/dstate_1] dstate_1/dx_1,   its h rows
every factor the cell's own `step_jacobians` / `input_jacobians` (for the LSTM the state is (h, c): x_1 survives in c
as well, and reaches h_t through both).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.lessons.gates import Lockstep, budget_cell, run
from rnnviz.nn.cells import compared, get
from rnnviz.nn.params import cell_params


def survival(cell: str, params: dict[str, np.ndarray], x: np.ndarray, trace=None) -> np.ndarray:
    """||dh_t/dx_1||_2 (largest singular value of the H x d block) for t = 1..T, from the cell's exact Jacobians;
    exactly 0 where the product underflows. `trace`: the cell's forward pass over x, where it has run already."""
    kind = get(cell)
    trace = kind.forward(params, np.asarray(x, np.float64)) if trace is None else trace
    J, first = kind.step_jacobians(params, trace), kind.input_jacobians(params, trace)[0]
    H = trace.h.shape[1]
    P, blocks = first, np.empty((len(J), H, first.shape[1]))
    for t in range(len(J)):
        if t:
            P = J[t] @ P
            s = np.abs(P).max()
            if not np.isfinite(s):
                P = np.zeros_like(P)
        blocks[t] = P[:H]
    # the largest singular value of each block (np.linalg.norm(block, 2)), all in one call: one per step took most of
    # the time a drag's frames of the gates page's memory chart need (ui/lagview.py memory_scrubs)
    return np.linalg.svd(blocks, compute_uv=False)[:, 0]


@dataclass
class Memory:
    """Per cell of the lockstep (rnn, lstm, gru): ||dh_t/dx_1|| for t = 1..T.

    Attributes:
        norms: per cell, (T,) ||dh_t/dx_1|| for t = 1..T.
        trained: whether the cells' weights were trained (else they are the seeded initial ones).
    """

    norms: dict[str, np.ndarray]
    trained: bool


def memory(ls: Lockstep, trained: bool = False) -> Memory:
    """The survival curve of each of a lockstep's cells on its own input and weights."""
    return Memory({c: survival(c, w, ls.x, ls.traces[c]) for c, w in ls.weights.items()}, trained)


def trained_lockstep(x: np.ndarray, weights: dict[str, dict[str, np.ndarray]]) -> Lockstep:
    """A lockstep of the three shipped cells trained on the lag task (their output layers dropped) run on x; x must
    have the symbols' size as its width (ValueError otherwise)."""
    ws = {c: {k: v for k, v in weights[c].items() if k in ("W_ih", "W_hh", "b_ih", "b_hh")} for c in compared()}
    d = ws[budget_cell()]["W_ih"].shape[1]
    if x.shape[1] != d:
        raise ValueError(f"the trained cells read {d} inputs per step, this input has {x.shape[1]}")
    sizes = {c: ws[c]["W_hh"].shape[1] for c in compared()}
    params = {c: cell_params(c, d, sizes[c]) for c in compared()}
    return Lockstep(x, params[budget_cell()], sizes, params, ws, {c: run(c, x, ws[c]) for c in compared()})


def one_then_zeros(T: int, d: int) -> np.ndarray:
    """x_1 = the first one-hot vector, then T - 1 zero vectors: the valve's input, d wide."""
    x = np.zeros((T, d))
    x[0, 0] = 1.0
    return x


def first_letter_word(T: int, letters: str, seed: int = 0) -> str:
    """A word of T random letters (seeded): the lag task's input, whose first letter a trained cell names."""
    return "".join(np.random.default_rng(seed).choice(list(letters), T))


def last_alive(norms: np.ndarray, floor: float = 1e-6) -> int:
    """The last step t (1-based) at which ||dh_t/dx_1|| is still at least `floor` (0 if never)."""
    alive = np.flatnonzero(np.asarray(norms) >= floor)
    return int(alive[-1]) + 1 if alive.size else 0
