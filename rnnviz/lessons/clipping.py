"""Explosion vs clipping, trained live: a vanilla character RNN on the first 400 characters of the shipped excerpt,
plain SGD, run twice from the same initial weights on the same batches, once unclipped and once with the whole
gradient clipped by norm (as torch.nn.utils.clip_grad_norm_ does).

The loss is summed over each 25-character window and averaged over the batch, as in Karpathy's min-char-rnn (which the
notes point to); the chart shows it per character. Backpropagation is `rnnviz.lessons.hello.loss_and_grads`. The
presets, the words and the per-server cache of both runs are the app's (ui/lessons/clipping.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz import resources
from rnnviz.lessons.hello import loss_and_grads
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
    `radius`. Keys as `loss_and_grads` reads them: W_ih (H, V), W_hh, b_ih, b_hh, W_y (V, H), b_y."""
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
    """Loss per character, and the gradient of the loss summed over each window and averaged over the batch."""
    loss, g = loss_and_grads(p, x, y)  # mean over every target; the window sum is WINDOW times it
    return loss, {k: v * x.shape[1] for k, v in g.items()}


def log10_norm(g: dict[str, np.ndarray]) -> float:
    """log10 of the norm of all gradient arrays together, without overflowing on huge entries."""
    m = max(float(np.abs(a).max()) for a in g.values())
    if not np.isfinite(m):
        return math.inf
    if m == 0:
        return -math.inf
    return math.log10(m) + 0.5 * math.log10(sum(float(((a / m) ** 2).sum()) for a in g.values()))


def sgd(p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, lr: float, clip: float | None,
        progress: Callable[[int], None] | None = None) -> dict[str, object]:
    """Plain SGD over the batches (x, y: (steps, B, W)); clip=None for no clipping. Returns the loss per character and
    log10 ||g|| (before clipping) per step, and the step at which the weights left float range (or None)."""
    p = {k: v.copy() for k, v in p.items()}
    steps = len(x)
    loss, lg = np.full(steps, np.nan), np.full(steps, np.nan)
    overflow = None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        for s in range(steps):
            loss[s], g = window_loss_and_grads(p, x[s], y[s])
            lg[s] = log10_norm(g)
            if not (np.isfinite(loss[s]) and np.isfinite(lg[s])):
                loss[s], lg[s], overflow = np.nan, np.nan, s + 1
                break
            scale = min(1.0, clip / (10 ** lg[s] + 1e-6)) if clip is not None else 1.0
            for k in p:
                p[k] -= lr * scale * g[k]
            if progress and (s + 1) % 10 == 0:
                progress(s + 1)
    return {"loss": loss, "log10_norm": lg, "overflow": overflow}


def one_run(s: Settings, clipped: bool, progress: Callable[[int], None] | None = None) -> dict[str, object]:
    """One of the two runs (`sgd`): the clipped one at s.clip, or the unclipped one, which ignores it."""
    vocab, ids = corpus()
    p0 = init_params(len(vocab), s.radius, s.seed)
    x, y = batches(ids, s.steps, s.seed)
    return sgd(p0, x, y, s.lr, s.clip if clipped else None, progress)


def train_pair(s: Settings, progress: Callable[[float], None] | None = None,
               unclipped: dict | None = None) -> dict[str, dict]:
    """Both runs from the same weights and batches: {'unclipped': ..., 'clipped': ...}; progress(fraction) as they
    go. `unclipped`: that run for the same radius, rate, steps and seed (it ignores the threshold), already at hand:
    the clipped run alone is trained, half the work (a drag of the threshold)."""
    runs = {}
    for n, name in enumerate(("unclipped", "clipped")):
        tick = (lambda step, n=n: progress((n * s.steps + step) / (2 * s.steps))) if progress else None
        runs[name] = unclipped if name == "unclipped" and unclipped is not None else one_run(s, n == 1, tick)
    return runs


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
