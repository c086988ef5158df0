"""The Linear Recurrent Unit (Orvieto et al. 2023, "Resurrecting Recurrent Neural Networks for Long Sequences",
arXiv 2303.06349): a diagonal complex linear recurrence, each eigenvalue lambda = r e^{i theta} placed directly.

    lambda = exp(-exp(nu_log) + i exp(theta_log))          (so 0 < r = |lambda| < 1 by construction, eq. 6)
    h_t = lambda * h_{t-1} + gamma * (B x_t),  gamma = sqrt(1 - |lambda|^2)   (the normalisation, eq. 7)
    y_t = Re(C h_t) + D * x_t
As in the paper's code, D is a diagonal (one number per input channel) and y has the input's size. Left out: the
MLP/GLU and residual block around it. The state the Jacobians act on is (Re h, Im h) stacked, 2N real numbers, so
dh_t/dh_{t-1} is the real 2N x 2N matrix of multiplying by lambda: a rotation by theta scaled by r.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation
from rnnviz.nn.cells.linear import as_sequence, run_diagonal


def from_polar(r, theta) -> dict[str, np.ndarray]:
    """nu_log, theta_log, gamma_log for eigenvalues r e^{i theta}, 0 <= r <= 1, 0 <= theta (r = 1 or theta = 0 give
    -inf logs, which the exponentials turn back into exactly r = 1 or theta = 0)."""
    r, theta = np.atleast_1d(np.asarray(r, np.float64)), np.atleast_1d(np.asarray(theta, np.float64))
    with np.errstate(divide="ignore"):
        return {"nu_log": np.log(-np.log(r)), "theta_log": np.log(theta), "gamma_log": np.log(np.sqrt(1 - r ** 2))}


def _complex(params: dict, name: str) -> np.ndarray:
    """name_re + i name_im in complex128, whatever the weights' own type (float32 ones give a float64 answer)."""
    return np.asarray(params[f"{name}_re"], float) + 1j * np.asarray(params[f"{name}_im"], float)


def eigenvalues(params: dict[str, np.ndarray]) -> np.ndarray:
    """lambda = exp(-exp(nu_log) + i exp(theta_log)), (N,) complex."""
    nu_log, theta_log = np.asarray(params["nu_log"], float), np.asarray(params["theta_log"], float)  # float64 exps
    return np.exp(-np.exp(nu_log) + 1j * np.exp(theta_log))


@dataclass
class LRUTrace:
    """Every step of an LRU run.

    Attributes:
        x: (T, d) inputs.
        lam: (N,) complex eigenvalues.
        gamma: (N,) input normalisation.
        a: (T, N) complex: lambda at every step.
        b: (T, N) complex: gamma * B x_t.
        h: (T, N) complex states.
        states: (T, 2N) real: (Re h, Im h), the state the Jacobians act on.
        y: (T, d) outputs Re(C h_t) + D x_t.
        h0: (N,) complex initial state.
    """

    x: np.ndarray
    lam: np.ndarray
    gamma: np.ndarray
    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    states: np.ndarray
    y: np.ndarray
    h0: np.ndarray


