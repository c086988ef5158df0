"""A selective state space (Gu & Dao 2023, "Mamba", arXiv 2312.00752, Algorithm 2): the step size Delta_t is a
function of the input, so the input decides, step by step, how much of the state is kept.

    Delta_t = softplus(W_delta x_t + b_delta)                 (d,)    one step size per channel
    a_t = exp(Delta_t A),  A = -exp(A_log) < 0 diagonal     (d, N)  zero-order hold of A
    b_t = Delta_t B x_t                                      (d, N)  Mamba's simplified (Euler) hold of B
    h_t = a_t * h_{t-1} + b_t,   y_t = sum_n C h_t + D * x_t
Each of the d channels has its own N-state diagonal SSM, as in Mamba. Simplified: B and C are fixed parameters
(d, N) here, where Mamba also makes them functions of x_t; W_delta is full (d, d), where Mamba makes it low rank;
no convolution, gating branch or block around it. Large Delta_t: a_t -> 0, the state is reset and the input
written; Delta_t -> 0: a_t -> 1, the state is kept and the input ignored. The state is h flattened channel-major,
d * N numbers: that is the cell's hidden_size (N = hidden_size / input_size).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation, sigmoid
from rnnviz.nn.cells.linear import as_sequence, initial, run_diagonal


def softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z), without overflow."""
    return np.logaddexp(0.0, z)


@dataclass
class SelectiveTrace:
    """Every step of a selective SSM run.

    Attributes:
        x: (T, d) inputs.
        delta: (T, d) step sizes Delta_t.
        a: (T, d*N) exp(Delta_t A): what each step keeps.
        b: (T, d*N) Delta_t B x_t: what each step writes.
        h: (T, d*N) states, channel-major.
        states: (T, d*N) = h, the state the Jacobians act on.
        y: (T, d) outputs.
        h0: (d*N,) initial state.
    """

    x: np.ndarray
    delta: np.ndarray
    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    states: np.ndarray
    y: np.ndarray
    h0: np.ndarray


class SelectiveCell(Cell):
    """Mamba's selective scan with input-dependent Delta: a_t = exp(Delta_t A), b_t = Delta_t B x_t, y = C h."""

    name = "selective"
    presentation = Presentation("selective", "#56B4E9", "x", "dash")
    parallel = True

    @staticmethod
    def per_channel(input_size: int, hidden_size: int) -> int:
        """N, the state per channel: hidden_size is the whole state, d * N numbers, as for every other cell."""
        if hidden_size % input_size:
            raise ValueError(f"a selective SSM's state is N per input channel: hidden_size {hidden_size} is not a "
                             f"multiple of input_size {input_size}")
        return hidden_size // input_size

    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator, dt_min: float = 0.001,
             dt_max: float = 0.1) -> dict[str, np.ndarray]:
        """Mamba's initialisation: A_n = -(n + 1) (S4D-real), Delta's bias so softplus(b) is log-uniform in
        [dt_min, dt_max]; hidden_size is the whole state, N = hidden_size / input_size per channel."""
        d, N = input_size, self.per_channel(input_size, hidden_size)
        dt = np.exp(rng.uniform(np.log(dt_min), np.log(dt_max), d))
        return {"A_log": np.log(np.tile(np.arange(1, N + 1, dtype=np.float64), (d, 1))),
                "B": rng.normal(size=(d, N)) / np.sqrt(N), "C": rng.normal(size=(d, N)) / np.sqrt(N),
                "W_delta": rng.uniform(-1, 1, (d, d)) / np.sqrt(d), "b_delta": dt + np.log(-np.expm1(-dt)),
                "D": np.ones(d)}

    def param_count(self, input_size: int, hidden_size: int) -> int:
        d, n = input_size, self.per_channel(input_size, hidden_size) * input_size
        return 3 * n + d * d + 2 * d  # A, B, C (d x N each); W_delta; b_delta, D

    def coefficients(self, params, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Delta (T, d), a and b (T, d*N) for every step: they need x_t alone, never the state."""
        A = -np.exp(np.asarray(params["A_log"], float))  # (d, N)
        delta = softplus(x @ params["W_delta"].T + params["b_delta"])
        a = np.exp(delta[:, :, None] * A[None])  # (T, d, N)
        b = delta[:, :, None] * params["B"][None] * x[:, :, None]
        return delta, a.reshape(len(x), -1), b.reshape(len(x), -1)

    def step(self, params, h_prev: np.ndarray, x_t: np.ndarray) -> np.ndarray:
        _, a, b = self.coefficients(params, np.asarray(x_t, np.float64)[None])
        return a[0] * h_prev + b[0]

    def forward(self, params, x, state0=None) -> SelectiveTrace:
        d, N = params["B"].shape
        x = as_sequence(x, d)
        delta, a, b = self.coefficients(params, x)
        h0 = initial(state0, d * N)
        h = run_diagonal(a, b, h0)
        y = (h.reshape(len(x), d, N) * params["C"][None]).sum(-1) + params["D"] * x
        return SelectiveTrace(x, delta, a, b, h, h, y, h0)

    def step_jacobians(self, params, trace: SelectiveTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(a_s) = diag(exp(Delta_s A)): the input sets how much survives."""
        return np.einsum("ti,ij->tij", trace.a, np.eye(trace.a.shape[1]))

    def input_jacobians(self, params, trace: SelectiveTrace) -> np.ndarray:
        """dh_s[i,n]/dx_s[j] = (A a_s h_{s-1} + B x_s)[i,n] sigmoid(W_delta x_s + b)[i] W_delta[i,j]
        + Delta_s[i] B[i,n] [i = j]."""
        d, N = params["B"].shape
        T = len(trace.x)
        A = -np.exp(np.asarray(params["A_log"], float))
        h_prev = np.vstack([trace.h0[None], trace.h[:-1]]).reshape(T, d, N)
        a = trace.a.reshape(T, d, N)
        slope = sigmoid(trace.x @ params["W_delta"].T + params["b_delta"])  # softplus' = sigmoid, (T, d)
        via_delta = (A * a * h_prev + params["B"] * trace.x[:, :, None]) * slope[:, :, None]  # (T, d, N)
        J = via_delta[:, :, :, None] * params["W_delta"][None, :, None, :]  # (T, d, N, d)
        J[:, np.arange(d), :, np.arange(d)] += (trace.delta[:, :, None] * params["B"][None]).transpose(1, 0, 2)
        return J.reshape(T, d * N, d)
