"""minGRU (Feng et al. 2024, "Were RNNs All We Needed?", arXiv 2410.01201, section 3.1): the GRU with its gates
read from x_t alone, so every step's (a_t, b_t) is known before the recurrence runs and a parallel scan computes it.

    z_t = sigmoid(W_z x_t + b_z),   h~_t = W_h x_t + b_h,   h_t = (1 - z_t) * h_{t-1} + z_t * h~_t
The paper's equations in their plain (not log-space) form: a_t = 1 - z_t, b_t = z_t * h~_t. The paper's log-space
variant (h~ through g(x) = x + 0.5 / sigmoid, for numerical range in training) is left out: the page steps it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation, sigmoid
from rnnviz.nn.cells.linear import as_sequence, initial, run_diagonal


def _linear(rng: np.random.Generator, d: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    k = 1 / np.sqrt(d)  # torch.nn.Linear's default
    return rng.uniform(-k, k, (H, d)), rng.uniform(-k, k, H)


@dataclass
class MinGRUTrace:
    """Every step of a minGRU run.

    Attributes:
        x: (T, d) inputs.
        z: (T, H) update gate, from x_t alone.
        h_tilde: (T, H) candidate, from x_t alone (no tanh).
        a: (T, H) 1 - z_t: what each step keeps of h_{t-1}.
        b: (T, H) z_t * h~_t: what each step writes.
        h: (T, H) states h_1..h_T.
        states: (T, H) = h, the state the Jacobians act on.
        h0: (H,) initial state.
    """

    x: np.ndarray
    z: np.ndarray
    h_tilde: np.ndarray
    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    states: np.ndarray
    h0: np.ndarray


class MinGRUCell(Cell):
    """h_t = (1 - z_t) h_{t-1} + z_t h~_t with z_t and h~_t functions of x_t only."""

    name = "mingru"
    presentation = Presentation("minGRU", "#009E73", "star", "dot")
    parallel = True
    gates = ("z", "h")

    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """torch.nn.Linear's uniform(-1/sqrt(d), 1/sqrt(d)) for both maps."""
        W_z, b_z = _linear(rng, input_size, hidden_size)
        W_h, b_h = _linear(rng, input_size, hidden_size)
        return {"W_z": W_z, "b_z": b_z, "W_h": W_h, "b_h": b_h}

    def param_count(self, input_size: int, hidden_size: int) -> int:
        return 2 * hidden_size * (input_size + 1)

    def coefficients(self, params, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """z, h~, a = 1 - z, b = z h~ for every step at once: (T, H) each, before any state exists."""
        z = sigmoid(x @ params["W_z"].T + params["b_z"])
        h_tilde = x @ params["W_h"].T + params["b_h"]
        return z, h_tilde, 1 - z, z * h_tilde

    def step(self, params, h_prev: np.ndarray, x_t: np.ndarray) -> np.ndarray:
        z, h_tilde, a, b = self.coefficients(params, np.asarray(x_t, np.float64)[None])
        return a[0] * h_prev + b[0]

    def forward(self, params, x, state0=None) -> MinGRUTrace:
        x = as_sequence(x, params["W_z"].shape[1])
        z, h_tilde, a, b = self.coefficients(params, x)
        h0 = initial(state0, z.shape[1])
        h = run_diagonal(a, b, h0)
        return MinGRUTrace(x, z, h_tilde, a, b, h, h, h0)

    def step_jacobians(self, params, trace: MinGRUTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(1 - z_s): no weight matrix, no tanh' (the gate ignores h)."""
        return np.einsum("ti,ij->tij", trace.a, np.eye(trace.a.shape[1]))

    def input_jacobians(self, params, trace: MinGRUTrace) -> np.ndarray:
        """dh_s/dx_s = diag((h~_s - h_{s-1}) z_s (1 - z_s)) W_z + diag(z_s) W_h."""
        h_prev = np.vstack([trace.h0[None], trace.h[:-1]])
        dz = ((trace.h_tilde - h_prev) * trace.z * (1 - trace.z))[:, :, None] * params["W_z"][None]
        return dz + trace.z[:, :, None] * params["W_h"][None]

    def torch_layer(self, params: dict):
        """h_t = (1 - z_t) h_{t-1} + z_t h~_t in torch, z and h~ from x_t alone, as a loop; (B, T, d) -> (B, T, H)."""
        import torch  # only the lag experiment's training runs this

        class MinGRU(torch.nn.Module):
            def __init__(self, p):
                super().__init__()
                self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v) for k, v in p.items()})

            def forward(self, x):
                z = torch.sigmoid(x @ self.p["W_z"].T + self.p["b_z"])
                b = z * (x @ self.p["W_h"].T + self.p["b_h"])
                h, out = torch.zeros_like(b[:, 0]), []
                for t in range(x.shape[1]):
                    h = (1 - z[:, t]) * h + b[:, t]
                    out.append(h)
                return torch.stack(out, 1)

        return MinGRU(params)
