"""Explosion vs clipping, trained live: a vanilla character RNN on the first 400 characters of the shipped excerpt,
plain SGD, run twice from the same initial weights on the same batches, once unclipped and once with the whole
gradient clipped by norm (as torch.nn.utils.clip_grad_norm_ does).

The loss is summed over each 25-character window and averaged over the batch, as in Karpathy's min-char-rnn (which the
notes point to); the chart shows it per character. Backpropagation through time is written here for several models
at once (`_batched_loss_and_grads`: a drag trains a set of notches together), and checked against torch.autograd in
tests/test_clipping.py. The presets, the words and the per-server cache of both runs are the app's
(ui/lessons/clipping.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz import resources
from rnnviz.nn.cells import init_weights

EXCERPT = resources.path("shakespeare_excerpt.txt")
TEXT_CHARS = 400  # the training text: the excerpt's first 400 characters
HIDDEN = 32  # hidden units
WINDOW = 25  # characters per training window (min-char-rnn's seq_length)
BATCH = 8  # windows per SGD step, drawn at random offsets (the same ones for both runs)


@dataclass(frozen=True)
class Settings:
    """The settings both runs of the experiment share (the unclipped run ignores `clip`).

    Attributes:
        radius: the spectral radius W_hh starts at.
        lr: the SGD learning rate.
        clip: the clipped run's threshold on ||g||.
        steps: SGD steps per run.
        seed: seeds the initial weights and the batches' offsets.
    """

    radius: float
    lr: float
    clip: float
    steps: int = 200
    seed: int = 0


def corpus(n: int = TEXT_CHARS) -> tuple[list[str], np.ndarray]:
    """The vocabulary (sorted) and the character ids of the excerpt's first n characters."""
    text = EXCERPT.read_text(encoding="utf-8")[:n]
    vocab = sorted(set(text))
    return vocab, np.array([vocab.index(c) for c in text])


def init_params(vocab_size: int, radius: float, seed: int, hidden_size: int = HIDDEN) -> dict[str, np.ndarray]:
    """PyTorch's default uniform(-1/sqrt(H), 1/sqrt(H)) for nn.RNN and nn.Linear, W_hh rescaled to spectral radius
    `radius`. Keys: W_ih (H, V), W_hh, b_ih, b_hh, W_y (V, H), b_y."""
    p = init_weights("rnn", vocab_size, hidden_size, seed=seed, radius=radius)
    rng = np.random.default_rng(seed + 10_000)
    k = 1 / math.sqrt(hidden_size)
    p["W_y"], p["b_y"] = rng.uniform(-k, k, (vocab_size, hidden_size)), rng.uniform(-k, k, vocab_size)
    return p


