"""The gradients page's words, widget keys, link parameters, presets and per-server caches (its numbers are
rnnviz/lessons/gradients.py, rnnviz/lessons/clipping.py and rnnviz/experiments/lag.py): the words beside the numbers are
computed, so they always say what the page shows."""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import streamlit as st

from rnnviz.experiments import lag
from rnnviz.figures.gradients import gradient_decay
from rnnviz.lessons import clipping
from rnnviz.lessons.cache import SharedCache
from rnnviz.lessons.gradients import Comparison, compare, comparison_arrays, curves, slowest
from rnnviz.nn.gradients import decay_table
from rnnviz.text import fmt, format_norm, sup
from ui.live.scrub import Scrub
from ui.urlstate import Param, choice, integer, name_controls, number, set_state

P = "grad"
SCALE_BY = {"sigma": "σₘₐₓ = scale", "rho": "ρ = scale"}  # what the W_hh scale slider sets
VIEWS = {"decay": "Steps back", "factors": "Per-step factors", "clip": "Clipping"}  # the chart beside the controls
RATES = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)  # learning rates on offer in the training comparison


def parse_rate(s: str) -> float:
    """A learning rate from a link: one of RATES."""
    v = float(s)
    if v not in RATES:
        raise ValueError(s)
    return v


PARAMS = [Param(f"{P}.{k}", url, default, parse) for k, url, default, parse in [
    ("H", "H", 32, integer(1, 64)), ("T", "T", 50, integer(2, 200)), ("scale", "w", 0.9, number(0.0, 3.0, 0.05)),
    ("by", "by", "sigma", choice(list(SCALE_BY))), ("bf", "bf", 1.0, number(-5.0, 10.0, 0.5)),
    ("bz", "bz", 0.0, number(-5.0, 10.0, 0.5)), ("xs", "xs", 0.5, number(0.0, 5.0, 0.1)),
    ("seed", "seed", 0, integer(0, 10_000)), ("clip", "clip", 1.0, number(0.1, 10.0, 0.1)),
    ("rho", "trho", 2.0, number(0.5, 3.0, 0.1)), ("lr", "lr", 0.3, parse_rate),
    ("tseed", "tseed", 0, integer(0, 1000)), ("tclip", "tclip", 2.0, number(0.1, 20.0, 0.1)),
    ("view", "view", "decay", choice(VIEWS))]]

name_controls({  # each control's label, for notices about a link (tests check them against the page)
    f"{P}.H": "Hidden size H",
    f"{P}.T": "Sequence length T",
    f"{P}.scale": "Wₕₕ scale",
    f"{P}.by": "Scale Wₕₕ so that",
    f"{P}.bf": "LSTM forget-gate bias",
    f"{P}.bz": "GRU update-gate bias",
    f"{P}.xs": "Input scale",
    f"{P}.seed": "Seed",
    f"{P}.clip": "Clip threshold on ∂L/∂h₀ (clipping view)",
    f"{P}.rho": "Spectral radius ρ of Wₕₕ at the start",
    f"{P}.lr": "Learning rate",
    f"{P}.tseed": "Seed",
    f"{P}.tclip": "Clip threshold on g (clipped training run)",
    f"{P}.view": "Show",
})

DEFAULTS = {p.key.split(".", 1)[1]: p.default for p in PARAMS}