class LRUCell(Cell):
    """h_t = lambda h_{t-1} + gamma B x_t, lambda diagonal complex; y_t = Re(C h_t) + D x_t."""

    name = "lru"
    presentation = Presentation("LRU", "#E69F00", "x", "dashdot")
    parallel = True

    def state_size(self, hidden_size: int) -> int:
        return 2 * hidden_size

    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator, r_min: float = 0.9,
             r_max: float = 0.999, max_phase: float = np.pi / 10) -> dict[str, np.ndarray]:
        """The paper's initialisation: lambda uniform on the ring r_min <= r <= r_max (its Lemma 3.2, Sec. 3.3), phases
        up to max_phase; r in [0.9, 0.999] and phases up to pi/10 are the values of its Sec. 3.4 (the ring near the
        unit circle and the small phases that solved PathX; its Appendix A code defaults to 0, 1 and 2 pi);
        B, C complex Gaussian scaled by 1/sqrt(2d) and 1/sqrt(N); D standard normal."""
        d, N = input_size, hidden_size
        u1, u2 = rng.uniform(size=N), rng.uniform(size=N)
        nu_log = np.log(-0.5 * np.log(u1 * (r_max ** 2 - r_min ** 2) + r_min ** 2))
        theta_log = np.log(max_phase * u2)
        lam_abs = np.exp(-np.exp(nu_log))
        return {"nu_log": nu_log, "theta_log": theta_log, "gamma_log": np.log(np.sqrt(1 - lam_abs ** 2)),
                "B_re": rng.normal(size=(N, d)) / np.sqrt(2 * d), "B_im": rng.normal(size=(N, d)) / np.sqrt(2 * d),
                "C_re": rng.normal(size=(d, N)) / np.sqrt(N), "C_im": rng.normal(size=(d, N)) / np.sqrt(N),
                "D": rng.normal(size=d)}

    def param_count(self, input_size: int, hidden_size: int) -> int:
        d, N = input_size, hidden_size
        return 3 * N + 4 * N * d + d  # nu, theta, gamma; B and C, real and imaginary; D

    def readout_size(self, input_size: int, hidden_size: int) -> int:
        return input_size  # y_t = Re(C h_t) + D x_t has the input's size

    def step(self, params, h_prev: np.ndarray, x_t: np.ndarray) -> np.ndarray:
        """One complex step lambda h_{t-1} + gamma B x_t."""
        B = _complex(params, "B")
        return eigenvalues(params) * h_prev + np.exp(np.asarray(params["gamma_log"], float)) * (B @ x_t)

    def forward(self, params, x, state0=None) -> LRUTrace:
        B = _complex(params, "B")
        C = _complex(params, "C")
        x = as_sequence(x, B.shape[1])
        N, T = B.shape[0], len(x)
        lam, gamma = eigenvalues(params), np.exp(np.asarray(params["gamma_log"], float))
        h0 = np.zeros(N, complex)
        if state0 is not None:  # (Re h0, Im h0) stacked, as the Jacobians see it, or h0 complex
            s = np.asarray(state0)
            h0 = s.astype(complex) if np.iscomplexobj(s) else s[:N] + 1j * s[N:]
        a = np.broadcast_to(lam, (T, N)).copy()
        b = gamma * (x @ B.T)  # (T, N)
        h = run_diagonal(a, b, h0)
        y = (h @ C.T).real + params["D"] * x
        return LRUTrace(x, lam, gamma, a, b, h, np.hstack([h.real, h.imag]), y, h0)

    def step_jacobians(self, params, trace: LRUTrace) -> np.ndarray:
        """Multiplying by lambda, on (Re h, Im h): [[diag r cos, -diag r sin], [diag r sin, diag r cos]]."""
        lr, li = np.diag(trace.lam.real), np.diag(trace.lam.imag)
        J = np.block([[lr, -li], [li, lr]])
        return np.broadcast_to(J, (len(trace.x), *J.shape)).copy()

    def input_jacobians(self, params, trace: LRUTrace) -> np.ndarray:
        """d(Re h, Im h)/dx = (gamma B_re, gamma B_im) stacked."""
        g = trace.gamma[:, None]
        J = np.vstack([g * params["B_re"], g * params["B_im"]])
        return np.broadcast_to(J, (len(trace.x), *J.shape)).copy()

    def torch_layer(self, params: dict):
        """h_t = lambda h_{t-1} + gamma B x_t, y_t = Re(C h_t) + D x_t in torch, in real (Re, Im) pairs, as a loop;
        (B, T, d) -> (B, T, d)."""
        import torch  # only the lag experiment's training runs this

        class LRU(torch.nn.Module):
            def __init__(self, p):
                super().__init__()
                self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v) for k, v in p.items()})

            def forward(self, x):
                p = self.p
                mod, ph = torch.exp(-torch.exp(p["nu_log"])), torch.exp(p["theta_log"])
                lr, li = mod * torch.cos(ph), mod * torch.sin(ph)
                g = torch.exp(p["gamma_log"])
                br, bi = g * (x @ p["B_re"].T), g * (x @ p["B_im"].T)
                hr, hi, out = torch.zeros_like(br[:, 0]), torch.zeros_like(br[:, 0]), []
                for t in range(x.shape[1]):
                    hr, hi = lr * hr - li * hi + br[:, t], lr * hi + li * hr + bi[:, t]
                    out.append(hr @ p["C_re"].T - hi @ p["C_im"].T)
                return torch.stack(out, 1) + p["D"] * x

        return LRU(params)
