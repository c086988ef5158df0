"""The sampling page's shading: one number per character of a sample (the probability or surprisal of each character,
a unit's value after it, or how much it moved one later prediction), with the scale to colour the text on. The colours
are rnnviz.figures.sample's; the words and hover texts ui/sample/shading.py's."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.charlm import CharLM
from rnnviz.charlm.inspect import connectivity
from rnnviz.lessons.sample import Sample


@dataclass
class Shading:
    """One value per character of a sample, and the colour scale to shade the text on.

    Attributes:
        values: (T,) one number per character; NaN: not shaded.
        lo: the value the scale's low end stands for (values beyond it are clipped).
        hi: the value the scale's high end stands for (values beyond it are clipped).
        signed: a diverging scale (hidden units) rather than a sequential one.
        unread_after: characters after this one are faded (not read before the prediction); None: none.
        peak: where the largest value is (connectivity); None: nowhere marked.
    """

    values: np.ndarray
    lo: float
    hi: float
    signed: bool = False
    unread_after: int | None = None
    peak: int | None = None


def probability_shading(s: Sample) -> Shading:
    """1 - p: the darker, the less likely the model (temperature 1) found the character before it appeared."""
    return Shading(1 - s.p_char.astype(np.float64), 0.0, 1.0)


def surprisal_shading(s: Sample) -> Shading:
    """Surprisal -log2 p in bits, 0 (certain) to 8 (or more) on the scale."""
    with np.errstate(divide="ignore"):
        return Shading(-np.log2(s.p_char.astype(np.float64)), 0.0, 8.0)


def unit_shading(s: Sample, layer: int, kind: str, unit: int) -> Shading:
    """One unit's h (or c, for an LSTM) after each character, on a scale symmetric about 0."""
    acts = (s.c if kind == "c" and s.c is not None else s.h)[:, layer, unit]
    lim = max(1e-6, float(np.abs(acts).max()))
    return Shading(acts, -lim, lim, True)


def connectivity_shading(lm: CharLM, s: Sample, i: int) -> Shading:
    """How much each character read before text[i] moved the prediction of it, ‖∂ log p / ∂e‖ (NaN from i on)."""
    conn = np.full(len(s.text), np.nan)
    if i >= 1:
        with np.errstate(all="ignore"):  # an unstable uploaded model's gradients overflow: left unshaded (NaN)
            conn[:i] = np.where(np.isfinite(c := connectivity(lm, s.text, i - 1, (s.h, s.c))), c, np.nan)
    if i < 1 or np.isnan(conn[:i]).all():  # nothing read yet, or nothing finite to shade (peak None)
        return Shading(conn, 0.0, 1.0, False, i, None)
    return Shading(conn, 0.0, max(float(np.nanmax(conn)), 1e-12), False, i, int(np.nanargmax(conn)))
