"""Sample a trained character model: the text shaded by probability, surprisal, a hidden unit or connectivity;
each position's distributions and branching; hidden units and gate saturation; bring your own model."""
import streamlit as st

from rnnviz import charlm
from rnnviz.charlm.inspect import GATE_NAMES
from rnnviz.figures import sample as figures
from rnnviz.lessons import sample as lesson
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.loaders import force_character, shipped_model
from ui.sample import P, cache, controls as ctl, follow, shading, words
from ui.sample.view import branch_notice, clamp_view, position_notice, restore_page, sample_shown
from ui.textview import textview
from ui.upload import model_upload
from ui.urlstate import Param, font_scale, publish, set_state
from ui.widgets import error, intro, md, plot

ss = st.session_state


def controls(lm: charlm.CharLM) -> tuple[charlm.SamplingSettings, list[str]]:
    """The sampling settings, and what is wrong with them (empty when nothing is)."""
    c1, c2, c3, c4 = st.columns([1.5, 1.35, 1.35, 1.1], vertical_alignment="bottom")
    C = ctl.declared(lm)
    prime = C.widget("prime", c1)
    most = lesson.most_chars(lm, prime)
    n = C.widget("n", c2, hi=max(most, 2), help=f"How many new characters to sample: at most {most:,} after this "
                 "prime for this model (the limit scales with its work per character).")
    temp = C.widget("temp", c3)
    c4.button("Sample again", key=f"{P}.again", on_click=set_state, args=({f"{P}.seed": ss[f"{P}.seed"] + 1},),
              type="primary", width="stretch", help="A new seed, everything else unchanged.")
    d1, d2, d3, d4 = st.columns([1.5, 1.35, 1.35, 1.1], vertical_alignment="bottom")
    top_k, top_p, greedy, seed = (C.widget(name, col) for name, col in zip(("top_k", "top_p", "greedy", "seed"),
                                                                           (d1, d2, d3, d4)))
    with st.container(key=follow.SAID):  # its words follow a drag of Temperature
        st.caption(words.temperature_sentence(temp))
    forced, problems = ctl.check(lm, prime, n, ss[f"{P}.forced"])
    return ctl.settings(prime, n, temp, top_k, top_p, greedy, seed, forced), problems


@fragment
def inspector(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, settings: charlm.SamplingSettings, fs: float,
              url: list[Param]) -> None:
    """The shaded text and one position up close: moving the position or the shading reruns only this."""
    position_notice(smp)
    i = ctl.inspected(ss, len(smp.text))  # an index into the text; the page writes it from 1
    C = ctl.declared(lm)
    shade = C.widget("shade") or "probability"
    unit = (0, "h", 0)
    if shade == "hidden unit":
        s2, s3, s4, _ = st.columns([1, 1, 1, 2.5], vertical_alignment="bottom")
        unit = (C.widget("layer", s2) - 1, C.widget("kind", s3, options=["h", "c"] if smp.c is not None else ["h"]),
                C.widget("unit", s4, help=words.UNITS_FROM_1) - 1)
    left, right = st.columns([1.5, 1], gap="large")
    sh = shading.shade(shade, lm, smp, i, unit, model_id, ss)
    v = sh.numbers
    with left:
        markup = figures.text_markup(smp.text, v.values, v.lo, v.hi, v.signed, sh.titles, None, v.unread_after, fs)
        textview(markup, f"The text, shaded by {shade}; character {i + 1} outlined. Click a character to inspect it.",
                 f"{P}.text", f"{P}.pos", selected=i)
        with st.container(key=follow.LEGEND):
            st.html(follow.legend(sh, smp, fs))
    with right:
        C.widget("char", hi=max(3, len(smp.text)), on_change=ctl.char_moved, args=(ss,))
        info = lesson.position(lm, smp, i)
        with st.container(key=follow.AT):  # its words follow a drag of Position (scrubs, below)
            said, bars, entropy = follow.position_texts(lm, smp, i, fs)
            st.markdown(said)
            st.html(bars)
            st.markdown(entropy)
        if info.source != "prime":
            ctl.force_box(ss, i, info.char)
            st.selectbox("Force a character here", lm.itos, key=f"{P}.force_char", format_func=words.label,
                         help="Put a different character here and let the model continue from it.")
            if st.button("Branch from here", key=f"{P}.branch", on_click=force_character, width="stretch",
                         args=(f"{P}.forced", f"{P}.force_char", i - smp.generated_from),
                         help="Teacher-force this one character; everything after it is sampled again."):
                st.rerun(scope="app")
        if smp.forced:
            st.caption(f"Forced by hand at character {', '.join(str(k + 1) for k in sorted(smp.forced))}.")
            if st.button("Clear forced characters", key=f"{P}.unforce", on_click=set_state,
                         args=({f"{P}.forced": {}},)):
                st.rerun(scope="app")
    with C.widget("state_open") as box:
        if box.open:  # a label of its own each position would shut the box at each move (a new widget)
            plot(figures.state_grid(smp.h[i], f"after character {i + 1:,}", font_scale=fs), f"{P}.state",
                 alt=f"every layer's hidden state after character {i + 1}")
    scrubs(P, follow.scrubs(model_id, lm, smp, settings, i, shade, fs))
    publish(url)


