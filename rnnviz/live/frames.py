"""Frames for the live charts (ui/live): a figure at each notch of a slider near its value, or at each step of a
stepper, reduced to what changes from one to the next, so that the browser can show any of them (ui/live/scrub.js,
ui/live/stepped.js) with the server's own numbers; and a figure's digest, its name in the protocol. Nothing is computed
twice: each frame is the page's own figure function at that value (or a form of it without its words: figure_frames)."""
from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from typing import Callable

import numpy as np
import plotly.io as pio

SPAN = 101  # notches a slider's frames cover at most: a bounded cost per setting


def _same(a, b) -> bool:
    """Deep equality of figure parts (arrays equal elementwise, NaN equal to NaN)."""
    if a is b:
        return True
    if isinstance(a, (dict, list)) and type(a) is type(b):  # most of a layout: Python's own comparison, in C
        try:
            if (a == b) is True:
                return True
        except (TypeError, ValueError):  # arrays inside: compared part by part below
            pass
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            x, y = np.asarray(a), np.asarray(b)
            return x.shape == y.shape and bool(np.all((x == y) | ((x != x) & (y != y))))
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b


def plain(v):
    """A figure part as JSON can hold it: a 1-D float array as plotly.js's typed-array form (its 8 bytes in base64,
    what plotly's own JSON sends: a third of the text of its decimals), other arrays as lists, NaN and infinities as
    null (Plotly leaves a gap)."""
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind == "f":
        return {"dtype": "f8", "bdata": base64.b64encode(v.astype("<f8").tobytes()).decode()}
    if isinstance(v, np.ndarray):
        return plain(v.tolist())
    if isinstance(v, dict):
        return {k: plain(u) for k, u in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(u) for u in v]
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def figure_frames(build: Callable[[float], object], values: list[float], whole: bool = False,
                  hold: bool = True, keep: dict | None = None, digests: bool = False) -> dict | None:
    """`build(v)` (a figure) at every value, as {values, traces (how many), data: [{trace, attr, frames}], layout:
    [{attr, frames}], hold}: each trace attribute and top-level layout entry that differs between values, with its
    value in every frame; hold: see held_axes. `whole`: the frames are not the chart as drawn but a form of it of their
    own (a chart whose words change with every value, say, shown without them while dragged), so they carry the
    first frame's figure whole as well, {data, layout} under "start": the browser draws it once as a drag begins.
    `hold=False`: frames that are never dragged through (a stepped chart's, ui/live/steps.py) leave hold out. Frames of
    the chart's own figure (not `whole`) that are dragged through carry `digests`, each figure's figure_digest: a key
    press on the slider shows its frame at once, and the browser knows the rerun's figure for the same
    (ui/live/scrub.js). `keep` ({data: [[trace, attr]], layout: [attr]}: what another set of the same slider's frames
    changes) is carried even where it holds still here: a drag switches between sets, and each must set all of it.
    Values whose figure has other traces than most (a frame could not be shown by changing attributes) are left out;
    None when no two figures share their traces."""
    figs = [build(v) for v in values]
    specs = [f.to_dict() for f in figs]
    if not specs:
        return None
    counts = [len(s["data"]) for s in specs]
    most = max(set(counts), key=counts.count)  # values whose figure has other traces (a curve that is not there at
    if counts.count(most) < 2 and len(specs) > 1:  # 0, say) are left out: the browser greys the chart there
        return None
    values, figs, specs = zip(*[(v, f, s) for v, f, s, n in zip(values, figs, specs, counts) if n == most])
    kept = {tuple(k) for k in (keep or {}).get("data", ())}
    kept_layout = set((keep or {}).get("layout", ()))
    data = []
    for i in range(len(specs[0]["data"])):
        traces = [s["data"][i] for s in specs]
        for attr in sorted(set().union(*(t.keys() for t in traces), (a for j, a in kept if j == i))):
            seen = [t.get(attr) for t in traces]
            if (i, attr) in kept or not all(_same(seen[0], u) for u in seen[1:]):
                data.append({"trace": i, "attr": attr, "frames": plain(seen)})
    layout = []
    for attr in sorted(set().union(*(s["layout"].keys() for s in specs), kept_layout)):
        seen = [s["layout"].get(attr) for s in specs]
        if attr in kept_layout or not all(_same(seen[0], u) for u in seen[1:]):
            layout.append({"attr": attr, "frames": plain(seen)})
    out = {"values": list(values), "traces": len(specs[0]["data"]), "data": data, "layout": layout}
    if hold:
        out["hold"] = held_axes(specs, data, layout)
    if (hold and not whole) or digests:  # the chart's own figures (or `digests`, a stepped chart's steps): each
        out["digests"] = [figure_digest(pio.to_json(f, validate=False)) for f in figs]  # one's digest, as sent
    if whole:
        out["start"] = plain({"data": specs[0]["data"], "layout": specs[0]["layout"]})
    return out


