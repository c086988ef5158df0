"""The gradients page's drag frames: the explorer's sliders whose drag each view's chart and its words follow, and the
clipping view's threshold (ui/live/scrub.py), with the comparisons they reach kept per server. The words they write
are ui/lessons/gradients.py's, the page's own."""
from __future__ import annotations

import dataclasses

from rnnviz.figures.gradients import clip_figure, factor_figure, gradient_decay
from rnnviz.lessons import clipping
from rnnviz.lessons.cache import SharedCache
from rnnviz.lessons.gradients import Comparison, clip_demo, compare, curves, factor_inputs
from rnnviz.nn.cells import compared as compared_cells, get
from ui.lessons.clipping import training_scrubs
from ui.lessons.gradients import (
    CLIP_WORDS,
    CONTROLS,
    FACTOR_WORDS,
    METRIC_WORDS,
    NUMBERS_WORDS,
    PATHS_WORDS,
    SCALE_WORDS,
    Explorer,
    P,
    clip_note,
    compared,
    factor_notes,
    metric_pieces,
    numbers_note,
    paths_note,
    reference_curves,
    scale_note,
)
from ui.live.scrub import Scrub
from ui.urlstate import font_scale

# per server: the three cells' comparison at a setting a drag's frames reach, without its Jacobians (the views and
# their words read none of them: 0.1 MB at the defaults instead of 1.8), shared by the three views and both widths: the
# decay chart's frames leave the factors and clipping views' comparisons at hand, and a laptop's a projector's
LIGHT = SharedCache(24 * 2 ** 20)


def light(cmp: Comparison) -> Comparison:
    """The comparison without its Jacobians (the large part: T x H x H a cell)."""
    return dataclasses.replace(cmp, reports={k: dataclasses.replace(r, jacobians=None, cell_jacobians=None)
                                             for k, r in cmp.reports.items()})


# the explorer's sliders whose drag the decay chart follows: each one's place in `compare`'s arguments (Explorer's
# order), and which cells it changes (None: all; else a test of the cell: the others' curves are the page's own)
MOVES = {"H": (0, None), "T": (1, None), "scale": (2, None), "bf": (3, lambda k: k.forget_gate is not None),
         "xs": (4, None), "bz": (7, lambda k: k.keep_gate is not None and k.keep_gate != k.forget_gate)}
SIZES = ("H", "T")  # what a frame costs: H x T


VIEW_CHARTS = {"decay": f"{P}.decay", "factors": f"{P}.factors", "clip": f"{P}.clip_fig"}  # each view's one chart


