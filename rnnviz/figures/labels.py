"""Labels that keep clear of each other, of the markers and guides, and of the plot's edges: a greedy placement in
an assumed plot area (the smallest the page draws the chart in), so a chart never piles labels into a smear or cuts
one off at an edge.

Plotly puts trace text beside its point (textposition) but never moves it out of another's way, so charts with
many marked points pass them here and label only those that fit, the first-listed first."""
from __future__ import annotations

import numpy as np

CHAR_W, LINE_H, PAD = 0.62, 1.25, 3.0  # a character's width and a line's height in font sizes; padding in px
# Plotly's textpositions and where each puts its text's box from the point: (sign x, sign y), 0 centred
POSITIONS = {"top left": (-1, 1), "bottom right": (1, -1), "top right": (1, 1), "bottom left": (-1, -1),
             "middle left": (-1, 0), "middle right": (1, 0), "top center": (0, 1), "bottom center": (0, -1)}


def text_size(text: str, size: float, lines: int = 1) -> tuple[float, float]:
    """A generous width and height in px of `text` (its longest line) at font size `size`."""
    longest = max(len(line) for line in text.split("<br>"))
    return CHAR_W * size * longest + 2 * PAD, LINE_H * size * lines + 2 * PAD


class Placer:
    """Boxes (left, bottom, right, top) in px of a plot area `width` x `height` (y up) onto which the data ranges
    map; what is placed or blocked is taken, and nothing placed later overlaps it."""

    def __init__(self, xrange: tuple[float, float], yrange: tuple[float, float], width: float, height: float):
        (self.x0, self.x1), (self.y0, self.y1), self.w, self.h = xrange, yrange, width, height
        self.taken = np.empty((0, 4))

    def px(self, x, y):
        return ((np.asarray(x, float) - self.x0) / (self.x1 - self.x0) * self.w,
                (np.asarray(y, float) - self.y0) / (self.y1 - self.y0) * self.h)

    def clear(self, boxes: np.ndarray) -> np.ndarray:
        """For each box (n, 4): inside the plot area and overlapping nothing taken."""
        inside = (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= self.w) & (boxes[:, 3] <= self.h)
        t = self.taken
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
        """An axis-parallel line (a guide) as a thin box."""
        p, q = self.px([xa, xb], [ya, yb])
        self.block([p.min() - half, q.min() - half, p.max() + half, q.max() + half])

    def place_box(self, candidates: list[tuple[float, float, str]], text: str, size: float) -> int | None:
        """The first candidate (x, y, anchor) where `text` fits: the box's `anchor` side ('left' or 'right') at x,
        centred on y; it is then taken. None when none fits."""
        w, h = text_size(text, size, text.count("<br>") + 1)
        px, py = self.px([c[0] for c in candidates], [c[1] for c in candidates])
        left = np.where([c[2] == "left" for c in candidates], px, px - w)
        boxes = np.stack([left, py - h / 2, left + w, py + h / 2], axis=-1)
        ok = np.flatnonzero(self.clear(boxes))
        if not len(ok):
            return None
        self.block(boxes[ok[0]])
        return int(ok[0])

    def place_labels(self, x, y, texts: list[str], size: float, gap: float, limit: int) -> list[str | None]:
        """A textposition for each point's text (None: left unlabelled), at most `limit` of them, the first-listed
        first; each placed label is taken."""
        px, py = self.px(x, y)
        wh = np.array([text_size(s, size) for s in texts]).reshape(-1, 2)
        sx, sy = np.array(list(POSITIONS.values())).T  # (P,)
        w, h = wh[:, :1], wh[:, 1:]
        left = np.where(sx > 0, px[:, None] + gap, np.where(sx < 0, px[:, None] - gap - w, px[:, None] - w / 2))
        bottom = np.where(sy > 0, py[:, None] + gap, np.where(sy < 0, py[:, None] - gap - h, py[:, None] - h / 2))
        boxes = np.stack([left, bottom, left + w, bottom + h], axis=-1)  # (n, P, 4)
        ok = self.clear(boxes.reshape(-1, 4)).reshape(boxes.shape[:2])
        names, out, placed = list(POSITIONS), [None] * len(texts), []
        for j in range(len(texts)):
            if len(placed) == limit:
                break
            for p in np.flatnonzero(ok[j]):
                b = boxes[j, p]
                if all(b[2] <= q[0] or b[0] >= q[2] or b[3] <= q[1] or b[1] >= q[3] for q in placed):
                    out[j] = names[p]
                    placed.append(b)
                    break
        if placed:
            self.block(placed)
        return out