def batches(ids: np.ndarray, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and next-character targets for every step: (steps, BATCH, WINDOW) each, at seeded random offsets."""
    starts = np.random.default_rng(seed + 1).integers(0, len(ids) - WINDOW, size=(steps, BATCH))
    idx = starts[..., None] + np.arange(WINDOW)  # (steps, B, W)
    return ids[idx], ids[idx + 1]


def window_loss_and_grads(p: dict[str, np.ndarray], x: np.ndarray,
                          y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """Loss per character, and the gradient of the loss summed over each window and averaged over the batch (the
    training's own code, `_batched_loss_and_grads`, for one model)."""
    loss, g = _batched_loss_and_grads({k: v[None] for k, v in p.items()}, x, y)
    return float(loss[0]), {k: v[0] for k, v in g.items()}


def log10_norm(g: dict[str, np.ndarray]) -> float:
    """log10 of the norm of all gradient arrays together, without overflowing on huge entries (`_log10_norms`)."""
    return float(_log10_norms({k: v[None] for k, v in g.items()})[0])


def _batched_loss_and_grads(p: dict[str, np.ndarray], x: np.ndarray,
                             y: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """`window_loss_and_grads` for P models at once on the same batch: p's arrays stacked on a first axis (P, ...);
    the loss per character of each model (P,) and the gradients (P, ...).

    Written by hand, not with rnnviz.lessons.hello.loss_and_grads (one model): a drag of ρ, the rate or the threshold
    trains a run at every notch of a set, and P runs step by step together cost little more than one (the steps are
    a few small array operations each, whose calls, not their sizes, take the time: nine runs in 2.3 times one's).
    Every operation works on each model's slice alone (stacked matmuls, reductions along one model's own axes), so a
    model's numbers do not depend on which others share its batch: `sgd` trains the page's own run (P = 1) by the
    same code as a drag's frames, to the bit
    (tests/test_clipping.py)."""
    P, H, V = p["W_hh"].shape[0], p["W_hh"].shape[1], p["W_y"].shape[1]
    B, L = x.shape
    hs = np.zeros((L + 1, P, B, H))
    probs = np.zeros((L, P, B, V))
    W_hhT, W_yT = p["W_hh"].transpose(0, 2, 1), p["W_y"].transpose(0, 2, 1)
    b_h = (p["b_ih"] + p["b_hh"])[:, None, :]
    for t in range(L):
        hs[t + 1] = np.tanh(p["W_ih"][:, :, x[:, t]].transpose(0, 2, 1) + b_h + hs[t] @ W_hhT)  # (P, B, H)
        z = hs[t + 1] @ W_yT + p["b_y"][:, None, :]
        e = np.exp(z - z.max(axis=2, keepdims=True))
        probs[t] = e / e.sum(axis=2, keepdims=True)
    n = B * L
    rows, cols = np.arange(B), y.T  # (L, B) targets
    # (P, L, B): each target's probability, laid out model by model (as fancy indexing leaves it, the models' axis is
    # the innermost, and a model's sum would run in another order with another P)
    picked = np.ascontiguousarray(probs.transpose(1, 0, 2, 3)[:, np.arange(L)[:, None], rows[None, :], cols])
    loss = -np.log(picked + 1e-300).reshape(P, -1)
    g = {k: np.zeros_like(v) for k, v in p.items()}
    dh_next = np.zeros((P, B, H))
    onehot = np.eye(V)[x]  # (B, L, V): the inputs' rows of W_ih^T
    for t in reversed(range(L)):
        ds = probs[t].copy()
        ds[:, rows, cols[t]] -= 1
        ds *= WINDOW / n  # summed over each window, averaged over the batch
        g["W_y"] += ds.transpose(0, 2, 1) @ hs[t + 1]
        g["b_y"] += ds.sum(axis=1)
        dz = (ds @ p["W_y"] + dh_next) * (1 - hs[t + 1] ** 2)  # through tanh
        g["W_ih"] += dz.transpose(0, 2, 1) @ onehot[:, t]
        g["W_hh"] += dz.transpose(0, 2, 1) @ hs[t]
        g["b_ih"] += dz.sum(axis=1)
        dh_next = dz @ p["W_hh"]
    g["b_hh"] = g["b_ih"].copy()
    return loss.sum(axis=1) / n, g


def _log10_norms(g: dict[str, np.ndarray]) -> np.ndarray:
    """`log10_norm` of each model's gradient (the arrays' first axis), each model's reductions over its own rows."""
    P = len(g["W_hh"])
    rows = [np.ascontiguousarray(v).reshape(P, -1) for v in g.values()]
    m = np.max([np.abs(r).max(axis=1) for r in rows], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = sum(((r / m[:, None]) ** 2).sum(axis=1) for r in rows)
        out = np.log10(m) + 0.5 * np.log10(ss)
    out[~np.isfinite(m)] = np.inf
    out[m == 0] = -np.inf
    return out


def sgd_many(p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, lr: np.ndarray, clip: np.ndarray,
             progress: Callable[[int], None] | None = None) -> list[dict[str, object]]:
    """Plain SGD for P models at once over the same batches (x, y: (steps, B, W)): p's arrays stacked (P, ...), a rate
    and a threshold each (lr, clip: (P,); a threshold of inf: no clipping). Each model's run as `sgd` returns it; a
    model whose weights leave float range stops there, the others go on. progress(steps done) every ten steps."""
    p = {k: v.copy() for k, v in p.items()}
    P, steps = len(lr), len(x)
    loss, lg = np.full((P, steps), np.nan), np.full((P, steps), np.nan)
    overflow: list[int | None] = [None] * P
    alive = np.ones(P, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        for s in range(steps):
            ls, g = _batched_loss_and_grads(p, x[s], y[s])
            norms = _log10_norms(g)
            for m in np.flatnonzero(alive):
                if not (np.isfinite(ls[m]) and np.isfinite(norms[m])):
                    alive[m], overflow[m] = False, s + 1
                else:
                    loss[m, s], lg[m, s] = ls[m], norms[m]
            if not alive.any():
                break
            scale = np.where(np.isinf(clip), 1.0, np.minimum(1.0, clip / (10.0 ** lg[:, s] + 1e-6)))
            step = np.where(alive, lr * scale, 0.0)
            for k in p:
                p[k] -= step.reshape((P,) + (1,) * (p[k].ndim - 1)) * g[k]
            if progress and (s + 1) % 10 == 0:
                progress(s + 1)
    return [{"loss": loss[m], "log10_norm": lg[m], "overflow": overflow[m]} for m in range(P)]


def sgd(p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, lr: float, clip: float | None) -> dict[str, object]:
    """Plain SGD over the batches (x, y: (steps, B, W)); clip=None for no clipping. Returns the loss per character and
    log10 ||g|| (before clipping) per step, and the step at which the weights left float range (or None)."""
    return sgd_many({k: v[None] for k, v in p.items()}, x, y, np.array([lr]),
                    np.array([np.inf if clip is None else clip]))[0]


def runs(settings: list[Settings], clipped: bool,
         progress: Callable[[int], None] | None = None) -> list[dict[str, object]]:
    """One of the two runs (`sgd`) for each of `settings`, which differ in radius, rate or threshold alone (the same
    steps and seed: the same batches), trained together: the clipped ones at their thresholds, or the unclipped ones,
    which ignore them."""
    s0 = settings[0]
    assert all((s.steps, s.seed) == (s0.steps, s0.seed) for s in settings), "one set of batches"
    vocab, ids = corpus()
    inits = {r: init_params(len(vocab), r, s0.seed) for r in {s.radius for s in settings}}
    p = {k: np.stack([inits[s.radius][k] for s in settings]) for k in inits[s0.radius]}
    x, y = batches(ids, s0.steps, s0.seed)
    return sgd_many(p, x, y, np.array([s.lr for s in settings], dtype=float),
                    np.array([s.clip if clipped else np.inf for s in settings], dtype=float), progress)


def one_run(s: Settings, clipped: bool, progress: Callable[[int], None] | None = None) -> dict[str, object]:
    """One of the two runs (`sgd`): the clipped one at s.clip, or the unclipped one, which ignores it."""
    return runs([s], clipped, progress)[0]


def train_pair(s: Settings, progress: Callable[[float], None] | None = None,
               unclipped: dict | None = None) -> dict[str, dict]:
    """Both runs from the same weights and batches: {'unclipped': ..., 'clipped': ...}; progress(fraction) as they
    go. `unclipped`: that run for the same radius, rate, steps and seed (it ignores the threshold), already at hand:
    the clipped run alone is trained, half the work (a drag of the threshold)."""
    out = {}
    for n, name in enumerate(("unclipped", "clipped")):
        tick = (lambda step, n=n: progress((n * s.steps + step) / (2 * s.steps))) if progress else None
        out[name] = unclipped if name == "unclipped" and unclipped is not None else one_run(s, n == 1, tick)
    return out


def summary(runs: dict[str, dict], clip: float | None = None) -> dict[str, dict]:
    """Per run: the first loss, how many steps sit above twice it, the largest ||g|| (log10), the mean loss of the last
    20 steps, whether the weights overflowed, and (given the threshold `clip`) how many steps ||g|| was above it."""
    out = {}
    for name, r in runs.items():
        loss, lg = r["loss"], r["log10_norm"]
        start = float(loss[0])
        ok = np.isfinite(loss)
        over = int(np.sum(~(lg <= math.log10(clip)))) if clip is not None else 0  # NaN (overflow) counts as over
        out[name] = {"start": start, "above_twice": int((loss[ok] > 2 * start).sum()) + (len(loss) - int(ok.sum())),
                     "max_log10_norm": float(np.nanmax(lg)), "end": float(np.nanmean(loss[ok][-20:])),
                     "overflow": r["overflow"], "steps": len(loss), "over_clip": over}
    return out