PRESETS = {  # button label, tooltip, and the settings it makes; tests check each does what it says for every seed
    "vanish": {"label": "Vanish: σₘₐₓ = 0.9", "sets": {"by": "sigma", "scale": 0.9, "xs": DEFAULTS["xs"]},
               "help": "Largest singular value 0.9 < 1: with tanh′ ≤ 1 every step shrinks the gradient, for any "
                       "seed."},
    "explode": {"label": "Explode: ρ = 1.5, x = 0", "sets": {"by": "rho", "scale": 1.5, "xs": 0.0},
                "help": "Spectral radius 1.5 and the input switched off (x = 0): every state stays at 0 (tanh′ = 1), "
                        "so the product is Wₕₕᵏ, at least 1.5ᵏ long, for any seed."},
}
CLIP_PRESETS = {  # the training comparison's (rho: starting spectral radius, lr: rate); tests check each holds
    "explode": {"label": "Explodes", "sets": {"rho": 2.0, "lr": 0.3},
                "help": "Wₕₕ at spectral radius 2 and rate 0.3: the unclipped run diverges, the clipped one learns."},
    "calm": {"label": "Calm", "sets": {"rho": 1.0, "lr": 0.02},
             "help": "Wₕₕ at spectral radius 1 and rate 0.02: neither run diverges."},
}
CURVES = {  # series key: (metric label, what it measures)
    "rnn": ("vanilla h", "Vanilla RNN: the spectral norm of ∂h_T/∂h_t."),
    "lstm": ("LSTM h", "LSTM: the spectral norm of ∂h_T/∂h_t."),
    "lstm_f": ("LSTM c, f path", "LSTM cell state along the forget gates alone: the product f_T ⊙ … ⊙ f_(t+1) of "
               "its best-kept unit (the spectral norm of that diagonal matrix)."),
    "lstm_c": ("LSTM c, all paths", "LSTM cell state, all paths: the spectral norm of ∂c_T/∂c_t, the forget-gate "
               "path plus every detour through h, W_hh and the gates."),
    "gru": ("GRU h", "GRU: the spectral norm of ∂h_T/∂h_t."),
}
REFERENCES = {"vanilla": "vanilla (0.5·0.9)<sup>k</sup>", "lstm": "LSTM 0.9<sup>k</sup>", "lstm_f1": "LSTM 1"}


# ---- the controls ---------------------------------------------------------------------------------------------------

def presets(table: dict, prefix: str, cols: list | None = None) -> None:
    """One button per preset (in `cols`, or columns of their own); each sets the widget states it names."""
    for col, (name, pr) in zip(cols or st.columns(len(table)), table.items()):
        col.button(pr["label"], key=f"{P}.{prefix}{name}", width="stretch", help=pr["help"], on_click=set_state,
                   args=({f"{P}.{k}": v for k, v in pr["sets"].items()},))


def view_control(col) -> str:
    """Which chart the explorer shows beside its controls."""
    return col.segmented_control("Show", list(VIEWS), key=f"{P}.view", format_func=VIEWS.get,
                                 help="One chart at a time, so a move redraws only what you look at.") or "decay"


def scale_control(col) -> float:
    return col.slider("Wₕₕ scale", 0.0, 3.0, step=0.05, key=f"{P}.scale", help="Each block's σₘₐₓ or ρ (above).")


CLIP_MIN = 0.1  # the clipping view's lowest threshold
CLIP_LABELS = {"view": "Clip threshold on ∂L/∂h₀ (clipping view)",
               "train": "Clip threshold on g (clipped training run)"}  # two thresholds, each named for what it clips


def clip_control() -> float:
    return st.slider(CLIP_LABELS["view"], CLIP_MIN, 10.0, step=0.1, key=f"{P}.clip",
                     help="A gradient ∂L/∂h₀ longer than this is rescaled to this length. The training below has "
                          "its own threshold, on the whole gradient g of its weights.")


def training_settings() -> clipping.Settings:
    """The training comparison's presets and settings."""
    presets(CLIP_PRESETS, "t")
    return clipping.Settings(
        st.slider("Spectral radius ρ of Wₕₕ at the start", 0.5, 3.0, step=0.1, key=f"{P}.rho"),
        st.select_slider("Learning rate", RATES, key=f"{P}.lr", help="Plain SGD: w ← w − rate · g."),
        st.slider(CLIP_LABELS["train"], 0.1, 20.0, step=0.1, key=f"{P}.tclip",
                  help="The clipped run rescales g to this length whenever ‖g‖ is longer (a separate setting from "
                       "the clipping view's threshold on ∂L/∂h₀)."),
        seed=int(st.number_input("Seed", 0, 1000, key=f"{P}.tseed", help="Initial weights and batches.")))


