"""The sampling page's text colours: the numbers of one shading (rnnviz.lessons.shading), with what the colours mean
and each character's hover text; the connectivity shading is kept as ui/sample/cache.py keeps it."""
from __future__ import annotations

from dataclasses import dataclass

from rnnviz.charlm import CharLM
from rnnviz.lessons import sample as lesson, shading as shadings
from rnnviz.text import fmt
from ui.sample import Session
from ui.sample.cache import connectivity_for
from ui.sample.words import UNITS_FROM_1, label


@dataclass
class Shade:
    numbers: shadings.Shading
    titles: list[str]  # hover text per character
    caption: str  # what the colours mean
    ends: tuple[str, str] = ("likely", "unlikely")  # names of the scale's two ends


def shade(mode: str, lm: CharLM, s: lesson.Sample, i: int, unit: tuple[int, str, int] = (0, "h", 0),
          model_id: str | None = None, session: Session | None = None) -> Shade:
    """The text's colours by `mode` (one of SHADES): probability or surprisal of each character, a hidden unit's
    value after each character (`unit`: layer and unit from 0, as rnnviz indexes them; written from 1), or the
    connectivity of the prediction of text[i] to every character before it (kept as connectivity_for keeps it when
    the model's id and the visitor's session are given, else computed)."""
    chars = [repr(label(ch)) for ch in s.text]
    if mode == "hidden unit":
        layer, kind, u = unit
        sh = shadings.unit_shading(s, layer, kind, u)
        return Shade(sh, [f"{c}: {kind} of unit {u + 1} = {v:+.3f}" for c, v in zip(chars, sh.values)],
                     f"Grey: {kind} of unit {u + 1} in layer {layer + 1} positive, purple: negative, after each "
                     f"character (strongest ±{fmt(sh.hi)}). {UNITS_FROM_1}", ("−", "+"))
    if mode == "connectivity":
        sh = (shadings.connectivity_shading(lm, s, i) if session is None
              else connectivity_for(model_id, lm, s, i, session))
        if i >= 1 and sh.peak is None:
            return Shade(sh, [f"{c}: not finite" for c in chars],
                         f"Connectivity of the prediction of character {i + 1}: this model's gradients overflow "
                         "(they are not finite numbers), so there is nothing to shade.",
                         ("none", "most"))
        top, where = (1.0, 0) if sh.peak is None else (float(sh.values[sh.peak]), sh.peak)
        titles = [f"{c}: ‖∂ log p / ∂e‖ = {v:.3g}" if j < i else f"{c}: read after character {i + 1}" if j > i else
                  f"{c}: the character predicted" for j, (c, v) in enumerate(zip(chars, sh.values))]
        return Shade(sh, titles, f"Connectivity of the prediction of character {i + 1} (outlined): how much each "
                     f"character read before it moved log p of what came, the length of the gradient ‖∂ log p / ∂e‖ "
                     f"with respect to its embedding e. The scale is set for this position: 0 to {top:.3g}, the "
                     f"largest, at character {where + 1} ({label(s.text[where])}); another position has its own, so "
                     "compare positions by the numbers (hover), not the shades. Characters after it were not read "
                     "yet.", ("0", f"{top:.3g}"))
    if mode == "surprisal":
        sh = shadings.surprisal_shading(s)
        return Shade(sh, [f"{c}: {b:.2f} bits" for c, b in zip(chars, sh.values)],
                     "Darker: more surprising. Surprisal −log₂ p in bits (0 = certain, 8 or more darkest).",
                     ("0 bits", "8+"))
    return Shade(shadings.probability_shading(s), [f"{c}: p = {fmt(p)}" for c, p in zip(chars, s.p_char)],
                 "Darker: less likely. Each character is shaded by 1 − p, the probability the model (temperature 1) "
                 "gave it before it appeared.")
