"""minLSTM (Feng et al. 2024, "Were RNNs All We Needed?", arXiv 2410.01201, section 3.2): the LSTM with its gates
read from x_t alone, no output gate, no cell state apart from h, and the two gates normalised to sum to one.

    f_t = sigmoid(W_f x_t + b_f),  i_t = sigmoid(W_i x_t + b_i),  h~_t = W_h x_t + b_h
    f'_t = f_t / (f_t + i_t),      i'_t = i_t / (f_t + i_t),      h_t = f'_t * h_{t-1} + i'_t * h~_t
So a_t = f'_t and b_t = i'_t h~_t are known up front. The paper's plain (not log-space) form; its log-space variant
(for numerical range in training) is left out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation, sigmoid
from rnnviz.nn.cells.linear import as_sequence, initial, run_diagonal
from rnnviz.nn.cells.mingru import _linear


@dataclass
class MinLSTMTrace:
    """Every step of a minLSTM run.

    Attributes:
        x: (T, d) inputs.
        f: (T, H) forget gate, from x_t alone.
        i: (T, H) input gate, from x_t alone.
        f_norm: (T, H) f' = f / (f + i).
        i_norm: (T, H) i' = i / (f + i) = 1 - f'.
        h_tilde: (T, H) candidate (no tanh).
        a: (T, H) f'_t: what each step keeps of h_{t-1}.
        b: (T, H) i'_t h~_t: what each step writes.
        h: (T, H) states h_1..h_T.
        states: (T, H) = h, the state the Jacobians act on.
        h0: (H,) initial state.
    """

    x: np.ndarray
    f: np.ndarray
    i: np.ndarray
    f_norm: np.ndarray
    i_norm: np.ndarray
    h_tilde: np.ndarray
    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    states: np.ndarray
    h0: np.ndarray


class MinLSTMCell(Cell):
    """h_t = f'_t h_{t-1} + i'_t h~_t, f' and i' the normalised forget and input gates of x_t."""

    name = "minlstm"
    presentation = Presentation("minLSTM", "#D55E00", "triangle-down", "dot")
    parallel = True
    gates = ("f", "i", "h")

    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """torch.nn.Linear's uniform(-1/sqrt(d), 1/sqrt(d)) for the three maps."""
        out = {}
        for g in self.gates:
            out[f"W_{g}"], out[f"b_{g}"] = _linear(rng, input_size, hidden_size)
        return out

    def param_count(self, input_size: int, hidden_size: int) -> int:
        return 3 * hidden_size * (input_size + 1)

    def coefficients(self, params, x: np.ndarray) -> dict[str, np.ndarray]:
        """f, i, f', i', h~, a, b for every step at once, (T, H) each."""
        f = sigmoid(x @ params["W_f"].T + params["b_f"])
        i = sigmoid(x @ params["W_i"].T + params["b_i"])
        h_tilde = x @ params["W_h"].T + params["b_h"]
        f_norm, i_norm = f / (f + i), i / (f + i)
        return dict(f=f, i=i, f_norm=f_norm, i_norm=i_norm, h_tilde=h_tilde, a=f_norm, b=i_norm * h_tilde)

    def step(self, params, h_prev: np.ndarray, x_t: np.ndarray) -> np.ndarray:
        c = self.coefficients(params, np.asarray(x_t, np.float64)[None])
        return c["a"][0] * h_prev + c["b"][0]

    def forward(self, params, x, state0=None) -> MinLSTMTrace:
        x = as_sequence(x, params["W_f"].shape[1])
        c = self.coefficients(params, x)
        h0 = initial(state0, c["f"].shape[1])
        h = run_diagonal(c["a"], c["b"], h0)
        return MinLSTMTrace(x, **c, h=h, states=h, h0=h0)

    def step_jacobians(self, params, trace: MinLSTMTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(f'_s)."""
        return np.einsum("ti,ij->tij", trace.a, np.eye(trace.a.shape[1]))

    def input_jacobians(self, params, trace: MinLSTMTrace) -> np.ndarray:
        """h = f' h_prev + (1 - f') h~:  dh/dx = diag(h_prev - h~) df'/dx + diag(i') W_h, with
        df'/dx = diag(i / (f+i)^2 * f (1-f)) W_f - diag(f / (f+i)^2 * i (1-i)) W_i."""
        f, i = trace.f, trace.i
        s2 = (f + i) ** 2
        h_prev = np.vstack([trace.h0[None], trace.h[:-1]])
        df = ((i / s2 * f * (1 - f))[:, :, None] * params["W_f"][None]
              - (f / s2 * i * (1 - i))[:, :, None] * params["W_i"][None])
        return (h_prev - trace.h_tilde)[:, :, None] * df + trace.i_norm[:, :, None] * params["W_h"][None]