_AXIS = re.compile(r"[xy]axis\d*")


def held_axes(specs: list[dict], data: list[dict], layout: list[dict]) -> dict | None:
    """Whether the frames can be drawn by moving points alone, and the range each frame needs on each axis it moves;
    None if not.

    plotly.js redraws a whole chart for a new figure (Plotly.react: about 30 ms here, so about 20 frames a second
    while dragging), but moves the points of scatter traces without redrawing anything else when only their x and y
    change (Plotly.animate without redraw: a few ms). Its axes then stay where they are, so the browser needs to know
    when a frame would not fit them: {axis: [[lo, hi] for each frame]}, in the axis's own units (log10 for a log
    axis). For an axis whose range the figure sets (and changes with the value), a frame needs that range; for one that
    plotly.js fits to the data, a frame needs the extent of its moving points, with 5% of their span either side (the
    margin plotly.js leaves for lines). ui/live/scrub.js keeps the axes still while every frame fits, and widens them
    (one full redraw) when one does not."""
    base = specs[0]
    need: dict[str, np.ndarray] = {}
    fitted: set[str] = set()  # the axes plotly.js fits to the data
    for d in data:  # only x and y of scatter traces
        trace = base["data"][d["trace"]]
        if d["attr"] not in ("x", "y") or trace.get("type", "scatter") != "scatter":
            return None
    for item in layout:  # only axis ranges
        frames = [s["layout"].get(item["attr"]) for s in specs]
        if not _AXIS.fullmatch(item["attr"]) or any(not isinstance(f, dict) or f.get("range") is None for f in frames):
            return None
        rest = [{k: v for k, v in f.items() if k != "range"} for f in frames]
        if not all(_same(rest[0], r) for r in rest[1:]):
            return None
        need[item["attr"]] = np.array([f["range"] for f in frames], float)
    for d in data:  # the axes that fit themselves to the points: the extent of the points that move, frame by frame
        ref = base["data"][d["trace"]].get(d["attr"] + "axis", d["attr"])
        axis = d["attr"] + "axis" + ref[1:]
        spec = base["layout"].get(axis) or {}
        if axis in need and axis not in fitted or spec.get("range") is not None:
            continue
        rows = []
        for s in specs:
            try:
                v = np.asarray(s["data"][d["trace"]][d["attr"]], float).ravel()
            except (TypeError, ValueError):  # dates or categories: leave the chart to Plotly.react
                return None
            if spec.get("type") == "log":
                v = np.log10(v[v > 0])
            v = v[np.isfinite(v)]
            lo, hi = (float(v.min()), float(v.max())) if v.size else (np.nan, np.nan)
            pad = 0.05 * (hi - lo)
            rows.append([lo - pad, hi + pad])
        rows = np.array(rows)
        if axis in need:  # another moving trace on the same axis: the frame needs both
            rows = np.stack([np.fmin(need[axis][:, 0], rows[:, 0]), np.fmax(need[axis][:, 1], rows[:, 1])], 1)
        need[axis] = rows
        fitted.add(axis)
    return {axis: plain(rows.tolist()) for axis, rows in need.items()}


def figure_digest(figure_json: str) -> str:
    """A short name for a figure's JSON text (ui/live/chart.py's payload carries its figure's): equal texts, equal
    names."""
    return hashlib.blake2b(figure_json.encode(), digest_size=8).hexdigest()


def encoded(frames: dict | None) -> bytes:
    """The frames as compact JSON (what the browser receives)."""
    return json.dumps(frames, separators=(",", ":"), allow_nan=False).encode()
