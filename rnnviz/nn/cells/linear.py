"""The plain linear recurrence h_t = a * h_{t-1} + B x_t: a real diagonal (one number a per unit), no squash.

It is the LRU (`lru.py`) with real eigenvalues and no input normalisation or output layer, and the recurrence
every cell of #25 reduces to once its (a_t, b_t) are known: then dh_t/dh_{t-1} = diag(a), so the gradient through
k steps is a^k exactly (Orvieto et al. 2023, arXiv 2303.06349, section 3; Martin & Cundy 2018, arXiv 1709.04057).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation


def as_sequence(x, d: int) -> np.ndarray:
    """x as float64 (T, d); a 1-D x is a sequence of scalars (d = 1)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1 and d == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[1] != d:
        raise ValueError(f"x must be (T, {d}), got shape {x.shape}")
    return x


def initial(state0, n: int, dtype=np.float64) -> np.ndarray:
    """The start state (n,), zeros unless given."""
    return np.zeros(n, dtype) if state0 is None else np.broadcast_to(np.asarray(state0, dtype=dtype), (n,)).copy()


def run_diagonal(a: np.ndarray, b: np.ndarray, h0: np.ndarray) -> np.ndarray:
    """h_t = a_t * h_{t-1} + b_t for t = 1..T, the sequential loop; a, b (T, n), h0 (n,) -> h (T, n), in the widest
    of their types and at least float64 (as `scan._fold`: integer inputs give float64 states, complex ones complex)."""
    h, prev = np.empty(np.broadcast_shapes(a.shape, b.shape), np.result_type(a, b, h0, np.float64)), h0
    for t in range(len(h)):
        h[t] = prev = a[t] * prev + b[t]
    return h


@dataclass
class LinearTrace:
    """Every step of a diagonal linear recurrence.

    Attributes:
        x: (T, d) inputs.
        a: (T, H) what each step keeps of h_{t-1} (here the same a every step).
        b: (T, H) what each step writes: B x_t.
        h: (T, H) states h_1..h_T.
        states: (T, H) the same: the state the Jacobians act on is h.
        h0: (H,) initial state.
    """

    x: np.ndarray
    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    states: np.ndarray
    h0: np.ndarray


class LinearCell(Cell):
    """h_t = a * h_{t-1} + B x_t, a real (H,) diagonal: the recurrence without the tanh."""

    name = "linear"
    presentation = Presentation("linear", "#E69F00", "triangle-up", "dash")
    parallel = True

    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """a uniform in (0.9, 0.999) (a slow, stable memory); B ~ N(0, 1/d)."""
        return {"a": rng.uniform(0.9, 0.999, hidden_size),
                "B": rng.normal(0, 1 / np.sqrt(input_size), (hidden_size, input_size))}

    def param_count(self, input_size: int, hidden_size: int) -> int:
        return hidden_size * (1 + input_size)

    def step(self, params: dict[str, np.ndarray], h_prev: np.ndarray, x_t: np.ndarray) -> np.ndarray:
        """One step: a * h_{t-1} + B x_t."""
        return params["a"] * h_prev + params["B"] @ x_t

    def forward(self, params, x, state0=None) -> LinearTrace:
        a, B = np.asarray(params["a"], np.float64), np.atleast_2d(np.asarray(params["B"], np.float64))
        x = as_sequence(x, B.shape[1])
        A = np.broadcast_to(a, (len(x), len(a))).copy()
        b = x @ B.T  # (T, H): every step's write is known before the loop
        h0 = initial(state0, len(a))
        h = run_diagonal(A, b, h0)
        return LinearTrace(x, A, b, h, h, h0)

    def step_jacobians(self, params, trace: LinearTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(a)."""
        return np.einsum("ti,ij->tij", trace.a, np.eye(trace.a.shape[1]))

    def input_jacobians(self, params, trace: LinearTrace) -> np.ndarray:
        """dh_s/dx_s = B."""
        B = np.atleast_2d(np.asarray(params["B"], np.float64))
        return np.broadcast_to(B, (len(trace.x), *B.shape)).copy()