# ---- per-server caches ----------------------------------------------------------------------------------------------

COMPARISONS = SharedCache(64 * 2 ** 20)  # ~2 MB at the page's defaults, 27 MB at H = 64, T = 200


def compared(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
             by: str = "sigma", update_bias: float = 0.0) -> Comparison:
    """`compare`, kept per server (the last 64 MB of settings): a setting revisited, by a slider moved back or a
    shared link, costs nothing. Its arrays are read-only: every visitor shares them."""
    key = (hidden_size, T, w_scale, forget_bias, input_scale, seed, by, update_bias)
    return COMPARISONS.get_arrays(key, lambda: compare(*key), comparison_arrays)


def scrubs(c: dict, scale: float, cmp: Comparison, fs: float) -> list[Scrub]:
    """The W_hh scale and forget-bias sliders, whose drag the decay chart follows: each frame is that chart (the
    page's own call) with one of them moved, from `compare` uncached (frames are kept, not comparisons). Each
    frame costs a comparison (~0.1 s at the defaults, more with H x T): fewer notches where they cost more."""
    args = (c["H"], c["T"], scale, c["bf"], c["xs"], c["seed"], c["by"], c["bz"])
    span = max(5, min(25, 25 * 1600 // (c["H"] * c["T"])))
    refs = reference_curves(range(c["T"] + 1))

    def at_scale(v: float):
        return gradient_decay(curves(compare(*args[:2], v, *args[3:])), refs, font_scale=fs)

    def at_bias(v: float):  # only the LSTM has a forget gate: the other cells' curves are the page's own
        lstm = compare(*args[:3], v, *args[4:], cells=("lstm",)).reports
        return gradient_decay(curves(dataclasses.replace(cmp, reports={**cmp.reports, **lstm})), refs, font_scale=fs)

    return [Scrub(f"{P}.scale", f"{P}.decay", args[:2] + args[3:] + (fs,), scale, 0.0, 3.0, 0.05, at_scale, span),
            Scrub(f"{P}.bf", f"{P}.decay", args[:3] + args[4:] + (fs,), c["bf"], -5.0, 10.0, 0.5, at_bias, span)]


RUNS = SharedCache(2 ** 18)  # Settings -> both runs: 6.4 kB a setting at 200 steps, so about 40 settings


def cached(s: clipping.Settings) -> bool:
    """Whether both runs for these settings are already at hand."""
    return s in RUNS


def train_pair(s: clipping.Settings, progress: Callable[[float], None] | None = None) -> dict[str, dict]:
    """`clipping.train_pair`, kept per server: a revisited or shared setting costs nothing; its arrays are shared,
    so read-only."""
    return RUNS.get_arrays(s, lambda: clipping.train_pair(s, progress),
                           lambda runs: [r[k] for r in runs.values() for k in ("loss", "log10_norm")])


# ---- the words beside the numbers -----------------------------------------------------------------------------------

INTRO = ("The gradient that reaches a state k steps back is a product of k step Jacobians. Every curve below is "
         "computed from the random, untrained weights set here. **Vanish** sets $W_{hh}$'s largest singular value "
         "$\\sigma_{\\max} = 0.9$: with $\\tanh' \\le 1$ every step shrinks the gradient, so the vanilla curve falls "
         "for every seed. **Explode** sets the spectral radius $\\rho = 1.5$ and switches the input off: every state "
         "stays at 0, where $\\tanh' = 1$, the product is $W_{hh}^k$ and grows at least like $1.5^k$. Then raise the "
         "input scale and watch saturation pull it back down. Raise the LSTM's forget-gate bias $b_f$ and watch its "
         "forget-gate path flatten towards 1.")


LOSS_NOTE = ("What the numbers measure: $L$ is a loss read at the last step $T$, $L = u \\cdot h_T$ with "
             "$u = (1, \\dots, 1)/\\sqrt{H}$, so $\\partial L/\\partial h_T = u$ has length 1 and "
             "$\\partial L/\\partial h_t = u^\\top\\, \\partial h_T/\\partial h_t$. The curves and the numbers above "
             "are spectral norms $\\lVert \\partial h_T/\\partial h_t \\rVert_2$ (for the LSTM's cell, "
             "$\\lVert \\partial c_T/\\partial c_t \\rVert_2$): the most any loss whose gradient at $h_T$ has length "
             "1 can receive at step $t$.")


SCALE_NOTE = ("The weights are random and untrained (the seed picks them): the curves show a cell before it learns. "
              "Wₕₕ is PyTorch's name (weight_hh) for the cell page's Wₕ, the weights that read the state. "
              "σₘₐₓ, the largest singular value, is the most one multiplication can stretch a vector; ρ, the spectral "
              "radius (largest |eigenvalue|), is how fast Wₕₕᵏ grows in the long run, and ρ ≤ σₘₐₓ. As tanh′ ≤ 1, "
              "σₘₐₓ < 1 guarantees vanishing; σₘₐₓ > 1 allows explosion but does not cause it: saturated units "
              "(tanh′ ≈ 0) pull the product down.")

NOTES_CAPTION = ("Idealised: tanh′ ≈ 0.5 on average and a recurrent weight of about 0.9. The dashed grey lines on "
                 "the plot are these formulas; the notes' t is the chart's k, steps back.")
EXPLODE_HELP = ("A one-unit cell with w = 2 held at h = 0, in tanh's linear part where tanh′ = 1: each of the fifty "
                "steps multiplies the gradient by exactly 2.")


def reference_curves(steps: np.ndarray) -> dict[str, np.ndarray]:
    """The notes' idealised decay, named as the chart's legend names it."""
    from rnnviz.lessons.gradients import reference_curves as numbers

    return {REFERENCES[k]: v for k, v in numbers(steps).items()}


def _two_digits(v: float) -> str:
    """Two significant digits as the notes write them: '1', '1.8 × 10⁻²'."""
    m, e = f"{v:.1e}".split("e")
    return f"{float(m):g}" if int(e) == 0 else f"{m} × 10{sup(int(e))}"


def notes_table() -> dict[str, list[str]]:
    """The notes' table of idealised factors, formatted as the notes print it (columns; t first)."""
    tab = decay_table()
    return {"t": [str(int(t)) for t in tab["t"]], "vanilla (0.5×0.9)ᵗ": [_two_digits(v) for v in tab["vanilla"]],
            "LSTM f = 0.9: 0.9ᵗ": [f"{v:.2g}" for v in tab["lstm"]], "LSTM f = 1": [f"{v:g}" for v in tab["lstm_f1"]]}


def scale_note(cmp: Comparison, by: str, scale: float) -> str:
    """Both sizes of the vanilla W_hh and which one the slider set (plain Unicode: this line is redrawn on every
    move, and typeset maths costs more to draw than the chart)."""
    return (f"Vanilla Wₕₕ: σₘₐₓ = **{fmt(cmp.sigma_max)}**, ρ = **{fmt(cmp.rho)}** "
            f"(the slider set {'σₘₐₓ' if by == 'sigma' else 'ρ'} = {scale:g}).")


def ends(series: dict[str, np.ndarray]) -> str:
    """Where each curve ends, in words (for the chart's text alternative)."""
    return ", ".join(f"{CURVES[k][0]} ends at {format_norm(v[-1])}" for k, v in series.items())


def paths_note(series: dict[str, np.ndarray], T: int) -> str | None:
    """Why 'LSTM c, all paths' and 'LSTM c, f path' differ, with both numbers: only where it looks like a
    contradiction (the f path keeps at least half, all paths differ from it by more than half), so the note costs
    the projector's first screen a line only then."""
    f, c = series["lstm_f"][T], series["lstm_c"][T]
    if abs(c - f) < np.log10(1.5) or f < np.log10(0.5):
        return None
    more = c > f
    return (f"**Why the two LSTM c numbers differ:** the f path, {format_norm(f)}, is the forget gates' product alone: "
            f"what c keeps of itself. All paths, {format_norm(c)}, adds every detour from c through h = o ⊙ tanh(c), "
            "Wₕₕ and the gates back into c, products of Wₕₕ like the vanilla RNN's. "
            + (f"Here they end {format_norm(c - f)} times the f path: with f ≈ 1 nothing shrinks the detours, so "
               "they pile up." if more else
               f"Here the detours partly cancel the kept memory: {format_norm(f - c)} times less than the f path."))


def factor_notes(cmp: Comparison, T: int) -> list[str]:
    """One short paragraph per cell: what each step multiplies the gradient by, with this run's numbers."""
    R, k = cmp.reports, curves(cmp)
    tp = R["rnn"].factors["tanh_prime"]
    f, z = R["lstm"].factors["forget"], R["gru"].factors["update"]
    gru_last = slowest(cmp) == "gru"
    return [
        f"**Vanilla:** each step multiplies by diag(tanh′(zₛ))·Wₕₕ. Here tanh′ averages **{fmt(tp.mean())}** and "
        f"**{(tp < 0.1).mean():.0%}** of unit-steps are saturated (tanh′ < 0.1): those pass almost nothing back.",
        f"**LSTM:** along the cell state alone each step multiplies by its forget gates f, here **{fmt(f.mean())}** "
        f"on average; over {T} steps the best-kept unit keeps **{format_norm(k['lstm_f'][T])}** (the forget-gate "
        f"path). All paths into c together give **{format_norm(k['lstm_c'][T])}**: they add detours that leave c "
        "through h = o ⊙ tanh(c), pass Wₕₕ into the gates and the candidate, and come back into c. Those detours are "
        "products of Wₕₕ like the vanilla RNN's, so they can vanish or explode whatever f does; with f ≈ 1 nothing "
        "shrinks them either.",
        f"**GRU:** hₜ = (1 − zₜ) ⊙ nₜ + zₜ ⊙ hₜ₋₁, so its copy path is the update gate z, here **{fmt(z.mean())}** on "
        "average; the path through Wₕₕ is scaled down by (1 − z) and the reset gate. A copy path with z ≈ 0.5 halves "
        "the gradient at every step" + (", which is why the GRU vanishes fastest here" if gru_last else "")
        + ": gates fix vanishing only when they are open. Raise the update-gate bias (as the forget-gate bias for the "
        "LSTM) and the GRU's curve flattens.",
    ]


CLIP_VERDICT = {
    True: "Clipped: the direction is kept and the length is cut to the threshold. Explosion tamed.",
    False: "Not clipped: the norm is under the threshold. Clipping only shortens; it cannot lengthen a vanished "
           "gradient back to life.",
}


def clip_note(demo: dict, metric_log10: float, T: int, lowest: float = CLIP_MIN, where: str = "above") -> str:
    """The clipping sentence, naming how its number differs from the 'vanilla h' metric (`where` the metrics are:
    above the chart, or below it on a projector); when the gradient is shorter than the lowest threshold the slider
    offers, that the threshold can change nothing here, and how much shorter it is."""
    text = (f"The vanilla ∂L/∂h₀, {T} steps back: norm **{demo['before']}** before clipping, **{demo['after']}** "
            f"after. The metric *vanilla h* {where} ({format_norm(metric_log10)}) is the largest singular value of the "
            "whole Jacobian back to h₀, the most any such loss could receive; ‖∂L/∂h₀‖ for our one L is at most that.")
    gap = np.log10(lowest) - demo["log10_before"]
    if gap > 0:
        text += (f" **The threshold has no effect here:** at {demo['before']} the gradient is "
                 f"{format_norm(gap)} times shorter than even the lowest threshold, {lowest:g}, and clipping only "
                 "shortens. Press **Explode** to see a gradient that clipping cuts.")
    return text


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


LAG_ABOUT = (
    "How far back can each cell learn to reach? Each stream is k + 1 random symbols (of {symbols}); after the last "
    "one the cell must name the *first*. There is one thing to keep, so the size of the memory is not the limit: "
    "what is tested is whether the gradient that teaches it reaches k steps back. Every cell was sized to about the "
    "same number of parameters (the hidden size whose count, output layer included, comes closest to the LSTM's "
    "with H = {lstm_hidden}) and trained with Adam in PyTorch: {how}; then scored at exactly lag k on fresh "
    "streams. The LSTM runs twice: with its forget-gate bias at 0 and at the {taught:+g} the gates page teaches. "
    "Bars: the spread over seeds (lowest to highest); lines: their mean.")
LAG_MISSING = "No results shipped yet: `python -m rnnviz.lag` makes models/lag_results.json."
LAG_NAMES = {"rnn": "vanilla RNN", "lstm_f0": "LSTM", "lstm": "LSTM", "gru": "GRU", "mingru": "minGRU", "lru": "LRU"}


def lag_about(results: dict) -> str:
    """What the experiment is, with its task size, budget size and the taught forget-gate bias."""
    return LAG_ABOUT.format(symbols=results["task"]["symbols"], lstm_hidden=results["budget"]["lstm_hidden"],
                            taught=results.get("taught_forget_bias", 1.0), how=results["task"]["curriculum"])


def lag_name(results: dict, row: str) -> str:
    """A row's name in sentences: the LSTMs carry their forget-gate bias."""
    b = results["cells"][row].get("forget_bias")
    return LAG_NAMES[row] + (f" ($b_f$ = {b:+g})" if b else " ($b_f$ = 0)" if b is not None else "")  # markdown


def pct(v: float) -> str:
    return f"{v:.0%}" if v in (0.0, 1.0) or 0.01 <= v <= 0.99 else f"{v:.1%}"


def seed_range(acc: np.ndarray) -> str:
    """A column of per-seed accuracies, as 'a–b' (or one number when they agree to the percent)."""
    lo, hi = pct(float(acc.min())), pct(float(acc.max()))
    return lo if lo == hi else f"{lo}–{hi}"


def lag_summary(results: dict, level: float = 0.9) -> str:
    """The results in words, every number read from the JSON: whether the aim was reached and where, how far each
    row reaches, what the forget-gate bias changed, and the linear recurrences' rows if present."""
    lags, rows = results["lags"], [r for r in LAG_NAMES if r in results["cells"]]
    chance = 1 / results["task"]["symbols"]
    acc = {r: lag.accuracy(results, r) for r in rows}
    aim = lag.aim_lags(results, level) if all(r in acc for r in ("rnn", "lstm", "gru")) else []
    parts = []
    if aim:
        k = aim[-1]
        j, over = lags.index(k), lag.vanilla_over(results, k)
        n = len(results["seeds"])
        parts.append(f"**Gates win at lag {', '.join(map(str, aim))}.** At lag {k} the {lag_name(results, 'lstm')} "
                     f"scored {seed_range(acc['lstm'][:, j])} and the GRU {seed_range(acc['gru'][:, j])} over the "
                     f"seeds, every seed at {level:.0%} or more, while the vanilla RNN's mean stayed under twice "
                     f"chance ({pct(2 * chance)}): {pct(float(acc['rnn'][:, j].mean()))}, its seeds "
                     f"{seed_range(acc['rnn'][:, j])}" + (f"; {over} of its {n} seeds reached {pct(2 * chance)} or "
                                                          "more, so it learns a little" if over else "") + ".")
    elif all(r in acc for r in ("rnn", "lstm", "gru")):
        j = len(lags) - 1
        parts.append(f"**The aim was not reached at this budget** (the LSTM and the GRU at {level:.0%} or more for "
                     f"every seed at a lag where the vanilla RNN stays under twice chance, {pct(2 * chance)}). At the "
                     f"longest lag, {lags[j]}: " + ", ".join(f"{lag_name(results, r)} {seed_range(acc[r][:, j])}"
                                                             for r in ("lstm", "gru", "rnn")) + " over the seeds.")
    reach = []
    for r in rows:
        b = lag.best_lag(results, r, level)
        reach.append(f"{lag_name(results, r)} up to lag {b}" if b else f"{lag_name(results, r)} not even at lag "
                     f"{lags[0]}")
    parts.append(f"A mean accuracy of {level:.0%} or more at every lag from the shortest: " + "; ".join(reach) + ".")
    if "lstm_f0" in acc and "lstm" in acc:
        gap = acc["lstm"].mean(axis=0) - acc["lstm_f0"].mean(axis=0)
        j = int(np.argmax(np.abs(gap)))
        if abs(gap[j]) >= 0.1:
            parts.append(f"The forget-gate bias matters: at lag {lags[j]} the {lag_name(results, 'lstm_f0')} scored "
                         f"{seed_range(acc['lstm_f0'][:, j])} and the {lag_name(results, 'lstm')} "
                         f"{seed_range(acc['lstm'][:, j])}.")
        else:
            parts.append(f"The forget-gate bias changed little here: the two LSTMs' means are within "
                         f"{max(abs(float(gap[j])), 0.005) * 100:.0f} percentage points at every lag.")
    lin = [r for r in ("mingru", "lru") if r in acc]
    if lin:
        parts.append("The linear recurrences, with one linear layer reading them: " + "; ".join(
            f"{lag_name(results, r)} at most {pct(float(acc[r].max()))} at any lag and seed" for r in lin) + ". "
            "Their gates (minGRU) or eigenvalues (LRU) do not see the state, so nothing marks the first symbol as "
            "the one to keep; in the papers they are stacked with nonlinear layers between.")
    return " ".join(parts)


def curve_summary(results: dict, level: float = 0.9) -> str:
    """When each row first reached `level` at the curve's lag, by the seeds' mean (or that it never did)."""
    cur = results["curve"]
    said = []
    for r in [r for r in LAG_NAMES if r in cur["accuracy"]]:
        mean = np.asarray(cur["accuracy"][r], float).mean(axis=0)
        hit = np.flatnonzero(mean >= level)
        said.append(f"{lag_name(results, r)} " + (f"at step {cur['step'][hit[0]]}" if hit.size else
                                                   f"never (best {pct(float(mean.max()))})"))
    stages = f", {cur['stage_steps']} steps per stage" if cur.get("stage_steps") else ""
    return (f"Accuracy at lag {cur['lag']} on {cur['streams']} fresh streams every {cur['step'][0]} steps of "
            f"training{stages}. The seeds' mean first reached {level:.0%}: " + "; ".join(said) + ".")


def provenance(results: dict) -> str:
    """Where the numbers come from: the exact command, time, torch version and seeds."""
    cpu = f", {results['cpu_seconds']:.0f} s of CPU" if "cpu_seconds" in results else ""
    b, where = results["budget"], results.get("device", "cpu")
    per = b.get("steps_per_lag", b["steps"])
    where = ("one CPU thread per process on a shared 2-core machine" if where == "cpu"
             and results.get("threads", 1) == 1 else where)
    parts = results.get("parts", [])
    split = (f" It ran as {len(parts)} processes side by side (by cell, or cell and seed), joined by "
             f"`{results['merge']}`; every cell, seed and lag is seeded on its own, so the one command gives the same "
             "numbers." if parts else "")
    return (f"Made by `{results['command']}` in {results['seconds']:.0f} s{cpu} (torch {results.get('torch', '?')}, "
            f"{where}); seeds {', '.join(map(str, results['seeds']))}; {per} Adam steps of {b['batch']} streams per "
            f"cell, lag and seed.{split} The page only reads models/lag_results.json.")
