"""Labels that keep clear of each other, of the markers and guides, and of the plot's edges: a greedy placement in
an assumed plot area (the smallest the page draws the chart in), so a chart never piles labels into a smear or cuts
one off at an edge.

Plotly puts trace text beside its point (textposition) but never moves it out of another's way, so charts with
many marked points pass them here and label only those that fit, the first-listed first."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

LINE_H, PAD = 1.25, 3.0  # a line's height in font sizes (Plotly: 1.3 lines apart, ~1.15 drawn); padding in px
# Plotly's textpositions and where each puts its text's box from the point: (sign x, sign y), 0 centred
POSITIONS = {"top left": (-1, 1), "bottom right": (1, -1), "top right": (1, 1), "bottom left": (-1, -1),
             "middle left": (-1, 0), "middle right": (1, 0), "top center": (0, 1), "bottom center": (0, -1)}

# Advance widths in font sizes of the charts' font (base.FONT: "Inter, Helvetica Neue, Arial, sans-serif"), measured
# once in Chromium 2026 (Debian, /usr/bin/chromium) with canvas measureText at 1000 px, rounded up to 0.01 em: the
# stack resolves to Liberation Sans there (Arial's metrics; Inter is not installed), and the superscripts ⁰ ⁴-⁹ ⁻ and
# subscripts come from its fallback, DejaVu Sans. A character not listed counts as WIDE; MARGIN covers the stack's
# other fonts, which may be a little wider (Inter, if installed, is ~5% wider than Arial), so a box is never
# underestimated. A count of characters (0.62 em each) made '→ h=7.00 × 10⁻⁴' 9.3 em: it measures 7.55.
_WIDTHS = {0.19: "′", 0.2: "'", 0.23: "ijl", 0.26: "|", 0.28: " !,./:;I[\\]ft·", 0.3: "ₜ", 0.34: "()-`r{}¹²³",
           0.36: '"', 0.39: "*", 0.41: "⁰⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉ₕ", 0.45: "ₓ", 0.47: "^", 0.5: "Jcksvxyz", 0.53: "⁻₋",
           0.55: "±≈", 0.56: "0123456789#$?L_abdeghnopqu–", 0.57: "ρ", 0.59: "+<=>~−×", 0.62: "FTZσ",
           0.67: "&ABEKPSVXY", 0.73: "CDHNRUw", 0.78: "GOQ", 0.84: "Mm", 0.89: "%", 0.95: "W", 1.0: "→…—",
           1.02: "@"}
CHAR_EM = {ch: w for w, chars in _WIDTHS.items() for ch in chars}
WIDE, MARGIN = 1.05, 1.08  # em of a character not in the table; the factor for the stack's other fonts


def text_width(line: str, size: float) -> float:
    """The width in px of one line of plain text (no tags) at font size `size`, never under what Chromium draws."""
    return MARGIN * size * sum(CHAR_EM.get(ch, WIDE) for ch in line)


@lru_cache(maxsize=4096)  # the same few labels ('t=3') are measured in every frame
def text_size(text: str, size: float, lines: int = 1) -> tuple[float, float]:
    """A generous width and height in px of `text` (its widest line; lines split at <br>) at font size `size`."""
    widest = max(text_width(line, size) for line in text.split("<br>"))
    return widest + 2 * PAD, LINE_H * size * lines + 2 * PAD


class Placer:
    """Boxes (left, bottom, right, top) in px of a plot area `width` x `height` (y up) onto which the data ranges
    map; what is placed or blocked is taken, and nothing placed later overlaps it. Lines (block_curve,
    block_segment) are taken too: no label lies on one; a leader line may cross one (not a marker or a label), and a
    box that must be drawn (place_box's `force`) crosses one only where nothing else fits."""

    def __init__(self, xrange: tuple[float, float], yrange: tuple[float, float], width: float, height: float):
        (self.x0, self.x1), (self.y0, self.y1), self.w, self.h = xrange, yrange, width, height
        self.taken, self.curves = np.empty((0, 4)), np.empty((0, 4))

    def px(self, x, y):
        return ((np.asarray(x, float) - self.x0) / (self.x1 - self.x0) * self.w,
                (np.asarray(y, float) - self.y0) / (self.y1 - self.y0) * self.h)

    def clear(self, boxes: np.ndarray, curves: bool = True) -> np.ndarray:
        """For each box (n, 4): inside the plot area and overlapping nothing taken (nor a line, with `curves`)."""
        inside = (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= self.w) & (boxes[:, 3] <= self.h)
        t = np.vstack([self.taken, self.curves]) if curves else self.taken
        hit = ((boxes[:, None, 0] < t[None, :, 2]) & (boxes[:, None, 2] > t[None, :, 0])
               & (boxes[:, None, 1] < t[None, :, 3]) & (boxes[:, None, 3] > t[None, :, 1]))
        return inside & ~hit.any(axis=1)

    def block(self, boxes) -> None:
        self.taken = np.vstack([self.taken, np.asarray(boxes, float).reshape(-1, 4)])

    def block_points(self, x, y, radius) -> None:
        px, py = self.px(x, y)
        r = np.broadcast_to(np.asarray(radius, float), px.shape)
        self.block(np.stack([px - r, py - r, px + r, py + r], axis=-1))

    def block_segment(self, xa: float, ya: float, xb: float, yb: float, half: float = 1.5) -> None:
        """An axis-parallel line (a guide) as a thin box; a line, as a curve is."""
        p, q = self.px([xa, xb], [ya, yb])
        self.curves = np.vstack([self.curves, [p.min() - half, q.min() - half, p.max() + half, q.max() + half]])

    def block_curve(self, x, y, half: float = 1.5) -> None:
        """A drawn line through the points (x, y), sampled densely enough that each piece's box hugs it."""
        px, py = self.px(x, y)
        lo_x, hi_x = np.minimum(px[:-1], px[1:]), np.maximum(px[:-1], px[1:])
        lo_y, hi_y = np.minimum(py[:-1], py[1:]), np.maximum(py[:-1], py[1:])
        self.curves = np.vstack([self.curves, np.stack([lo_x - half, lo_y - half, hi_x + half, hi_y + half], -1)])

    def place_box(self, candidates: list[tuple[float, float, str]], text: str, size: float,
                  force: bool = False) -> int | None:
        """The first candidate (x, y, anchor) where `text` fits: the box's `anchor` side ('left' or 'right') at x,
        centred on y; it is then taken. None when none fits; with `force` (a box drawn whatever happens), the first
        that crosses only lines, else the first candidate, and it is taken all the same."""
        w, h = text_size(text, size, text.count("<br>") + 1)
        px, py = self.px([c[0] for c in candidates], [c[1] for c in candidates])
        left = np.where([c[2] == "left" for c in candidates], px, px - w)
        boxes = np.stack([left, py - h / 2, left + w, py + h / 2], axis=-1)
        ok = np.flatnonzero(self.clear(boxes))
        if not len(ok) and force:
            ok = np.append(np.flatnonzero(self.clear(boxes, curves=False)), 0)
        if not len(ok):
            return None
        self.block(boxes[ok[0]])
        return int(ok[0])

    def place_labels(self, x, y, texts: list[str], size: float, gap: float, limit: int, leaders: tuple[float, ...] = (),
                     start: float | None = None) -> list[str | tuple[str, float] | None]:
        """A textposition for each point's text (None: left unlabelled), at most `limit` of them, the first-listed
        first; each placed label is taken. A label that fits nowhere `gap` px beside its point goes farther out, at
        each distance in `leaders` in turn (for the first `limit` such labels), with a leader line from the marker to
        its box: its entry is then (textposition, distance), and the line, from `start` px out (default: just past
        `gap`), is taken too."""
        px, py = self.px(x, y)
        wh = np.array([text_size(s, size) for s in texts]).reshape(-1, 2)
        sx, sy = np.array(list(POSITIONS.values())).T  # (P,)
        w, h = wh[:, :1], wh[:, 1:]

        def boxes_at(d: float) -> np.ndarray:  # (n, P, 4): each point's box in each position, d px out
            left = np.where(sx > 0, px[:, None] + d, np.where(sx < 0, px[:, None] - d - w, px[:, None] - w / 2))
            bottom = np.where(sy > 0, py[:, None] + d, np.where(sy < 0, py[:, None] - d - h, py[:, None] - h / 2))
            return np.stack([left, bottom, left + w, bottom + h], axis=-1)

        def lines_at(d: float) -> np.ndarray:  # (n, P, 4): the leader from the marker's edge to the box's near corner
            a = gap + 1.5 if start is None else start  # clear of the marker's own box, `gap` px around the point
            ax, ay, bx, by = px[:, None] + sx * a, py[:, None] + sy * a, px[:, None] + sx * d, py[:, None] + sy * d
            return np.stack([np.minimum(ax, bx) - 1, np.minimum(ay, by) - 1, np.maximum(ax, bx) + 1,
                             np.maximum(ay, by) + 1], axis=-1)

        shape, done = (len(texts), len(sx)), {}

        def tier(t: int) -> tuple:  # (distance, boxes, leaders or None, which fit), worked out when first needed
            if t not in done:
                d = gap if t == 0 else leaders[t - 1]
                boxes, lines = boxes_at(d), None if t == 0 else lines_at(d)
                fits = self.clear(boxes.reshape(-1, 4)).reshape(shape)
                if lines is not None:
                    fits &= self.clear(lines.reshape(-1, 4), False).reshape(shape)
                done[t] = d, boxes, lines, fits
            return done[t]

        names, out, placed, count, far = list(POSITIONS), [None] * len(texts), np.empty((0, 4)), 0, 0

        def free(b: np.ndarray) -> np.ndarray:  # (P, 4) -> (P,): clear of the labels and leaders placed so far
            q = placed
            return ~((b[:, None, 0] < q[None, :, 2]) & (b[:, None, 2] > q[None, :, 0])
                     & (b[:, None, 1] < q[None, :, 3]) & (b[:, None, 3] > q[None, :, 1])).any(axis=1)

        for j in range(len(texts)):
            if count == limit:
                break
            for t in range(1 + len(leaders)):
                far += t == 1  # leaders for the first `limit` labels with no spot beside them: the rest pile up
                if t and far > limit:
                    break
                d, boxes, lines, fits = tier(t)
                ok = fits[j] & free(boxes[j]) if fits[j].any() else fits[j]
                if lines is not None and ok.any():
                    ok &= free(lines[j])
                if ok.any():
                    p = int(np.argmax(ok))
                    out[j] = names[p] if lines is None else (names[p], d)
                    placed = np.vstack([placed, boxes[j, p]] + ([] if lines is None else [lines[j, p]]))
                    count += 1
                    break
        if len(placed):
            self.block(placed)
        return out
