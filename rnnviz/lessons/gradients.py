"""Gradients through time for the page: the three cells run on one input sequence, their Jacobian norms by
steps back, the notes' reference curves, the 2^50 explosion, clipping, and the words that go with them.

Weights are random (untrained) with zero biases, except the two gate biases the page sets: the LSTM's
forget gate b_f and the GRU's update gate b_z. Every W_hh block is rescaled so that either its largest
singular value sigma_max or its spectral radius rho equals the chosen scale.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward, spectral_radius
from rnnviz.nn.gradients import GradientReport, clip_by_norm, decay_table, gru_gradients, lstm_gradients, rnn_gradients

INPUT_SIZE = 4
FLOAT_FLOOR, FLOAT_CEIL = -300.0, 300.0  # log10 limits of float64's range as the page treats it
SCALE_BY = {"sigma": "σₘₐₓ = scale", "rho": "ρ = scale"}  # what the W_hh scale slider sets
PRESETS = {  # button label, tooltip, and the settings it makes; tests check each does what it says for every seed
    "vanish": {"label": "Vanish: σₘₐₓ = 0.9", "sets": {"by": "sigma", "scale": 0.9},
               "help": "Largest singular value 0.9 < 1: with tanh′ ≤ 1 every step shrinks the gradient, for any seed."},
    "explode": {"label": "Explode: ρ = 1.5, x = 0", "sets": {"by": "rho", "scale": 1.5, "xs": 0.0},
                "help": "Spectral radius 1.5 and the input switched off (x = 0): every state stays at 0 (tanh′ = 1), so "
                        "the product is Wₕₕᵏ, at least 1.5ᵏ long, for any seed."},
}
VIEWS = {"decay": "Steps back", "factors": "Per-step factors", "clip": "Clipping"}  # the chart beside the controls
CURVES = {  # series key: (metric label, what it measures)
    "rnn": ("vanilla h", "Vanilla RNN: the spectral norm of ∂h_T/∂h_t."),
    "lstm": ("LSTM h", "LSTM: the spectral norm of ∂h_T/∂h_t."),
    "lstm_f": ("LSTM c, f path", "LSTM cell state along the forget gates alone: the product f_T ⊙ … ⊙ f_(t+1) of its "
               "best-kept unit (the spectral norm of that diagonal matrix)."),
    "lstm_c": ("LSTM c, all paths", "LSTM cell state, all paths: the spectral norm of ∂c_T/∂c_t, the forget-gate path "
               "plus every detour through h, W_hh and the gates."),
    "gru": ("GRU h", "GRU: the spectral norm of ∂h_T/∂h_t."),
}


@dataclass
class Comparison:
    reports: dict[str, GradientReport]  # rnn, lstm, gru
    rho: float  # spectral radius of the vanilla W_hh
    sigma_max: float  # largest singular value of the vanilla W_hh


def recurrent_weights(cell: str, hidden_size: int, seed: int, scale: float, by: str = "sigma",
                      gate_bias: float = 0.0) -> dict[str, np.ndarray]:
    """PyTorch-style random weights with zero biases; each W_hh block rescaled so its sigma_max (or rho) is `scale`;
    `gate_bias` goes into the LSTM's forget gate or the GRU's update gate (b_ih's second block)."""
    w = init_weights(cell, INPUT_SIZE, hidden_size, seed=seed)
    w["b_ih"][:], w["b_hh"][:] = 0.0, 0.0
    H = hidden_size
    for k in range(len(w["W_hh"]) // H):
        blk = w["W_hh"][k * H:(k + 1) * H]
        size = np.linalg.norm(blk, 2) if by == "sigma" else spectral_radius(blk)
        if size > 0:
            blk *= scale / size
    if cell in ("lstm", "gru"):
        w["b_ih"][H:2 * H] = gate_bias
    return w


def compare(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
            by: str = "sigma", update_bias: float = 0.0, cells: tuple[str, ...] = ("rnn", "lstm", "gru")) -> Comparison:
    """Run a vanilla RNN, an LSTM and a GRU (or some of them) over the same inputs and differentiate each back through
    time."""
    rng = np.random.default_rng(seed)
    x = input_scale * rng.normal(size=(T, INPUT_SIZE))
    bias = {"rnn": 0.0, "lstm": forget_bias, "gru": update_bias}
    run = {"rnn": (rnn_forward, rnn_gradients), "lstm": (lstm_forward, lstm_gradients), "gru": (gru_forward, gru_gradients)}
    reports = {}
    for c in cells:
        w = recurrent_weights(c, hidden_size, seed, w_scale, by, bias[c])
        reports[c] = run[c][1](run[c][0](x, **w), w["W_hh"])
    W = recurrent_weights("rnn", hidden_size, seed, w_scale, by)["W_hh"]
    return Comparison(reports, spectral_radius(W), float(np.linalg.norm(W, 2)))


def _arrays(cmp: Comparison) -> list[np.ndarray]:
    return [a for r in cmp.reports.values() for a in (*vars(r).values(), *r.factors.values()) if isinstance(a, np.ndarray)]


COMPARISONS = SharedCache(64 * 2 ** 20)  # ~2 MB at the page's defaults, 27 MB at H = 64, T = 200


def compared(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
             by: str = "sigma", update_bias: float = 0.0) -> Comparison:
    """`compare`, kept per server (the last 64 MB of settings): a setting revisited, by a slider moved back or a
    shared link, costs nothing. Its arrays are read-only: every visitor shares them."""
    key = (hidden_size, T, w_scale, forget_bias, input_scale, seed, by, update_bias)
    return COMPARISONS.get_arrays(key, lambda: compare(*key), _arrays)


def curves(cmp: Comparison) -> dict[str, np.ndarray]:
    """log10 norms by steps back k = 0..T for each curve in CURVES (spectral norms of the Jacobians; for the forget-gate
    path, of diag(f_T ... f_{t+1}), i.e. its best-kept unit)."""
    R = cmp.reports
    return {"rnn": R["rnn"].log10_spectral, "lstm": R["lstm"].log10_spectral,
            "lstm_f": R["lstm"].log10_forget_path.max(axis=1), "lstm_c": R["lstm"].log10_cell_spectral,
            "gru": R["gru"].log10_spectral}


def factor_inputs(cmp: Comparison) -> dict[str, np.ndarray | float]:
    """What each step multiplies the gradient by: tanh'(z_s) (T, H), ||W_hh||_2, forget gates f and update gates z."""
    R = cmp.reports
    return {"tanh_prime": R["rnn"].factors["tanh_prime"], "w_norm": float(R["rnn"].factors["w_norm"][0]),
            "forget": R["lstm"].factors["forget"], "update": R["gru"].factors["update"]}


def reference_curves(steps: np.ndarray) -> dict[str, np.ndarray]:
    """The notes' idealised decay: vanilla (0.5 * 0.9)^t, LSTM with f = 0.9, LSTM with f = 1."""
    tab = decay_table(steps)
    return {"vanilla (0.5·0.9)<sup>t</sup>": tab["vanilla"], "LSTM 0.9<sup>t</sup>": tab["lstm"], "LSTM 1": tab["lstm_f1"]}


def notes_table() -> dict[str, list[str]]:
    """The notes' table of idealised factors, formatted as the notes print it (columns; t first)."""
    tab = decay_table()
    return {"t": [str(int(t)) for t in tab["t"]], "vanilla (0.5×0.9)ᵗ": [f"{v:.1e}" for v in tab["vanilla"]],
            "LSTM f = 0.9: 0.9ᵗ": [f"{v:.2g}" for v in tab["lstm"]], "LSTM f = 1": [f"{v:g}" for v in tab["lstm_f1"]]}


NOTES_CAPTION = ("Idealised: tanh′ ≈ 0.5 on average and a recurrent weight of about 0.9. The dashed grey lines on the "
                 "plot are these formulas.")
EXPLODE_HELP = ("A one-unit cell with w = 2 held at h = 0, in tanh's linear part where tanh′ = 1: each of the fifty steps "
                "multiplies the gradient by exactly 2.")


def explode(w: float = 2.0, steps: int = 50) -> float:
    """A scalar unit with weight w held at h = 0 (tanh' = 1): the gradient factor after `steps` steps."""
    return float(rnn_gradients(rnn_forward(np.zeros(steps), 1.0, w), w).spectral[steps])


def format_norm(log10_value: float) -> str:
    """A norm given by its exact log10, in one format for every norm on the page: 3 significant digits, plain from
    0.001 to 9999, else mantissa e exponent (also far beyond float64: '2.50e-450'); '0' for an exact zero."""
    v = float(log10_value)
    if np.isnan(v) or v == -np.inf:
        return "0"
    if v == np.inf:
        return "∞"
    if -3 <= v < 4:
        return f"{10 ** v:#.3g}".rstrip(".")  # '1.00', '56.9', '123', '0.0346'; never '1e+03' in this range
    e = math.floor(v)
    m = round(10 ** (v - e), 2)
    if m >= 10:
        m, e = m / 10, e + 1
    return f"{m:.2f}e{e:+03d}"


def clip_demo(report: GradientReport, steps_back: int, threshold: float) -> dict[str, object]:
    """The loss gradient dL/dh at `steps_back` steps before the end, before and after clipping by norm, in log10
    (exact however large or small): direction, log10 norms, and whether clipping changed it."""
    lb = float(report.log10_loss_grad[steps_back])
    d = report.loss_grad_dirs[steps_back]
    if lb > FLOAT_CEIL:  # the vector itself is beyond float64: clipping keeps its direction and sets the threshold length
        la, clipped = float(np.log10(threshold)), True
    elif lb == -np.inf:
        la, clipped = lb, False
    else:
        after, _, scale = clip_by_norm(d * 10 ** lb, threshold)
        la, clipped = float(np.log10(np.linalg.norm(after))), scale < 1.0
    return {"direction": d, "log10_before": lb, "log10_after": la, "clipped": clipped,
            "before": format_norm(lb), "after": format_norm(la)}


# ---- the words beside the numbers: computed, so they always say what the page shows ---------------------------------

INTRO = ("The gradient that reaches a state k steps back is a product of k step Jacobians. Every curve below is computed "
         "from the random, untrained weights set here. **Vanish** sets $W_{hh}$'s largest singular value "
         "$\\sigma_{\\max} = 0.9$: with $\\tanh' \\le 1$ every step shrinks the gradient, so the vanilla curve falls for "
         "every seed. **Explode** sets the spectral radius $\\rho = 1.5$ and switches the input off: every state stays at "
         "0, where $\\tanh' = 1$, the product is $W_{hh}^k$ and grows at least like $1.5^k$. Then raise the input scale "
         "and watch saturation pull it back down. Raise the LSTM's forget-gate bias $b_f$ and watch its forget-gate path "
         "flatten towards 1.")


LOSS_NOTE = ("What the numbers measure: $L$ is a loss read at the last step $T$, $L = u \\cdot h_T$ with "
             "$u = (1, \\dots, 1)/\\sqrt{H}$, so $\\partial L/\\partial h_T = u$ has length 1 and "
             "$\\partial L/\\partial h_t = u^\\top\\, \\partial h_T/\\partial h_t$. The curves and the numbers below are "
             "spectral norms $\\lVert \\partial h_T/\\partial h_t \\rVert_2$ (for the LSTM's cell, "
             "$\\lVert \\partial c_T/\\partial c_t \\rVert_2$): the most any loss whose gradient at $h_T$ has length 1 "
             "can receive at step $t$.")


SCALE_NOTE = ("The weights are random and untrained (the seed picks them): the curves show a cell before it learns. "
              "σₘₐₓ, the largest singular value, is the most one multiplication can stretch a vector; ρ, the spectral "
              "radius (largest |eigenvalue|), is how fast Wₕₕᵏ grows in the long run, and ρ ≤ σₘₐₓ. As tanh′ ≤ 1, "
              "σₘₐₓ < 1 guarantees vanishing; σₘₐₓ > 1 allows explosion but does not cause it: saturated units "
              "(tanh′ ≈ 0) pull the product down.")


def scale_note(cmp: Comparison, by: str, scale: float) -> str:
    """Both sizes of the vanilla W_hh and which one the slider set (plain Unicode: this line is redrawn on every move,
    and typeset maths costs more to draw than the chart)."""
    return (f"Vanilla Wₕₕ: σₘₐₓ = **{cmp.sigma_max:.3f}**, ρ = **{cmp.rho:.3f}** "
            f"(the slider set {'σₘₐₓ' if by == 'sigma' else 'ρ'} = {scale:g}).")


def ends(series: dict[str, np.ndarray]) -> str:
    """Where each curve ends, in words (for the chart's text alternative)."""
    return ", ".join(f"{CURVES[k][0]} ends at {format_norm(v[-1])}" for k, v in series.items())


def slowest(cmp: Comparison) -> str:
    """The curve (vanilla h, LSTM h, GRU h) that ends lowest."""
    k = curves(cmp)
    return min(("rnn", "lstm", "gru"), key=lambda c: k[c][-1])


def factor_notes(cmp: Comparison, T: int) -> list[str]:
    """One short paragraph per cell: what each step multiplies the gradient by, with this run's numbers."""
    R, k = cmp.reports, curves(cmp)
    tp = R["rnn"].factors["tanh_prime"]
    f, z = R["lstm"].factors["forget"], R["gru"].factors["update"]
    gru_last = slowest(cmp) == "gru"
    return [
        f"**Vanilla:** each step multiplies by diag(tanh′(zₛ))·Wₕₕ. Here tanh′ averages **{tp.mean():.3f}** and "
        f"**{(tp < 0.1).mean():.0%}** of unit-steps are saturated (tanh′ < 0.1): those pass almost nothing back.",
        f"**LSTM:** along the cell state alone each step multiplies by its forget gates f, here **{f.mean():.3f}** on "
        f"average; over {T} steps the best-kept unit keeps **{format_norm(k['lstm_f'][T])}** (the forget-gate path). "
        f"All paths into c together give **{format_norm(k['lstm_c'][T])}**: they add detours that leave c through "
        "h = o ⊙ tanh(c), pass Wₕₕ into the gates and the candidate, and come back into c. Those detours are products of "
        "Wₕₕ like the vanilla RNN's, so they can vanish or explode whatever f does; with f ≈ 1 nothing shrinks them "
        "either.",
        f"**GRU:** hₜ = (1 − zₜ) ⊙ nₜ + zₜ ⊙ hₜ₋₁, so its copy path is the update gate z, here **{z.mean():.3f}** on "
        "average; the path through Wₕₕ is scaled down by (1 − z) and the reset gate. A copy path with z ≈ 0.5 halves the "
        "gradient at every step" + (", which is why the GRU vanishes fastest here" if gru_last else "")
        + ": gates fix vanishing only when they are open. Raise the update-gate bias (as the forget-gate bias for the "
        "LSTM) and the GRU's curve flattens.",
    ]


CLIP_VERDICT = {
    True: "Clipped: the direction is kept and the length is cut to the threshold. Explosion tamed.",
    False: "Not clipped: the norm is under the threshold. Clipping only shortens; it cannot lengthen a vanished "
           "gradient back to life.",
}


def clip_note(demo: dict, metric_log10: float, T: int) -> str:
    """The clipping sentence, naming how its number differs from the 'vanilla h' metric."""
    return (f"The vanilla ∂L/∂h₀, {T} steps back: norm **{demo['before']}** before clipping, **{demo['after']}** after. "
            f"The metric *vanilla h* above ({format_norm(metric_log10)}) is the largest singular value of the whole "
            "Jacobian back to h₀, the most any such loss could receive; ‖∂L/∂h₀‖ for our one L is at most that.")
