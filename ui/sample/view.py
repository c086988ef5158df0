"""Parts of the sampling page that are Streamlit code but not the page's outline: the sample shown (with a progress
bar), the link restored and the notices for what it asked that the sample cannot show (a position past its end,
characters forced where they cannot go), and "Switch a unit off" (the same sample with one unit clamped, beside the
finder's correlations). Words: ui/sample/words.py; keys: ui/sample/controls.py."""
from __future__ import annotations

import numpy as np
import streamlit as st

from rnnviz import charlm
from rnnviz.charlm.inspect import UnitHit
from rnnviz.figures import sample as figures
from rnnviz.lessons import sample as lesson
from rnnviz.nn.sampling import SamplingSettings
from rnnviz.text import fmt
from ui.sample import P, ahead, cache, controls, words
from ui.textview import textview
from ui.urlstate import Param, restore, set_state
from ui.widgets import plot

ss = st.session_state
KL_TOP = 1.0  # nats: the text's shading is darkest from here (a fixed scale, so units can be compared)


def sample_shown(model_id: str, lm: charlm.CharLM, s: SamplingSettings) -> lesson.Sample:
    """The sample for these settings (ui/sample/ahead.py sample_for): a long one shows a light progress bar, where
    a newer click can stop it (no text streamed); after a click on Sample again the next seed's is drawn ahead."""
    bar = st.empty()
    progress = lesson.is_long(lm, s) and (lambda done: bar.progress(done, text="Sampling…"))
    smp = ahead.sample_for(model_id, lm, s, ss, progress, ahead=bool(ss.get(f"{P}.again")))  # the next is likely
    bar.empty()
    return smp


def restore_page(lm: charlm.CharLM) -> list[Param]:
    """The page's link parameters, restored (bad values named by their controls' labels), and what a link asked for
    the position and the forced characters kept for `position_notice` and `branch_notice` (only on arriving with a
    link that names them)."""
    arrived, params = ss.get("app.page") != P, controls.declared(lm).params
    restore(P, params)
    if arrived:
        ss.pop(f"{P}._cfor", None)  # the clamped text's clicked character (`cpos`) is the link's or the last visit's
        bad = ss.get(f"{P}._url_bad", [])
        asked = {url: ss[f"{P}.{key}"] for url, key in (("pos", "pos"), ("branch", "forced"))
                 if url in st.query_params and url not in bad}
        ss[f"{P}._asked"] = asked
    return params


def position_notice(smp: lesson.Sample) -> None:
    """Say that a link asked for a position past the sample's last character, while the visitor has not moved it
    (the inspector's part of the page calls this: moving the position reruns that part alone)."""
    asked, last = ss.get(f"{P}._asked", {}), len(smp.text) - 1
    if "pos" in asked and asked["pos"] > last and ss[f"{P}.pos"] in (asked["pos"], last):
        st.info(f"The link asks for **Position** {asked['pos'] + 1:,}, past this sample's last character "
                f"({last + 1:,}), so the last character is shown.", icon="ℹ️")


def branch_notice(lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings) -> None:
    """Say which of a link's forced characters this sample cannot take (past the sampled ones, or outside the model's
    vocabulary), while the visitor has not changed them."""
    asked = ss.get(f"{P}._asked", {})
    if "branch" in asked and ss[f"{P}.forced"] == asked["branch"]:
        kept = dict(lesson.forced_within(lm, s.length, asked["branch"]))
        dropped = sorted(set(asked["branch"].items()) - set(kept.items()))
        why = [f"{words.label(ch)!r} at {smp.generated_from + k + 1:,} " + ("(not in the model's vocabulary)"
                                                                        if ch not in lm.stoi else
                                                                        f"(only {s.length:,} characters are sampled)")
               for k, ch in dropped]
        if why:
            st.info("The link's **Branch from here** characters " + "; ".join(why) + " cannot be forced in this "
                    "sample, so they are left out.", icon="ℹ️")


def clamp_view(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, hits: list[UnitHit],
               fs: float) -> None:
    """One unit held at a value while the same sample is drawn again: the text, KL per character, the statistics."""
    st.markdown(words.CLAMP_CONTRAST)
    c0, c1, c2, c3, c4 = st.columns([2.1, 0.9, 0.9, 0.9, 1.6], vertical_alignment="bottom")
    c0.selectbox("A unit the finder ranked", range(len(hits)), index=None, key=f"{P}.cpick",
                 placeholder="or set one by hand →", format_func=lambda r: words.unit_choice(hits[r]),
                 on_change=lambda: set_state(controls.clamp_state(hits, ss[f"{P}.cpick"])))
    C = controls.declared(lm)
    C.widget("clamp_layer", c1)
    C.widget("clamp_kind", c2, options=["h", "c"] if lm.cell_type.has_cell_state else ["h"], help=words.CLAMP_KIND_HELP)
    C.widget("clamp_unit", c3)
    C.widget("clamp_value", c4, help=words.CLAMP_VALUE_HELP)
    bar = st.empty()
    effect = cache.clamp_for(model_id, lm, s, smp, controls.clamp_of(ss), ss,
                             lesson.is_long(lm, s) and (lambda done: bar.progress(done, text="Sampling again…")))
    bar.empty()
    st.markdown(words.clamp_summary(effect, s.seed))
    if ss.get(f"{P}._cfor", (s, effect.clamp)) != (s, effect.clamp):  # a clamp or sample set here: inspect the
        ss[f"{P}.cpos"] = -1  # character the clamp moves most (one a link or the last visit chose is kept on arrival)
    ss[f"{P}._cfor"] = (s, effect.clamp)
    most = int(np.nanargmax(np.r_[0.0, effect.kl[1:]]))
    i = most if ss[f"{P}.cpos"] < 0 else min(max(1, ss[f"{P}.cpos"]), len(effect.before) - 1)
    left, right = st.columns([1.5, 1], gap="large")
    with left:
        st.markdown(words.BEFORE_TITLE)
        titles = [f"{words.label(ch)!r}: KL {fmt(v, 4)} nats" for ch, v in zip(effect.before, np.nan_to_num(effect.kl))]
        textview(figures.text_markup(effect.before, effect.kl, 0.0, KL_TOP, False, titles, None, None, fs),
                 words.BEFORE_ALT, f"{P}.ctext", f"{P}.cpos", selected=i)
        st.html(words.legend_markup(words.KL_CAPTION, "0 nats", f"{KL_TOP:g}+", False, fs))
        st.markdown(words.AFTER_TITLE)
        st.html(figures.parted_markup(effect.after, effect.first_change, fs))
    with right:
        plot(figures.kl_figure(effect.kl, effect.first_change, i, fs, words.KL_TITLE, first=1), f"{P}.kl",
             alt=words.CLAMP_KL_ALT)
        st.caption(words.clamp_range(effect))
        st.markdown(words.position_sentence(lm, effect, i))
        st.html(figures.dist_markup(words.clamp_rows(lm, effect, i), "free", "clamped", fs))
    tracked = words.clamp_finder_hits(hits, effect.clamp)
    st.html(figures.table_markup(words.STATISTICS_HEAD, words.statistic_rows(effect, tracked), fs))
    st.caption(words.statistics_caption(s.seed, tracked))