@fragment
def look_inside(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: charlm.SamplingSettings, fs: float,
                url: list) -> None:
    """Hidden units, a unit clamped, gate saturation and the model card: its controls rerun only this."""
    if ss.pop(f"{P}._app", 0):
        st.rerun(scope="app")
    C = ctl.declared(lm)
    view = C.widget("view") or "units"
    if view == "text":
        st.code(smp.text, language=None, wrap_lines=True)
    elif view == "card":
        st.markdown(" ".join(md(f) for f in words.card_facts(lm.card, lm.vocab_size)))
        st.json({k: v for k, v in lm.card.items() if k not in ("itos", "history")}, expanded=1)  # fields shown
    elif view == "gates" and not GATE_NAMES[lm.cell]:
        st.info("A vanilla RNN has no gates to saturate.")
    else:
        over = C.widget("passage")
        a = cache.analysis_for(model_id, lm, smp, over, ss, (bar := st.empty()).progress)
        bar.empty()
        if view == "clamp":
            clamp_view(model_id, lm, smp, s, a.hits, fs)
        elif view == "units":
            st.html(figures.units_markup(words.unit_rows(a.hits), fs, words.ranking_caption(a)))
            st.selectbox("Shade the text by one of them", range(len(a.hits)), index=None, key=f"{P}.pick",
                         placeholder="choose a unit", format_func=lambda r: words.unit_choice(a.hits[r]),
                         on_change=lambda: set_state(ctl.unit_state(a.hits, [ss[f"{P}.pick"]])))
        else:
            n = C.widget("span", options=ctl.spans(a, ss), format_func=lambda v: f"{v or a.chars:,} characters")
            n = n or a.chars  # 0: the whole passage
            plot(figures.saturation_figure(a.saturation[n], fs, words.saturation_title(n)), f"{P}.sat",
                 alt=words.SATURATION_ALT)
            st.caption(words.saturation_caption(a))
            plot(figures.closed_share_figure(a.closed, font_scale=fs, title=words.CLOSED_TITLE), f"{P}.closed",
                 alt=words.CLOSED_ALT)
    publish(url)


@fragment
def lesson_body(model_id: str, lm: charlm.CharLM, params: list[Param]) -> None:
    """The settings and all they move: Sample again or a setting reruns this, not app.py's sidebar and foot."""
    fs, (settings, problems) = font_scale(), controls(lm)
    if problems:
        return error(" ".join(problems))
    branch_notice(lm, smp := sample_shown(model_id, lm, settings), settings)
    inspector(model_id, lm, smp, settings, fs,
              [p for p in params if p.url in ("pos", "shade", "layer", "kind", "unit", "state")])
    look_inside(model_id, lm, smp, settings, fs, [p for p in params if p.url in ctl.LOOK_URLS])
    publish(params)


st.title("Sample a trained model")
model_id, lm = model_upload(P, lambda: shipped_model(str(charlm.SHIPPED_MODEL)))
PARAMS = restore_page(lm)
ctl.fit_to(lm, ss)
intro(words.introduction(lm))
lesson_body(model_id, lm, PARAMS)
