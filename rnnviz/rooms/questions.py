"""The numbers behind a class question: each exact answer computed from a lesson page's setup by that page's own
`rnnviz.lessons` functions, the options offered, how an answer is scored (by distance for a number), and how a
round's answers are summarised and binned for the reveal. Words (prompts, option labels) live in ui/questions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.lessons import gates, gradients, recurrences, scalar, states, vector
from rnnviz.nn.cells import get as get_cell
from rnnviz.nn.sampling import sampling_distribution, softmax


@dataclass(frozen=True)
class Answer:
    """A question's truth: a number in [lo, hi] (right within tol), or the index of the right one of `options`.

    Attributes:
        kind: "number" or "choice".
        truth: the exact number; for "choice" the index of the right option.
        lo: the lowest number a phone accepts (numbers only).
        hi: the highest number a phone accepts (numbers only).
        tol: a number within tol of the truth counts as right.
        options: the choices, as identifiers or characters, not labels (choices only).
        facts: numbers the app may quote at the reveal (e.g. the norm itself).
    """

    kind: str  # "number" or "choice"
    truth: float
    lo: float = 0.0
    hi: float = 0.0
    tol: float = 0.0
    options: tuple = ()  # identifiers or characters, not labels
    facts: tuple = ()  # numbers the app may quote at the reveal (e.g. the norm itself)


def _number(truth: float, lo: float, hi: float, tol: float, *facts) -> Answer:
    return Answer("number", float(truth), float(lo), float(hi), float(tol), (), tuple(float(f) for f in facts))


def _choice(options, right: int, *facts) -> Answer:
    return Answer("choice", float(right), options=tuple(options), facts=tuple(float(f) for f in facts))


# -- one unit by hand ---------------------------------------------------------------------------------------------
def scalar_state(x: list[float], w_x: float, w_h: float, b: float, h0: float, t: int) -> Answer:
    """h_t of h_t = tanh(w_x x_t + w_h h_(t-1) + b); right within 0.05, as the page's own predict mode scores it."""
    trace = scalar.run_scalar(np.asarray(x, float), w_x, w_h, b, h0)
    return _number(trace.h[t - 1, 0], -1, 1, 0.05)


def scalar_settle(x: list[float], w_x: float, w_h: float, b: float, h0: float, steps: int = 5000) -> Answer | None:
    """Where the state settles once the input stops: the stable fixed point the silent run from h_T reaches. None
    when it reaches none (a 2-cycle for w_h < -1, or a crawl at |w_h| = 1 that has not arrived)."""
    trace = scalar.run_scalar(np.asarray(x, float), w_x, w_h, b, h0)
    end = scalar.iterate_silence(float(trace.h[-1, 0]), w_h, b, steps)[-1]
    stable = [h for h, ok in scalar.fixed_points(w_h, b) if ok]
    near = min(stable, key=lambda h: abs(h - end), default=None)
    if near is None or abs(near - end) > 1e-3:
        return None
    return _number(near, -1, 1, 0.05)


# -- the cell, step by step ----------------------------------------------------------------------------------------
def vector_largest_unit(x: np.ndarray, H: int, K: int, seed: int, radius: float | None) -> Answer:
    """Which unit of the last state h_T is largest, with the page's generated weights (units 1..H)."""
    w = vector.generate(x.shape[1], H, K, seed, radius)
    trace = vector.run(vector.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H)))
    h = trace.h[-1]
    return _choice(range(1, H + 1), int(np.argmax(h)), *h)


# -- gradients through time ----------------------------------------------------------------------------------------
def gradient_threshold(H: int, T: int, scale: float, by: str, bf: float, bz: float, xs: float, seed: int,
                       cell: str = "rnn", threshold: float = 1e-3) -> Answer:
    """Is ||dh_T/dh_0|| of `cell` above or below `threshold`? options ("above", "below"); the log10 norm in facts."""
    cmp = gradients.compare(H, T, scale, bf, xs, seed, by, bz)
    log10 = float(cmp.reports[cell].log10_spectral[T])
    return _choice(("above", "below"), 0 if log10 > np.log10(threshold) else 1, log10)


# -- gates ---------------------------------------------------------------------------------------------------------
def gates_memory(H: int, seed: int, radius: float, bf: float, T: int = 50) -> Answer:
    """Which cell's state still depends most on step 1 after T steps: the largest ||dh_T/dh_1|| of a vanilla RNN,
    an LSTM (forget bias bf) and a GRU, each W_hh scaled to spectral radius `radius`, on one random input."""
    cmp = gradients.compare(H, T, radius, bf, 1.0, seed, by="rho")
    cells = tuple(cmp.reports)  # the cells the gradients page compares
    logs = [float(cmp.reports[c].log10_spectral[T - 1]) for c in cells]
    return _choice(cells, int(np.argmax(logs)), *logs)


