"""The gradients page's words, controls, presets and per-server caches (its numbers are rnnviz/lessons/gradients.py and
rnnviz/experiments/lag_results.py; the training comparison's words are ui/lessons/clipping.py, the drag frames
ui/lessons/gradients_frames.py): the words beside the numbers are computed, so they always say what the page shows."""
from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from rnnviz.lessons.cache import SharedCache
from rnnviz.lessons.gradients import (
    Comparison,
    compare,
    comparison_arrays,
    curves,
    factor_inputs,
    slowest,
)
from rnnviz.nn.cells import REGISTRY, get
from rnnviz.nn.gradients import CELL_PATHS, FORGET_PATH, decay_table
from rnnviz.text import fmt, format_norm, sup
from ui.controls import Control, Controls
from ui.urlstate import set_state

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


CLIP_MIN = 0.1  # the clipping view's lowest threshold
CONTROLS = Controls(  # two clip thresholds, each named for what it clips
    P,
    Control("H", "Hidden size H", 32, lo=1, hi=64, url="H", scrub=True, help="Units per state."),
    Control("T", "Sequence length T", 50, lo=2, hi=200, url="T", scrub=True,
            help="How many steps the gradient travels back."),
    Control("scale", "Wₕₕ scale", 0.9, lo=0.0, hi=3.0, step=0.05, url="w", scrub=True,
            help="Each block's σₘₐₓ or ρ (above)."),
    Control("by", "Scale Wₕₕ so that", "sigma", kind="radio", options=tuple(SCALE_BY), url="by",
            help="σₘₐₓ: the largest singular value (the most one step can stretch). ρ: the spectral radius (largest "
                 "|eigenvalue|). Every recurrent block is rescaled.",
            widget_kw={"horizontal": True, "format_func": SCALE_BY.get}),
    Control("bf", "LSTM forget-gate bias", 1.0, lo=-5.0, hi=10.0, step=0.5, url="bf", scrub=True,
            help="Its bias $b_f$: σ($b_f$) is about the fraction of the cell state each step keeps."),
    Control("bz", "GRU update-gate bias", 0.0, lo=-5.0, hi=10.0, step=0.5, url="bz", scrub=True,
            help="Its bias $b_z$: σ($b_z$) is about the fraction of h the GRU copies from one step to the next."),
    Control("xs", "Input scale", 0.5, lo=0.0, hi=5.0, step=0.1, url="xs", scrub=True,
            help="Inputs are random normal times this. Larger inputs push tanh into saturation."),
    Control("seed", "Seed", 0, kind="number", lo=0, hi=10_000, url="seed",
            help="Seeds both the weights and the inputs."),
    Control("clip", "Clip threshold on ∂L/∂h₀ (clipping view)", 1.0, lo=CLIP_MIN, hi=10.0, step=0.1, url="clip",
            scrub=True,
            help="A gradient ∂L/∂h₀ longer than this is rescaled to this length. The training below has its own "
                 "threshold, on the whole gradient g of its weights."),
    Control("rho", "Spectral radius ρ of Wₕₕ at the start", 2.0, lo=0.5, hi=3.0, step=0.1, url="trho", scrub=True),
    Control("lr", "Learning rate", 0.3, kind="select", options=RATES, url="lr", parse=parse_rate, scrub=True,
            help="Plain SGD: w ← w − rate · g."),
    Control("tseed", "Seed", 0, kind="number", lo=0, hi=1000, url="tseed", help="Initial weights and batches."),
    Control("tclip", "Clip threshold on g (clipped training run)", 2.0, lo=0.1, hi=20.0, step=0.1, url="tclip",
            scrub=True,
            help="The clipped run rescales g to this length whenever ‖g‖ is longer (a separate setting from the "
                 "clipping view's threshold on ∂L/∂h₀)."),
    Control("view", "Show", "decay", kind="segmented", options=tuple(VIEWS), url="view",
            help="One chart at a time, so a move redraws only what you look at.",
            widget_kw={"format_func": VIEWS.get}),
)
PARAMS = CONTROLS.params
DEFAULTS = CONTROLS.defaults()


@dataclasses.dataclass(frozen=True)
class Explorer:
    """The explorer's settings as its widgets hold them, in `compare`'s order: what its charts are drawn from."""

    H: int
    T: int
    scale: float  # the W_hh scale: sigma_max or rho, as `by` says
    bf: float
    xs: float
    seed: int
    by: str
    bz: float


PRESETS = {  # button label, tooltip, and the settings it makes; tests check each does what it says for every seed
    "vanish": {"label": "Vanish: σₘₐₓ = 0.9", "sets": {"by": "sigma", "scale": 0.9, "xs": DEFAULTS["xs"]},
               "help": "Largest singular value 0.9 < 1: with tanh′ ≤ 1 every step shrinks the gradient, for any "
                       "seed."},
    "explode": {"label": "Explode: ρ = 1.5, x = 0", "sets": {"by": "rho", "scale": 1.5, "xs": 0.0},
                "help": "Spectral radius 1.5 and the input switched off (x = 0): every state stays at 0 (tanh′ = 1), "
                        "so the product is Wₕₕᵏ, at least 1.5ᵏ long, for any seed."},
}
PATH_WORDS = {  # a cell state's curve (its key's ending): metric label and what it measures, after the cell's name
    FORGET_PATH: ("c, f path", "cell state along the forget gates alone: the product f_T ⊙ … ⊙ f_(t+1) of its "
                  "best-kept unit (the spectral norm of that diagonal matrix).", 1.1),
    CELL_PATHS: ("c, all paths", "cell state, all paths: the spectral norm of ∂c_T/∂c_t, the forget-gate path plus "
                 "every detour through h, W_hh and the gates.", 1.2),
}


