"""What the sampling page keeps: the shipped model's samples, analyses, connectivity and clamp experiments once per
server (every visitor shares them; rnnviz.lessons.cache.SharedCache), an upload's in its visitor's session (the last
few). What is computed before anyone asks for it is ui/sample/ahead.py's."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rnnviz.charlm import CharLM, Clamp
from rnnviz.charlm.inspect import PassageAnalysis
from rnnviz.lessons import clamp as clamping, sample as lesson, shading as shadings
from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.sampling import SamplingSettings
from ui.sample import P, Session

# ---- a sample: kept per server (the shipped model) or per session (an upload) -----------------------------------
SAMPLES = SharedCache(160 * 2 ** 20)  # the shipped model's samples (states included: ~8 MB per 500 characters)
PASSAGES = SharedCache(0)  # the shipped model's passage analyses, pinned


def kept_sample(model_id: str, lm: CharLM, s: SamplingSettings, session: Session,
                progress: Callable[[float], None] | None = None) -> lesson.Sample:
    """The shipped model's samples are drawn once per server (every visitor shares them); an upload's are kept in
    its visitor's session (`session`, e.g. st.session_state), the last one only. `progress(fraction done)`."""
    on_progress = None
    if progress:
        on_progress = lambda so_far: progress(min(1.0, (len(so_far) - len(s.prime)) / max(s.length, 1)))  # noqa: E731
    if model_id == "shipped":
        return SAMPLES.get((model_id, s), lambda: lesson.draw_sample(lm, s, on_progress), lambda v: v.nbytes)
    if session.get(f"{P}.sample", (None,))[0] != (model_id, s):
        session[f"{P}.sample"] = ((model_id, s), lesson.draw_sample(lm, s, on_progress))
    return session[f"{P}.sample"][1]


# ---- connectivity: kept per server (the shipped model) or per session (an upload), the next position ahead -------
CONNECTIVITY = SharedCache(16 * 2 ** 20)  # the shipped model's, by text and position (at most ~20 KB each)
KEPT_PER_SESSION = 8  # an upload's: the positions a visitor looked at last


def connectivity_for(model_id: str, lm: CharLM, smp: lesson.Sample, i: int, session: Session) -> shadings.Shading:
    """The connectivity shading of the prediction of text[i]: one backward pass through everything read before it
    (0.14 s at character 350 on the shipped model), so it is kept. For the shipped model it is kept once per server
    (a class looking at one link computes it once), and the neighbouring position, the next one in the direction the
    visitor last moved, is computed ahead in the background (one at a time per server): a visitor stepping through
    positions with the arrow keys finds each one ready. An upload's last few are kept in its visitor's session."""
    key, last = (model_id, smp.text, i), session.get(f"{P}._conn_at")
    session[f"{P}._conn_at"] = i

    def work(at: int) -> Callable[[], shadings.Shading]:
        def compute() -> shadings.Shading:
            sh = shadings.connectivity_shading(lm, smp, at)
            sh.values.setflags(write=False)  # shared by every visitor: none may change another's
            return sh
        return compute
    if model_id != "shipped":
        kept = session.setdefault(f"{P}.conn", {})
        if key not in kept:
            kept[key] = work(i)()
            for old in list(kept)[:-KEPT_PER_SESSION]:
                del kept[old]
        return kept[key]
    sh = CONNECTIVITY.get(key, work(i), lambda v: v.values.nbytes)
    nxt = i - 1 if last == i + 1 else i + 1  # the way the visitor was going; forwards to begin with
    if 1 <= nxt < len(smp.text):
        CONNECTIVITY.fill_ahead((model_id, smp.text, nxt), work(nxt), lambda v: v.values.nbytes, delay=0.05)
    return sh


# ---- a passage analysed: kept per server, per session, or with the sample ------------------------------------
OWN = SharedCache(24 * 2 ** 20)  # the shipped model's samples analysed (~0.3 MB each)


