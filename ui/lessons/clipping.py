"""The gradients page's training comparison, explosion vs clipping trained live: its presets, its settings (declared
with the page's other controls, ui.lessons.gradients.CONTROLS), the per-server cache of both runs, and the words that
say what the runs did (its numbers: rnnviz/lessons/clipping.py)."""
from __future__ import annotations

from typing import Callable

from rnnviz.lessons import clipping
from rnnviz.lessons.cache import SharedCache
from rnnviz.text import format_norm
from ui.lessons.gradients import CONTROLS, presets

CLIP_PRESETS = {  # the training comparison's (rho: starting spectral radius, lr: rate); tests check each holds
    "explode": {"label": "Explodes", "sets": {"rho": 2.0, "lr": 0.3},
                "help": "Wₕₕ at spectral radius 2 and rate 0.3: the unclipped run diverges, the clipped one learns."},
    "calm": {"label": "Calm", "sets": {"rho": 1.0, "lr": 0.02},
             "help": "Wₕₕ at spectral radius 1 and rate 0.02: neither run diverges."},
}


def training_settings() -> clipping.Settings:
    """The training comparison's presets and settings."""
    presets(CLIP_PRESETS, "t")
    return clipping.Settings(*map(CONTROLS.widget, ("rho", "lr", "tclip")), seed=int(CONTROLS.widget("tseed")))


RUNS = SharedCache(2 ** 18)  # Settings -> both runs: 6.4 kB a setting at 200 steps, so about 40 settings


def cached(s: clipping.Settings) -> bool:
    """Whether both runs for these settings are already at hand."""
    return s in RUNS


def train_pair(s: clipping.Settings, progress: Callable[[float], None] | None = None) -> dict[str, dict]:
    """`clipping.train_pair`, kept per server: a revisited or shared setting costs nothing; its arrays are shared,
    so read-only."""
    return RUNS.get_arrays(s, lambda: clipping.train_pair(s, progress),
                           lambda runs: [r[k] for r in runs.values() for k in ("loss", "log10_norm")])


CLIP_ABOUT = (
    f"A vanilla RNN ({clipping.HIDDEN} units, untrained) learns the first {clipping.TEXT_CHARS} characters of the "
    f"Shakespeare excerpt by plain SGD, twice: from the same initial weights, on the same batches ({clipping.BATCH} "
    f"windows of {clipping.WINDOW} characters per step), once unclipped and once with the whole gradient $g$ clipped "
    "by norm. The loss is summed over each window, as in Karpathy's min-char-rnn, and drawn per character. With "
    "$W_{hh}$ started at spectral radius 2 and a large rate the unclipped run blows up; the clipped one learns from "
    "the same start.")


def done_text(seen: bool, seconds: float) -> str:
    """The progress bar's last words."""
    if seen:
        return "Both runs: this setting was trained before, results kept."
    return f"Both runs trained in {seconds:.1f} s."


def verdict(summ: dict[str, dict], clip: float | None = None) -> str:
    """What the training chart shows, in one paragraph of numbers; given the threshold `clip`, how often it cut the
    clipped run's step and, when that run ends higher, that this is why it learns slower."""
    parts = []
    for name, label in (("unclipped", "Unclipped"), ("clipped", "Clipped")):
        r = summ[name]
        where = f"its weights overflowed at step {r['overflow']}; " if r["overflow"] else ""
        diverged = r["above_twice"] >= r["steps"] // 4 or r["overflow"]
        state = ("diverged" if diverged else "learned" if r["end"] < 0.6 * r["start"] else
                 "learning slowly" if r["end"] < 0.95 * r["start"] else "did not learn")
        parts.append(f"**{label}: {state}.** Loss {r['start']:.2f} at the start, {r['end']:.2f} over the last 20 "
                     f"steps; {where}{r['above_twice']} of {r['steps']} steps above twice the start; largest ‖g‖ "
                     f"{format_norm(r['max_log10_norm'])}.")
    c, u = summ["clipped"], summ["unclipped"]
    if clip is not None and c["over_clip"]:
        parts.append(f"**Why they differ:** the clipped run's ‖g‖ was above the threshold {clip:g} at "
                     f"{c['over_clip']} of {c['steps']} steps ({c['over_clip'] / c['steps']:.0%}); each of those "
                     f"steps was shortened to length {clip:g}, so with the same rate it moved the weights less.")
        if not u["overflow"] and u["above_twice"] < u["steps"] // 4 and c["end"] > u["end"]:
            parts.append("That is why the clipped run learns slower here: when nothing explodes, clipping every "
                         "step only slows learning. A higher threshold cuts only the steps longer than it.")
    return " ".join(parts)