def gate_value(cell: str, x: np.ndarray, H: int, seed: int, radius: float, bf: float, t: int) -> Answer:
    """The first unit's forget gate f_t (LSTM) or update gate z_t (GRU) at step t, with the page's weights."""
    kind = get_cell(cell)
    w = gates.generate(cell, x.shape[1], H, seed, radius, bf if kind.forget_gate else 0.0)
    values = gates.step_values(cell, gates.run(cell, x, w), t)
    return _number(values[kind.keep_gate][0], 0, 1, 0.05)


# -- using the states ----------------------------------------------------------------------------------------------
def parameter_count(task: str, cell: str, d: int, H: int, V: int, K: int, emb: int, layers: int, bi: bool) -> Answer:
    """The model's parameter count as torch counts it; right within 10 %."""
    total = states.calculate(task, cell, d, H, V, K, emb, layers, bi)["total"]
    return _number(total, 0, 1e12, 0.1 * total)


# -- train "hello" -------------------------------------------------------------------------------------------------
def softmax_first(scores: list[float]) -> Answer:
    """The softmax probability of the first score; right within 0.05."""
    return _number(softmax(np.asarray(scores, float))[0], 0, 1, 0.05)


# -- sample a trained model ----------------------------------------------------------------------------------------
def next_character(lm, prime: str, shown: int = 4) -> Answer:
    """Which character the model finds most likely after `prime`: its `shown` most likely ones, in vocabulary order
    (so the first is not always right); their probabilities in facts."""
    p = lm.run(prime).probs_at(len(prime) - 1)
    top = sorted(np.argsort(-p, kind="stable")[:shown])
    right = top.index(int(np.argmax(p)))
    return _choice([lm.itos[i] for i in top], right, *(p[i] for i in top))


def next_probability(lm, prime: str) -> Answer:
    """The probability of the most likely next character after `prime`; right within 0.05."""
    p = lm.run(prime).probs_at(len(prime) - 1)
    return _number(float(p.max()), 0, 1, 0.05, int(np.argmax(p)))


# -- questions for a lecture's decks: misconceptions from the notes, as options ------------------------------------
def scalar_fate(x: list[float], w_x: float, w_h: float, b: float, h0: float, steps: int = 5000) -> Answer:
    """What h does once the inputs stop: options ("fades", "settles", "cycles", "grows"); "grows" is never right
    (tanh bounds h), the misconception it stands for. The silent run's last value in facts."""
    trace = scalar.run_scalar(np.asarray(x, float), w_x, w_h, b, h0)
    h = scalar.iterate_silence(float(trace.h[-1, 0]), w_h, b, steps)
    if abs(h[-1] - h[-2]) > 1e-3:
        right = 2  # a 2-cycle: w_h < -1 flips the sign every step
    else:
        right = 0 if abs(h[-1]) < 0.05 else 1
    return _choice(("fades", "settles", "cycles", "grows"), right, h[-1])


def cell_parameters(d: int, H: int, T: int) -> Answer:
    """The cell's parameter count H d + H^2 + H among the counts of its misconceptions (times T: weights per step;
    H d + H: no recurrent weights), in increasing order; the count itself in facts."""
    n = H * d + H * H + H
    options = sorted({n, T * n, H * d + H, H * d + H * H})
    return _choice(options, options.index(n), n)


def state_range(x: np.ndarray, H: int, K: int, seed: int, radius: float | None) -> Answer:
    """Which values the entries of h_t can take: options ("tanh", "prob", "any"), always the first (-1, 1); the
    run's smallest and largest entry in facts."""
    w = vector.generate(x.shape[1], H, K, seed, radius)
    trace = vector.run(vector.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H)))
    return _choice(("tanh", "prob", "any"), 0, trace.h.min(), trace.h.max())


def clipping(H: int, T: int, scale: float, by: str, bf: float, bz: float, xs: float, seed: int, clip: float) -> Answer:
    """What clipping at norm `clip` does to the RNN's ||dh_T/dh_0||: options ("as is", "up", "down"); "up" is never
    right (clipping cannot restore a vanished gradient). The log10 norm and the threshold in facts."""
    log10 = gradient_threshold(H, T, scale, by, bf, bz, xs, seed).facts[0]
    return _choice(("as is", "up", "down"), 2 if 10 ** log10 > clip else 0, log10, clip)


def forget_fraction(bf: float, steps: int) -> Answer:
    """What share of c_0 an LSTM's cell keeps after `steps` steps if its forget gate stayed at sigmoid(bf) (inputs
    aside): sigmoid(bf)^steps; right within 0.05."""
    f = 1.0 / (1.0 + np.exp(-bf))
    return _number(f ** steps, 0, 1, 0.05, f)


