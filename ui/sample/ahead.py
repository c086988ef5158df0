"""What the sampling page computes before anyone asks for it, in a background thread: the next seed's sample after
"Sample again" (and its analysis, for a visitor looking inside each sample), and, once per server, the shipped
model's excerpt analysed. The sample asked for is drawn or kept as ui/sample/cache.py keeps it."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rnnviz.charlm import SHIPPED_MODEL, CharLM
from rnnviz.lessons import sample as lesson
from rnnviz.nn.sampling import SamplingSettings
from ui.loaders import once_in_background, shipped_model
from ui.sample import P, Session, cache


def sample_for(model_id: str, lm: CharLM, s: SamplingSettings, session: Session,
               progress: Callable[[float], None] | None = None, ahead: bool = False) -> lesson.Sample:
    """The sample for these settings, kept as cache.kept_sample keeps it (`progress(fraction done)`). The shipped
    model's next seed is then drawn ahead (see draw_ahead) on a visitor's first look at the page, and after each
    "Sample again" (`ahead`): the two moments a click on Sample again is likeliest to follow."""
    smp = cache.kept_sample(model_id, lm, s, session, progress)
    if model_id == "shipped" and (ahead or not session.get(f"{P}.looked")):  # a class on one link: drawn once per
        session[f"{P}.looked"] = True  # server for them all
        draw_ahead(model_id, lm, s, analysed=session.get(f"{P}.passage") == "sample"
                   and session.get(f"{P}.view") not in ("text", "card"))
    return smp


def draw_ahead(model_id: str, lm: CharLM, s: SamplingSettings, analysed: bool = False) -> bool:
    """After "Sample again": the shipped model's sample for the next seed, drawn in the background (one at a time per
    server), so that a visitor clicking through samples waits for the first one only; `analysed`: its units and gate
    saturation too (a visitor looking inside each new sample), kept as cache.analysis_for keeps them."""
    nxt = replace(s, seed=s.seed + 1)
    if model_id != "shipped" or s.greedy or nxt.seed > lesson.MAX_SEED or lesson.is_long(lm, nxt):
        return False  # greedy: every seed gives the same text; long: whoever waits for it should see its progress

    def draw() -> lesson.Sample:
        smp = lesson.draw_sample(lm, nxt)
        if analysed:
            cache.own_analysis(model_id, lm, smp)
        return smp
    return cache.SAMPLES.fill_ahead((model_id, nxt), draw, lambda v: v.nbytes)


WARM_DELAY = 1.0  # s: the first page is drawn before the work starts (a Python thread shares the interpreter)


def warm_up() -> bool:
    """Once per server, after its first run (whatever page): the shipped model's excerpt analysed in a thread of its
    own, as the sampling page's first look inside needs it (3.3 s here, 6-11 s on a loaded machine: a new server's
    first visitor to that page waited for it with nothing cached). A visitor asking sooner computes it, and the
    thread then finds it done (SharedCache: one computation per key); one asking while the thread reads waits for it
    (an empty progress bar, which a newer click cannot stop). Whether this call started the thread."""
    def work():  # on an error the page computes it when asked, and shows the error then
        lm = shipped_model(str(SHIPPED_MODEL))
        passage = lesson.excerpt(lm)
        cache.PASSAGES.get(("shipped", passage), lambda: lesson.analyse_passage(lm, passage), pinned=True)
    return once_in_background("rnnviz-warm-up", work, WARM_DELAY, "warming up the sampling page")