def scrubs(c: Explorer, cmp: Comparison, fs: float, view: str = "decay", threshold: float | None = None,
           room: bool = False) -> list[Scrub]:
    """The sizes H and T, the W_hh scale, the two gate biases and the input scale, whose drag the view's chart follows
    (the decay chart, the factors, or the clipping chart at `threshold`, laid out for a projector if `room`), and the
    words beside it (the scale's note, the metrics, for T what they measure, and the view's own: the factors' notes,
    the clipping sentence): each frame is that chart (the page's own call) with one of them moved, from `compare`
    without its Jacobians, kept in LIGHT (a frame's chart and its words share one, and so do the three views' and both
    widths' frames at a setting). A comparison costs about H x T x 8 us, 12 ms at the defaults here (0.15 s at
    H = 64, T = 200), a chart from one a few ms: fewer notches a set where they cost more."""
    args = dataclasses.astuple(c)
    said: dict = {}  # (slider, value) -> the words, kept from the frame's chart until its words are read
    plain = compared_cells()[0]  # the vanilla RNN's gradient is the one clipped

    def span(name: str) -> int:  # a set's notches: about 0.3 s of frames, at the slider's mean notch for a size
        mean = {n: (CONTROLS[n].lo + CONTROLS[n].hi) / 2 if n == name else getattr(c, n) for n in SIZES}
        return max(5, min(25, int(25 * 1600 // (mean["H"] * mean["T"]))))

    def moved(name: str, v: float) -> Comparison:
        at, which = MOVES[name]
        now = (*args[:at], v, *args[at + 1:])

        def compute() -> Comparison:
            if which is None:
                return light(compare(*now))
            part = compare(*now, cells=tuple(r for r in cmp.reports if which(get(r))))
            return light(dataclasses.replace(cmp, reports={**cmp.reports, **part.reports}))  # the others: the page's
        return LIGHT.get(now, compute)

    def text(name: str, v: float, now: Comparison) -> dict:
        T, series = v if name == "T" else c.T, curves(now)
        out = {METRIC_WORDS: metric_pieces(series, T), PATHS_WORDS: paths_note(series, T) or ""}
        if name in ("scale", "H"):  # W_hh's norms: its size and scale
            out[SCALE_WORDS] = scale_note(now, c.by, v if name == "scale" else c.scale)
        if name == "T":
            out[NUMBERS_WORDS] = numbers_note(T)
        if view == "factors":
            out[FACTOR_WORDS] = "\n\n".join(factor_notes(now, T))
        if view == "clip":
            out[CLIP_WORDS] = clip_note(clip_demo(now.reports[plain], T, threshold), series[plain][T], T,
                                        where="below" if room else "above")
        return out

    def figure(now: Comparison, T: int):
        if view == "factors":
            return factor_figure(**factor_inputs(now), font_scale=fs)
        if view == "clip":
            return clip_figure(clip_demo(now.reports[plain], T, threshold), fs)
        return gradient_decay(curves(now), reference_curves(range(T + 1)), font_scale=fs)

    def chart(name: str):
        def at(v: float):
            now = moved(name, v)
            if len(said) < 512:  # a set's words are read right after its charts are built: a few dozen at a time
                said[name, v] = text(name, v, now)
            return figure(now, v if name == "T" else c.T)
        return at

    def words(name: str):
        return lambda v: said.pop((name, v), None) or text(name, v, moved(name, v))

    setting = (view, threshold, room, fs)
    return [Scrub(CONTROLS.key(name), VIEW_CHARTS[view], args[:at] + args[at + 1:] + setting, args[at],
                  *CONTROLS[name].span, chart(name), span(name), words=words(name)) for name, (at, _) in MOVES.items()]


def clip_scrubs(report, T: int, threshold: float, metric_log10: float, fs: float, room: bool) -> list[Scrub]:
    """The clipping view's threshold, whose drag the before-and-after chart and the sentence beside it follow: each
    frame the page's own chart and sentence with the threshold there. (The verdict's box, clipped or not, changes its
    kind with the value: it comes back on release.) Its setting is what those read of the report: the gradient T
    steps back."""
    def demo(v: float) -> dict:
        return clip_demo(report, T, v)
    where = "below" if room else "above"
    grad = (T, float(report.log10_loss_grad[T]), report.loss_grad_dirs[T].tobytes(), metric_log10, fs, room)
    return [Scrub(CONTROLS.key("clip"), f"{P}.clip_fig", grad, threshold, *CONTROLS["clip"].span,
                  lambda v: clip_figure(demo(v), fs), words=lambda v: {CLIP_WORDS: clip_note(demo(v), metric_log10,
                                                                                            T, where=where)})]


def default_scrubs(room: bool) -> list[Scrub]:
    """The page's scrubbed sliders as each of its views opens (see ui/lessons/scalar.py default_scrubs): the explorer's
    in each of its three views (the decay chart first, the view it opens on), and the clipping view's threshold. The
    factors' and the clipping chart's frames read the comparisons the decay chart's computed (LIGHT): a first drag's
    sets of all six sliders in both views cost 0.2 s more of CPU and 1.4 MB a width, where they used to wait (the
    clipping chart's H: 868 ms still on a first sweep). Those alone: their far sets, warm, took the place of the
    sampling page's Top-p's and others' within the warm's bytes. And the training comparison's sliders below, in every
    view: a first drag's sets of those train 26 runs (ui/lessons/clipping.py training_scrubs)."""
    c = Explorer(**{f.name: CONTROLS[f.name].default for f in dataclasses.fields(Explorer)})
    cmp, fs = compared(*dataclasses.astuple(c)), font_scale(room)
    plain = compared_cells()[0]  # the vanilla RNN's gradient is the one clipped (app_pages/gradients.py)
    threshold = CONTROLS["clip"].default
    d = CONTROLS.defaults()
    training = training_scrubs(clipping.Settings(d["rho"], d["lr"], d["tclip"], seed=d["tseed"]), fs)
    return (scrubs(c, cmp, fs) + clip_scrubs(cmp.reports[plain], c.T, threshold, curves(cmp)[plain][c.T], fs, room)
            + [dataclasses.replace(i, warm_far=False)
               for i in scrubs(c, cmp, fs, "factors") + scrubs(c, cmp, fs, "clip", threshold, room)] + training)


