"""Recurrence returns: the numbers behind the page on linear recurrences (#25).

The linear recurrence h_t = a h_{t-1} + b x_t and a diagonal of complex eigenvalues (the LRU); minGRU and minLSTM
beside the gates page's GRU; a selective state space whose input sets its own step; the parallel scan's tree, work,
depth and time; and ||dh_T/dh_t|| for the new cells beside the vanilla RNN, LSTM and GRU. Plain values in,
dataclasses of arrays out.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rnnviz.lessons import gates as gates_lesson, gradients as grad_lesson
from rnnviz.lessons.vector import encode_word
from rnnviz.nn.cells import get as get_cell
from rnnviz.nn.cells.linear import LinearCell, LinearTrace, run_diagonal
from rnnviz.nn.cells.lru import LRUCell, LRUTrace, from_polar
from rnnviz.nn.cells.mingru import MinGRUCell
from rnnviz.nn.cells.minlstm import MinLSTMCell
from rnnviz.nn.cells.selective import SelectiveCell, SelectiveTrace
from rnnviz.nn.params import cell_params
from rnnviz.nn.scan import blelloch, costs, hillis_steele, sequential

LINEAR, LRU, MINGRU, MINLSTM, SELECTIVE = LinearCell(), LRUCell(), MinGRUCell(), MinLSTMCell(), SelectiveCell()
LOG_FLOOR = -30.0  # the impulse chart's floor: |h_t| below 1e-30 (or exactly 0, r = 0) is not drawn

# ---- (a) the linear recurrence, one unit, then a diagonal of eigenvalues -------------------------------------


def linear_run(a: float, b: float, x: list[float], h0: float = 0.0) -> LinearTrace:
    """h_t = a h_{t-1} + b x_t over the scalars x; arrays (T, 1)."""
    return LINEAR.forward({"a": np.array([a]), "B": np.array([[b]])}, np.asarray(x, float), np.array([h0]))


def linear_step(trace: LinearTrace, t: int) -> dict[str, float]:
    """Step t (1-based) in its parts: h_{t-1}, a h_{t-1}, b x_t, h_t."""
    k = t - 1
    h_prev = float(trace.h[k - 1, 0] if k else trace.h0[0])
    return {"x": float(trace.x[k, 0]), "h_prev": h_prev, "kept": float(trace.a[k, 0] * h_prev),
            "written": float(trace.b[k, 0]), "h": float(trace.h[k, 0])}


@dataclass
class EigenResponse:
    """The LRU's answer to one input x_1 = 1 (then silence), unit by unit.

    Attributes:
        lam: (N,) complex eigenvalues r e^{i theta}.
        gamma: (N,) input normalisation sqrt(1 - r^2).
        h: (T, N) complex states.
        log10_abs: (T, N) log10 |h_t|, -inf where exactly 0.
        half_life: (N,) steps for |h| to halve, ln 2 / -ln r (inf at r = 1, 0 at r = 0).
    """

    lam: np.ndarray
    gamma: np.ndarray
    h: np.ndarray
    log10_abs: np.ndarray
    half_life: np.ndarray


def eigen_response(r: list[float], theta: list[float], steps: int = 1000) -> EigenResponse:
    """Run an LRU with eigenvalues r e^{i theta}, B = 1, over one input 1 at t = 1 and steps - 1 zeros."""
    r, theta = np.asarray(r, float), np.asarray(theta, float)
    N = len(r)
    p = {**from_polar(r, theta), "B_re": np.ones((N, 1)), "B_im": np.zeros((N, 1)), "C_re": np.ones((1, N)),
         "C_im": np.zeros((1, N)), "D": np.zeros(1)}
    x = np.zeros((steps, 1))
    x[0] = 1.0
    tr: LRUTrace = LRU.forward(p, x)
    with np.errstate(divide="ignore"):
        log_abs = np.log10(np.abs(tr.h))
        half = np.where(r >= 1, np.inf, np.log(2) / -np.log(np.where(r > 0, r, 1e-300)))
    return EigenResponse(tr.lam, tr.gamma, tr.h, log_abs, half)


# ---- (b) minGRU and minLSTM beside the GRU ---------------------------------------------------------------------


@dataclass
class MinLockstep:
    """minGRU, minLSTM and the gates page's GRU on the same one-hot input, with what each keeps of h_{t-1}.

    Attributes:
        x: (T, d) one-hot characters.
        h: cell -> (T, H) states.
        keep: cell -> (T, H) the share of h_{t-1} kept: 1 - z (minGRU), f' (minLSTM), z (GRU).
        write: minGRU / minLSTM -> (T, H) b_t, known before the run.
        params: cell -> its count of trainable numbers.
        mingru_weights: the minGRU's parameters (for its export).
        stepwise: cells whose keep row needs h_{t-1} first (not known up front).
    """

    x: np.ndarray
    h: dict[str, np.ndarray]
    keep: dict[str, np.ndarray]
    write: dict[str, np.ndarray]
    params: dict[str, int]
    mingru_weights: dict[str, np.ndarray]
    stepwise: tuple[str, ...]


MIN_CELLS = ("mingru", "minlstm", "gru")  # the min cells beside the gates page's GRU, in the chart's order


def min_lockstep(word: str, vocab: list[str], H: int, seed: int, radius: float = 0.9) -> MinLockstep:
    """The three cells over the word's one-hot vectors; the GRU is the gates page's (same seed, same radius)."""
    x = encode_word(word, vocab)
    d = x.shape[1]
    weights, traces = {}, {}
    for c in MIN_CELLS:  # a cell torch has gets the gates page's weights, a min cell its own init, seeded alike
        kind = get_cell(c)
        weights[c] = (gates_lesson.generate(c, d, H, seed, radius) if kind.torch_module
                      else kind.init(d, H, np.random.default_rng(seed)))
        traces[c] = kind.forward(weights[c], x)
    parallel = [c for c in MIN_CELLS if get_cell(c).parallel]
    return MinLockstep(x, {c: traces[c].h for c in MIN_CELLS},
                       {c: traces[c].a if c in parallel else getattr(traces[c], get_cell(c).keep_gate)
                        for c in MIN_CELLS},  # a_t, known up front; or the gate that keeps h_{t-1} (the GRU's z)
                       {c: traces[c].b for c in parallel}, {c: cell_params(c, d, H) for c in MIN_CELLS},
                       weights[parallel[0]], tuple(c for c in MIN_CELLS if c not in parallel))


# ---- (c) selective: the input sets the step -------------------------------------------------------------------


def selective_run(x: list[float], w: float, c: float, A: float = -1.0, B: float = 1.0) -> SelectiveTrace:
    """One channel, one state: Delta_t = softplus(w x_t + c), a_t = exp(Delta_t A), b_t = Delta_t B x_t, y = h."""
    p = {"A_log": np.array([[np.log(-A)]]), "B": np.array([[B]]), "C": np.ones((1, 1)),
         "W_delta": np.array([[w]]), "b_delta": np.array([c]), "D": np.zeros(1)}
    return SELECTIVE.forward(p, np.asarray(x, float))


# ---- (d) the parallel scan ---------------------------------------------------------------------------------------


@dataclass
class ScanTree:
    """A Hillis-Steele scan of random (a, b) small enough to draw, beside the loop.

    Attributes:
        a: (T,) input multipliers a_t.
        b: (T,) input offsets b_t.
        levels_a: (L + 1, T) the a part of each node's value, level 0 the inputs.
        levels_b: (L + 1, T) the b part of each node's value, level 0 the inputs.
        loop: (T,) h_t by the sequential loop.
        max_diff: largest |scan - loop|.
        work: loop / scan -> operator applications.
        depth: loop / scan -> levels.
    """

    a: np.ndarray
    b: np.ndarray
    levels_a: np.ndarray
    levels_b: np.ndarray
    loop: np.ndarray
    max_diff: float
    work: dict[str, int]
    depth: dict[str, int]


def scan_tree(T: int, seed: int) -> ScanTree:
    """Scan T random steps (a uniform in (0.5, 1), b standard normal) and run the loop on them."""
    rng = np.random.default_rng(seed)
    a, b = np.round(rng.uniform(0.5, 1.0, T), 2), np.round(rng.normal(size=T), 2)  # short numbers to draw
    res, ref = hillis_steele(a, b), sequential(a, b)
    return ScanTree(a, b, np.array(res.levels_a), np.array(res.levels_b), ref.h, float(np.abs(res.h - ref.h).max()),
                    {"loop": ref.work, "scan": res.work}, {"loop": ref.depth, "scan": res.depth})


@dataclass
class ScanCosts:
    """Work, depth and measured time of the loop and the two scans, by T.

    Attributes:
        T: (K,) sequence lengths.
        work: loop / hillis_steele / blelloch -> (K,) operator applications.
        depth: loop / hillis_steele / blelloch -> (K,) levels.
        seconds: loop / hillis_steele / blelloch -> (K,) best of `repeats` wall-clock runs.
    """

    T: np.ndarray
    work: dict[str, np.ndarray]
    depth: dict[str, np.ndarray]
    seconds: dict[str, np.ndarray]


def scan_costs(powers: range = range(10, 17), units: int = 1, repeats: int = 3, seed: int = 0) -> ScanCosts:
    """Count and time loop vs scans for T = 2^p (a in (0.9, 1), `units` units side by side)."""
    Ts = np.array([2 ** p for p in powers])
    c = [costs(int(T)) for T in Ts]
    names = ("loop", "hillis_steele", "blelloch")
    run = {"loop": lambda a, b: run_diagonal(a, b, np.zeros(a.shape[1:])), "hillis_steele": hillis_steele,
           "blelloch": blelloch}
    rng = np.random.default_rng(seed)
    secs = {n: np.empty(len(Ts)) for n in names}
    for k, T in enumerate(Ts):
        a, b = rng.uniform(0.9, 1.0, (T, units)), rng.normal(size=(T, units))
        for n in names:
            best = np.inf
            for _ in range(repeats):
                t0 = time.perf_counter()
                run[n](a, b)
                best = min(best, time.perf_counter() - t0)
            secs[n][k] = best
    return ScanCosts(Ts, {n: np.array([x[n][0] for x in c]) for n in names},
                     {n: np.array([x[n][1] for x in c]) for n in names}, secs)


# ---- (e) gradients through time ---------------------------------------------------------------------------------

NEW_CELLS = ("linear", "mingru", "selective")  # beside the cells the gradients page compares


def diagonal_log10_norms(step_jacobians: np.ndarray) -> np.ndarray:
    """log10 ||dh_T/dh_{T-k}||_2 for k = 0..T when every step's Jacobian is diagonal: the product is diagonal, its
    norm the largest |product| over units, summed in logs so it never under- or overflows."""
    diag = np.einsum("tii->ti", step_jacobians)
    with np.errstate(divide="ignore"):
        logs = np.log10(np.abs(diag[::-1]))  # (T, n), last step first
    return np.concatenate([[0.0], np.cumsum(logs, axis=0).max(axis=1)])


def gradient_curves(H: int, T: int, seed: int, w_scale: float = 0.9, forget_bias: float = 1.0) -> dict[str, np.ndarray]:
    """log10 ||dh_T/dh_{T-k}|| for k = 0..T: the gradients page's vanilla RNN, LSTM and GRU (its weights, inputs and
    functions) and, on the same inputs, the linear, minGRU and selective cells."""
    cmp = grad_lesson.compare(H, T, w_scale, forget_bias, 1.0, seed)
    out = {c: report.log10_spectral for c, report in cmp.reports.items()}
    rng = np.random.default_rng(seed)
    x = 1.0 * rng.normal(size=(T, grad_lesson.INPUT_SIZE))  # the inputs compare() drew from the same seed
    d = x.shape[1]
    for name in NEW_CELLS:
        cell = get_cell(name)
        p = cell.init(d, H, np.random.default_rng(seed))
        out[name] = diagonal_log10_norms(cell.step_jacobians(p, cell.forward(p, x)))
    return out
