"""Backpropagation through time, analytically: the Jacobians dh_T/dh_t of a run and their norms.

    dh_T/dh_t = prod_{s=t+1..T} dh_s/dh_{s-1},   vanilla: dh_s/dh_{s-1} = diag(1 - h_s^2) W_hh
For the LSTM the state is (h, c) and each factor is the 2H x 2H Jacobian of one step; its c->c block is diag(f_s),
the additive path; the LRU's h is complex, its state (Re h, Im h). Products are accumulated with a running
power-of-ten scale, so their logarithms stay exact far beyond float64's range (Pascanu, Mikolov and Bengio, 2013).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rnnviz.nn.cells import Cell, get

NEG_INF = -np.inf
FORGET_PATH, CELL_PATHS = "_f", "_c"  # a curve's key after its cell's name: c along the forget gates, c by all paths


@dataclass
class GradientReport:
    """Jacobians of the last state with respect to every earlier state, indexed by steps back k = T - t.

    Attributes:
        steps_back: (T+1,) k = 0..T.
        jacobians: (T+1, H, H) dh_T/dh_{T-k}; may hold 0 or inf where float64 runs out.
        log10_spectral: (T+1,) log10 of the largest singular value of each Jacobian, exact.
        log10_loss_grad: (T+1,) log10 ||dL/dh_{T-k}||, L a loss at step T with dL/dh_T = g.
        loss_grad_dirs: (T+1, H) dL/dh_{T-k} / ||dL/dh_{T-k}||: the direction, exact at any size (0 if zero).
        cell_jacobians: (T+1, H, H) the LSTM's dc_T/dc_{T-k}, all paths; None for other cells.
        log10_cell_spectral: (T+1,) log10 of the largest singular value of each cell_jacobians entry; LSTM only.
        log10_forget_path: (T+1, H) the LSTM's log10 prod of f along the additive path alone; LSTM only.
        factors: per-step parts of each factor, name -> (T, H) array.
    """

    steps_back: np.ndarray
    jacobians: np.ndarray
    log10_spectral: np.ndarray
    log10_loss_grad: np.ndarray
    loss_grad_dirs: np.ndarray
    cell_jacobians: np.ndarray | None = None
    log10_cell_spectral: np.ndarray | None = None
    log10_forget_path: np.ndarray | None = None
    factors: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def spectral(self) -> np.ndarray:
        """Spectral norms as float64 (0 or inf where they leave float64's range)."""
        with np.errstate(over="ignore"):
            return 10.0 ** self.log10_spectral

    @property
    def loss_grads(self) -> np.ndarray:
        """dL/dh_{T-k} itself, (T+1, H) (0 or inf where float64 runs out)."""
        with np.errstate(over="ignore", invalid="ignore"):
            g = self.loss_grad_dirs * 10.0 ** self.log10_loss_grad[:, None]
        return np.where(np.isnan(g), 0.0, g)  # 0 * inf: a zero component of an overflowing vector


def _log10(x: float) -> float:
    return float(np.log10(x)) if x > 0 else NEG_INF


def _accumulate(factors: list[np.ndarray], g: np.ndarray, H: int, cell_state: bool = False):
    """Multiply step Jacobians backwards from the last one, keeping a running log10 scale.

    factors[s-1] is d state_s / d state_{s-1} (n x n: (T, n, n) or a list), whose first H entries are h. Returns the
    true products' top-left HxH blocks (and, with `cell_state`, the bottom-right n-H block: c's), their exact log10
    spectral norms, the row vectors g^T P restricted to their first H entries, and those vectors' exact log10 norms."""
    T, n = len(factors), factors[0].shape[0] if len(factors) else H
    P, scale = np.eye(n), 0.0  # P * 10**scale = product so far
    v = np.zeros(n)
    v[: len(g)] = g
    nv = np.abs(v).max()
    v, vscale = (v / nv, _log10(nv)) if nv > 0 else (v, NEG_INF)
    blocks = np.empty((T + 1, n, n))
    scales, vs, vscales = np.empty(T + 1), np.empty((T + 1, H)), np.empty(T + 1)
    for k in range(T + 1):
        if k > 0:
            P = P @ factors[T - k]
            v = v @ factors[T - k]
            s, sv = np.abs(P).max(), np.abs(v).max()
            P, scale = (P / s, scale + np.log10(s)) if s > 0 and np.isfinite(scale) else (P * 0, NEG_INF)
            v, vscale = (v / sv, vscale + np.log10(sv)) if sv > 0 and np.isfinite(vscale) else (v * 0, NEG_INF)
        blocks[k], scales[k], vs[k], vscales[k] = P, scale, v[:H], vscale
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        mult = np.where(np.isfinite(scales), 10.0 ** np.where(np.isfinite(scales), scales, 0), 0.0)
        J = blocks[:, :H, :H] * mult[:, None, None]
        spec = np.log10(np.linalg.svd(blocks[:, :H, :H], compute_uv=False)[:, 0]) + scales
        vn = np.linalg.norm(vs, axis=1)
        dirs = np.where((vn > 0)[:, None], vs / np.where(vn > 0, vn, 1.0)[:, None], 0.0)
        lg = np.log10(vn) + vscales
        Jc = cspec = None
        if cell_state:
            Jc = blocks[:, H:, H:] * mult[:, None, None]
            cspec = np.log10(np.linalg.svd(blocks[:, H:, H:], compute_uv=False)[:, 0]) + scales
    fix = lambda a: np.where(np.isnan(a), NEG_INF, a)  # noqa: E731  (0 * -inf where a product hit zero)
    return J, fix(spec), fix(lg), Jc, (fix(cspec) if cspec is not None else None), dirs


def _default_g(H: int, g) -> np.ndarray:
    """dL/dh_T: the given vector, or a unit vector along (1, ..., 1)."""
    return np.full(H, 1 / np.sqrt(H)) if g is None else np.asarray(g, dtype=np.float64).reshape(H)


def gradients_through_time(cell: Cell | str, params: dict[str, np.ndarray], trace, g=None) -> GradientReport:
    """dh_T/dh_t for every t and their exact norms, by multiplying the cell's own step Jacobians; for a cell that
    carries c beside h, also dc_T/dc_t (all paths) and the path along its forget gates alone. h is the state the
    Jacobians act on less c: for the LRU all of (Re h, Im h), 2N real numbers, so its norms are those of the complex
    dh_T/dh_t. `g` = dL/dh_T (default: a unit vector along (1, ..., 1)). The report's factors are the cell's own
    `gradient_factors`. `cell` is a registered cell or its name."""
    cell = get(cell) if isinstance(cell, str) else cell
    n = cell.state_size(trace.h.shape[1])
    H = n // 2 if cell.has_cell_state else n
    J, spec, lg, Jc, cspec, dirs = _accumulate(cell.step_jacobians(params, trace), _default_g(H, g), H,
                                               cell.has_cell_state)
    rep = GradientReport(np.arange(len(J)), J, spec, lg, dirs, Jc, cspec, factors=cell.gradient_factors(params, trace))
    if cell.has_cell_state and cell.forget_gate is not None:
        f = getattr(trace, cell.forget_gate)  # (T, H): the gate on c's additive path
        with np.errstate(divide="ignore"):  # a forget gate of exactly 0 cuts its unit's path: log10 = -inf
            rep.log10_forget_path = np.vstack([np.zeros((1, H)), np.cumsum(np.log10(f[::-1]), axis=0)])  # (T+1, H)
    return rep


def clip_by_norm(grad, max_norm: float) -> tuple[np.ndarray, float, float]:
    """Rescale grad to length max_norm if it is longer, as torch.nn.utils.clip_grad_norm_ does.
    Returns (clipped, norm before, scale applied)."""
    grad = np.asarray(grad, dtype=np.float64)
    norm = float(np.linalg.norm(grad))
    scale = min(1.0, max_norm / (norm + 1e-6)) if np.isfinite(norm) else 0.0
    return grad * scale, norm, scale


def decay_table(steps=(0, 5, 10, 20, 40), tanh_slope: float = 0.5, w: float = 0.9,
                forget: float = 0.9) -> dict[str, np.ndarray]:
    """The idealised factors per step: vanilla (slope * w)^t, LSTM f^t, LSTM with f = 1."""
    t = np.asarray(steps, dtype=np.float64)
    return {"t": t, "vanilla": (tanh_slope * w) ** t, "lstm": forget ** t, "lstm_f1": np.ones_like(t)}
