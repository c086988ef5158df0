"""The gradients page's training comparison, explosion vs clipping trained live: its presets, its settings (declared
with the page's other controls, ui.lessons.gradients.CONTROLS), the per-server cache of both runs, and the words that
say what the runs did (its numbers: rnnviz/lessons/clipping.py)."""
from __future__ import annotations

from dataclasses import astuple, replace
from typing import Callable

from rnnviz.figures.gradients import training_figure
from rnnviz.lessons import clipping
from rnnviz.lessons.cache import SharedCache
from rnnviz.text import format_norm
from ui.lessons.gradients import CONTROLS, RATES, P, presets
from ui.live.scrub import Scrub

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


# Settings -> both runs: 6.4 kB a setting at 200 steps, so about 650. A drag's frames train the notches of a slider
# (26 radii, 9 rates, 200 thresholds) through it, and a release on one finds its runs here
RUNS = SharedCache(2 ** 22)
FREE = SharedCache(2 ** 21)  # the unclipped run of a radius, rate, steps and seed (it ignores the threshold): 3.2 kB


def cached(s: clipping.Settings) -> bool:
    """Whether both runs for these settings are already at hand."""
    return s in RUNS


def _arrays(run: dict) -> list:
    return [run[k] for k in ("loss", "log10_norm")]


def train_pair(s: clipping.Settings, progress: Callable[[float], None] | None = None) -> dict[str, dict]:
    """`clipping.train_pair`, kept per server: a revisited or shared setting costs nothing, and a new threshold trains
    the clipped run alone (the unclipped one kept, in FREE); its arrays are shared, so read-only."""
    def both() -> dict[str, dict]:
        tick = (lambda step: progress(step / (2 * s.steps))) if progress else None
        free = FREE.get_arrays(replace(s, clip=0.0), lambda: clipping.one_run(s, False, tick), _arrays)
        return clipping.train_pair(s, progress, unclipped=free)
    return RUNS.get_arrays(s, both, _pair_arrays)


def _pair_arrays(runs: dict[str, dict]) -> list:
    return [a for r in runs.values() for a in _arrays(r)]


def train_many(settings: list[clipping.Settings]) -> None:
    """Both runs for each of `settings` that RUNS lacks (a drag's set of notches of one slider: they differ in radius,
    rate or threshold alone), trained together (clipping.runs: nine notches' runs in about twice one's time) and kept
    in RUNS and FREE, where `train_pair` finds them: the same numbers as trained one by one, to the bit."""
    todo = [s for s in dict.fromkeys(settings) if s not in RUNS]
    if not todo:
        return
    free = [k for k in dict.fromkeys(replace(s, clip=0.0) for s in todo) if k not in FREE]
    for k, run in zip(free, clipping.runs(free, False) if free else []):
        FREE.get_arrays(k, lambda run=run: run, _arrays)
    for s, run in zip(todo, clipping.runs(todo, True)):
        unclipped = FREE.get_arrays(replace(s, clip=0.0), lambda s=s: clipping.one_run(s, False), _arrays)
        RUNS.get_arrays(s, lambda run=run, unclipped=unclipped: {"unclipped": unclipped, "clipped": run}, _pair_arrays)


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


TRAIN_WORDS = f"words-{P}-train"  # the verdict under the training chart, which follows a drag of its sliders
# frames a set of each training slider, trained together (`train_many`): a set of nine radii or rates is 18 runs in
# about 1.5 s here (one by one, 4.8 s), which hold the one computation a server runs at a time (a threshold's, the
# clipped runs alone: 0.7 s); the coarse set spans the range, so a first drag's two sets are about 3 s of the
# visitor's 4 s
TRAIN_SPAN = {"rho": 9, "lr": 9, "tclip": 9}
_FIELD = {"rho": "radius", "lr": "lr", "tclip": "clip"}  # each slider's Settings field


def training_scrubs(s: clipping.Settings, fs: float) -> list[Scrub]:
    """The training comparison's ρ, learning rate and threshold, whose drag its chart follows, and the verdict under
    it: each frame the page's own chart and words for both runs at that value (trained in the background, a set's
    notches together, within the visitor's budget, and kept in RUNS: the release finds them). A server's opening
    trains a first drag's sets at the page's defaults (7 s, which leave the other sliders 27.5 MB of frames within
    its 40 s instead of 31), as a class opens the same link, and no more: their far sets took 2.9 MB more. The
    rate's range input holds its position in RATES (CONTROLS["lr"].span). Where the verdict's sentences change in
    number (a run diverges, the threshold starts to cut) it greys until the release."""
    def at(name: str, v: float) -> clipping.Settings:
        return replace(s, **{_FIELD[name]: RATES[round(v)] if name == "lr" else v})

    def item(name: str) -> Scrub:
        def build(v: float):
            sv = at(name, v)
            return training_figure(train_pair(sv), sv.clip, fs)

        def said(v: float) -> dict[str, str]:
            sv = at(name, v)
            return {TRAIN_WORDS: verdict(clipping.summary(train_pair(sv), sv.clip), sv.clip)}
        value = float(RATES.index(s.lr)) if name == "lr" else getattr(s, _FIELD[name])
        setting = ("train", name, astuple(replace(s, **{_FIELD[name]: 0.0})), fs)
        return Scrub(CONTROLS.key(name), f"{P}.train", setting, value, *CONTROLS[name].span, build,
                     TRAIN_SPAN[name], words=said, warm_far=False,
                     prepare=lambda values: train_many([at(name, v) for v in values]))
    return [item(name) for name in TRAIN_SPAN]