def own_analysis(model_id: str, lm: CharLM, smp: lesson.Sample) -> PassageAnalysis:
    """The shipped model's sample analysed, once per server: it depends on the text alone (the states are the
    model's run over it), so every visitor whose sample reads the same shares it."""
    def analysed() -> PassageAnalysis:
        a = lesson.analyse_sample(lm, smp)
        for arr in [x for span in a.saturation.values() for layer in span for pair in layer.values() for x in pair] \
                + [x for layer in a.closed for x in layer.values()]:
            arr.setflags(write=False)  # shared by every visitor: none may change another's
        return a
    return OWN.get((model_id, smp.text), analysed)


def analysis_for(model_id: str, lm: CharLM, smp: lesson.Sample, over: str, session: Session,
                 progress: Callable[[float], None] | None = None) -> PassageAnalysis:
    """The sample (its own states: no rerun; once per server for the shipped model, see own_analysis), or the excerpt
    analysed once per server for the shipped model (pinned: visitors' uploads cannot evict it) and once per session
    for an upload (`session`, e.g. st.session_state).
    `progress(fraction done)` while the excerpt is read: a point where a newer click can stop the work."""
    if over == "sample" and model_id == "shipped":
        return own_analysis(model_id, lm, smp)
    if over == "sample":  # kept for the session while the sample is the same object
        if session.get(f"{P}.own", (None,))[0] is not smp:
            session[f"{P}.own"] = (smp, lesson.analyse_sample(lm, smp))
        return session[f"{P}.own"][1]
    passage = lesson.excerpt(lm)
    work = lambda: lesson.analyse_passage(lm, passage, progress)  # noqa: E731
    if model_id == "shipped":
        if progress and (model_id, passage) not in PASSAGES:  # a bar from the start: the server's warm-up may be
            progress(0.0)  # reading it (ahead.warm_up), and a visitor waiting for that sees no progress of their own
        return PASSAGES.get((model_id, passage), work, pinned=True)
    if session.get(f"{P}.analysis", (None,))[0] != (model_id, passage):
        session[f"{P}.analysis"] = ((model_id, passage), work())
    return session[f"{P}.analysis"][1]


# ---- switch a unit off: the same sample with one unit clamped ------------------------------------------------
CLAMPS = SharedCache(48 * 2 ** 20)  # the shipped model's clamp experiments (~0.7 MB per 500 characters)
REFERENCES = SharedCache(2 * 2 ** 20)  # the free model's next-seed text, the reference a clamp is measured beside


def clamp_for(model_id: str, lm: CharLM, s: SamplingSettings, smp: lesson.Sample, c: Clamp, session: Session,
              progress: Callable[[float], None] | None = None) -> clamping.ClampEffect:
    """The sample beside the same sample with `c` held: once per server for the shipped model (every visitor shares
    it), the last one in the visitor's session for an upload. The work of about three samples, each within the
    page's sample budget: the clamped draw, the clamped model reading the first text, and the next seed's free
    text (the shipped model's is usually drawn ahead already)."""
    ref = replace(s, seed=s.seed + 1 if s.seed < lesson.MAX_SEED else s.seed - 1)
    key = (model_id, s, c)
    if model_id == "shipped":
        reference = (SAMPLES.get((model_id, ref), lambda: lesson.draw_sample(lm, ref), lambda v: v.nbytes).text
                     if (model_id, ref) in SAMPLES else
                     REFERENCES.get((model_id, ref), lambda: _free_text(lm, ref), lambda v: 4 * len(v)))
        return CLAMPS.get(key, lambda: clamping.clamp_effect(lm, s, smp, c, reference, progress), lambda v: v.nbytes)
    if session.get(f"{P}.clamped", (None,))[0] != key:
        session[f"{P}.clamped"] = (key, clamping.clamp_effect(lm, s, smp, c, _free_text(lm, ref), progress))
    return session[f"{P}.clamped"][1]


def _free_text(lm: CharLM, s: SamplingSettings) -> str:
    return lm.draw(s, keep_states=False).text