def linear_steady(a: float, b: float) -> Answer | None:
    """Where h_t = a h_(t-1) + b x_t settles under a constant input x = 1: b / (1 - a); None for |a| >= 1 (it never
    settles). Right within 0.05 or 5 %."""
    if abs(a) >= 1:
        return None
    v = b / (1 - a)
    top = float(max(1.0, np.ceil(abs(v) * 1.5)))
    return _number(v, -top, top, max(0.05, 0.05 * abs(v)))


def parallel_recurrence() -> Answer:
    """Which recurrence a scan computes in parallel over T: options ("linear", "tanh", "both", "neither")."""
    return _choice(("linear", "tanh", "both", "neither"), 0)


def padded_last_state(lengths: list[int]) -> Answer | None:
    """Which state out[:, -1] gives the shortest sequence of a batch padded at the end: options ("real", "padded",
    "mean"), the state after the padding; its length and the padded length in facts. None when no padding."""
    short, T = min(lengths), max(lengths)
    return None if short == T else _choice(("real", "padded", "mean"), 1, short, T)


def output_share(task: str, cell: str, d: int, H: int, V: int, K: int, emb: int, layers: int, bi: bool) -> Answer:
    """The share of the parameters in the output layer; right within 0.05."""
    counts = states.calculate(task, cell, d, H, V, K, emb, layers, bi)
    return _number(counts["output"] / counts["total"], 0, 1, 0.05, counts["output"], counts["total"])


def not_most_likely(scores: list[float], temperature: float = 1.0) -> Answer:
    """The share of samples that are not the most likely token: 1 - max softmax(scores / temperature); right within
    0.05. The most likely token's index in facts."""
    p = sampling_distribution(np.asarray(scores, float), temperature)
    return _number(1 - p.max(), 0, 1, 0.05, int(np.argmax(p)))


def temperature_first(scores: list[float], temperature: float) -> Answer:
    """The first token's probability at this temperature; right within 0.05."""
    return _number(sampling_distribution(np.asarray(scores, float), temperature)[0], 0, 1, 0.05)


def temperature_effect(lm, prime: str, temperature: float) -> Answer:
    """What sampling at `temperature` does to the favourite's probability, against temperature 1: options ("rises",
    "falls", "same"); both probabilities in facts."""
    p = lm.run(prime).probs_at(len(prime) - 1)
    q = p ** (1 / temperature)
    q = q / q.sum()
    before, after = float(p.max()), float(q.max())
    right = 2 if abs(after - before) < 1e-6 else (0 if after > before else 1)
    return _choice(("rises", "falls", "same"), right, before, after)


# -- scoring and the reveal ----------------------------------------------------------------------------------------
# -- recurrence returns ----------------------------------------------------------------------------------------------
def linear_state(x: list[float], a: float, b: float, t: int) -> Answer:
    """h_t of the linear recurrence h_t = a h_(t-1) + b x_t from h_0 = 0 (the page's first view); right within 0.05
    or 5 % of |h_t|, whichever is larger; the answer box spans the run's own range."""
    h = recurrences.linear_run(a, b, x).h[:, 0]
    top = float(max(1.0, np.ceil(np.max(np.abs(h)) * 1.5)))
    return _number(h[t - 1], -top, top, max(0.05, 0.05 * abs(float(h[t - 1]))))


def is_right(kind: str, truth: float, tol: float, answer: float) -> bool:
    return abs(answer - truth) <= tol + 1e-12 if kind == "number" else int(answer) == int(truth)


@dataclass(frozen=True)
class Round:
    """A round's answers, summed up.

    Attributes:
        n: how many answers.
        right: answers right (a number within tol, or the right choice).
        counts: answers per option, or per bin.
        edges: bin edges (numbers only; empty for a choice).
        median_error: numbers: median |answer - truth|; NaN without answers or for a choice.
    """

    n: int
    right: int  # answers right (a number within tol, or the right choice)
    counts: np.ndarray  # per option, or per bin
    edges: np.ndarray  # bin edges (numbers only; empty for a choice)
    median_error: float  # numbers: median |answer - truth|; NaN without answers or for a choice


def summarise(kind: str, truth: float, tol: float, answers: list[float], lo: float = 0.0, hi: float = 1.0,
              options: int = 0, bins: int = 20) -> Round:
    """A round's answers: how many, how many right, counts per option or per bin over [lo, hi]."""
    a = np.asarray(answers, float)
    right = int(sum(is_right(kind, truth, tol, v) for v in a))
    if kind == "choice":
        return Round(len(a), right, np.bincount(a.astype(int), minlength=options)[:options], np.empty(0), float("nan"))
    span = np.concatenate([a, [truth - 2 * tol, truth + 2 * tol]])  # the answers given and the truth, within [lo, hi]
    counts, edges = np.histogram(a, bins=bins, range=(max(lo, span.min()), min(hi, span.max())))
    err = float(np.median(np.abs(a - truth))) if len(a) else float("nan")
    return Round(len(a), right, counts, edges, err)