def curve_words(key: str) -> tuple[str, str, float]:
    """A curve's metric label, what it measures and its metric's column width, from its cell's names."""
    for end, (label, what, width) in PATH_WORDS.items():
        if key.endswith(end) and key[:-len(end)] in REGISTRY:
            name = get(key[:-len(end)]).presentation.label
            return f"{name} {label}", f"{name} {what}", width
    look = get(key).presentation
    return f"{look.brief} h", f"{look.heading}: the spectral norm of ∂h_T/∂h_t.", 1.0
REFERENCES = {"vanilla": "vanilla (0.5·0.9)<sup>k</sup>", "lstm": "LSTM 0.9<sup>k</sup>", "lstm_f1": "LSTM 1"}


# ---- the controls ---------------------------------------------------------------------------------------------------

def presets(table: dict, prefix: str, cols: list | None = None) -> None:
    """One button per preset (in `cols`, or columns of their own); each sets the widget states it names."""
    for col, (name, pr) in zip(cols or st.columns(len(table)), table.items()):
        col.button(pr["label"], key=f"{P}.{prefix}{name}", width="stretch", help=pr["help"], on_click=set_state,
                   args=({f"{P}.{k}": v for k, v in pr["sets"].items()},))


def view_control(col) -> str:
    """Which chart the explorer shows beside its controls."""
    return CONTROLS.widget("view", col) or "decay"


# ---- per-server caches ----------------------------------------------------------------------------------------------

COMPARISONS = SharedCache(64 * 2 ** 20)  # ~2 MB at the page's defaults, 27 MB at H = 64, T = 200


def compared(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
             by: str = "sigma", update_bias: float = 0.0) -> Comparison:
    """`compare`, kept per server (the last 64 MB of settings): a setting revisited, by a slider moved back or a
    shared link, costs nothing. Its arrays are read-only: every visitor shares them."""
    key = (hidden_size, T, w_scale, forget_bias, input_scale, seed, by, update_bias)
    return COMPARISONS.get_arrays(key, lambda: compare(*key), comparison_arrays)


# the texts that follow a drag (their containers)
SCALE_WORDS, METRIC_WORDS, NUMBERS_WORDS = f"words-{P}-scale", f"words-{P}-metrics", f"words-{P}-numbers"


def metric_pieces(series: dict[str, np.ndarray], T: int) -> list[str]:
    """The metrics beside the chart as they read (each label, then its value): what follows a drag of the chart."""
    return [p for key in series for p in (curve_words(key)[0], format_norm(series[key][T], narrow=True))]


def numbers_note(T: int) -> str:
    """What the numbers above measure, under the chart: it follows a drag of T."""
    return f"The numbers: k = T = {T} steps back; spectral norms, with L as defined below. " + SCALE_NOTE


FACTOR_WORDS = f"words-{P}-factors"  # the factors view's notes under its chart
PATHS_WORDS = f"words-{P}-paths"  # why the two LSTM c numbers differ, where the page says so: it follows a drag


CLIP_WORDS = f"words-{P}-clip"  # the clipping sentence, which follows a drag of the threshold


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
    return ", ".join(f"{curve_words(k)[0]} ends at {format_norm(v[-1])}" for k, v in series.items())


def paths_note(series: dict[str, np.ndarray], T: int) -> str | None:
    """Why 'LSTM c, all paths' and 'LSTM c, f path' differ, with both numbers: only where it looks like a
    contradiction (the f path keeps at least half, all paths differ from it by more than half), so the note costs
    the projector's first screen a line only then."""
    cell = next((k[:-len(FORGET_PATH)] for k in series if k.endswith(FORGET_PATH)), None)  # the LSTM
    if cell is None:
        return None
    f, c = series[cell + FORGET_PATH][T], series[cell + CELL_PATHS][T]
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
    F = factor_inputs(cmp)  # each cell's own: the vanilla RNN's tanh', the LSTM's forget and the GRU's update gates
    tp, f, z = F["tanh_prime"], F["forget"], F["update"]
    lstm = next(c for c in R if "forget" in R[c].factors)
    kept, every = k[lstm + FORGET_PATH][T], k[lstm + CELL_PATHS][T]  # its c along the forget gates; by all paths
    gru_last = "update" in R[slowest(cmp)].factors
    return [
        f"**Vanilla:** each step multiplies by diag(tanh′(zₛ))·Wₕₕ. Here tanh′ averages **{fmt(tp.mean())}** and "
        f"**{(tp < 0.1).mean():.0%}** of unit-steps are saturated (tanh′ < 0.1): those pass almost nothing back.",
        f"**LSTM:** along the cell state alone each step multiplies by its forget gates f, here **{fmt(f.mean())}** "
        f"on average; over {T} steps the best-kept unit keeps **{format_norm(kept)}** (the forget-gate "
        f"path). All paths into c together give **{format_norm(every)}**: they add detours that leave c "
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
