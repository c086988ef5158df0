"""Sample a trained character model: the text shaded by probability, surprisal, a hidden unit or connectivity;
each position's distributions and branching; hidden units and gate saturation; bring your own model."""

import streamlit as st

from rnnviz import charlm
from rnnviz.figures import sample as figures
from rnnviz.lessons import sample as L
from ui.loaders import force_character, shipped_model
from ui.textview import textview
from ui.upload import model_upload
from ui.urlstate import Param, choice, dump_flag, flag, font_scale, integer, number, publish, restore, set_state, text
from ui.widgets import error, intro, md, plot

P = "sample"
MODEL = charlm.SHIPPED_MODEL
VIEWS = {"units": "Hidden units that track something", "gates": "Gate saturation", "card": "Model card", "text": "Plain text"}
ss = st.session_state


def params(lm: charlm.CharLM) -> list[Param]:
    spec = [("prime", "prime", "ROMEO:", text(500)), ("n", "n", 500, integer(1, 2000)), ("temp", "temp", 0.8, L.one_of(L.TEMPS)),
            ("top_k", "k", 0, integer(0, lm.vocab_size)), ("top_p", "p", 1.0, number(0.05, 1.0, 0.05)),
            ("greedy", "greedy", False, flag, dump_flag), ("seed", "seed", 1, integer(0, L.MAX_SEED)),
            ("forced", "branch", {}, L.parse_branches, L.dump_branches), ("pos", "pos", 6, integer(1, 2505)),
            ("shade", "shade", "probability", choice(L.SHADES)), ("layer", "layer", lm.num_layers, integer(1, lm.num_layers)),
            ("kind", "kind", "h", choice(["h", "c"])), ("unit", "unit", 0, integer(0, lm.hidden_size - 1)),
            ("view", "view", "units", choice(VIEWS)), ("passage", "over", "excerpt", choice(list(L.PASSAGES_SHOWN))),
            ("span", "first", 0, L.one_of((0, *L.SPANS)))]
    return [Param(f"{P}.{key}", *rest) for key, *rest in spec]


def controls(lm: charlm.CharLM) -> tuple[L.Settings, list[str]]:
    """The sampling settings, and what is wrong with them (empty when nothing is)."""
    c1, c2, c3, c4 = st.columns([1.5, 1.35, 1.35, 1.1], vertical_alignment="bottom")
    prime = c1.text_input("Prime text", key=f"{P}.prime", max_chars=500, help="What the model reads before it writes.")
    most = L.most_chars(lm, prime)
    n = c2.slider("Characters", 1, max(most, 2), key=f"{P}.n", help=f"How many new characters to sample: at most {most:,} "
                  "after this prime for this model (the limit scales with its work per character).")
    temp = c3.select_slider("Temperature", L.TEMPS, key=f"{P}.temp", help="Scores are divided by this before the softmax.")
    c4.button("Sample again", key=f"{P}.again", on_click=set_state, args=({f"{P}.seed": ss[f"{P}.seed"] + 1},), type="primary",
              width="stretch", help="A new seed, everything else unchanged.")
    d1, d2, d3, d4 = st.columns([1.5, 1.35, 1.35, 1.1], vertical_alignment="bottom")
    top_k = d1.number_input("Top-k (0 = off)", 0, lm.vocab_size, key=f"{P}.top_k", help="Keep only the k most likely characters.")
    top_p = d2.slider("Top-p (1 = off)", 0.05, 1.0, step=0.05, key=f"{P}.top_p", help="Keep the fewest most likely characters "
                      "whose probabilities add up to p.")
    greedy = d3.toggle("Greedy", key=f"{P}.greedy", help="Always the most likely character (the same as top-k = 1).")
    seed = d4.number_input("Seed", 0, L.MAX_SEED, key=f"{P}.seed", help="The same seed gives the same text.")
    st.caption(L.temperature_sentence(temp))
    forced, problems = L.check(lm, prime, n, ss[f"{P}.forced"])
    return L.Settings(prime, n, temp, 1 if greedy else (top_k or None), top_p if top_p < 1 else None, int(seed), forced), problems


@st.fragment
def inspector(lm: charlm.CharLM, smp: L.Sample, fs: float, url: list[Param]) -> None:
    """The shaded text and one position up close: moving the position or the shading reruns only this."""
    ss[f"{P}.pos"] = i = min(max(1, ss[f"{P}.pos"]), len(smp.text) - 1)
    shade = st.segmented_control("Shade by", L.SHADES, key=f"{P}.shade", help="What colours each character.") or "probability"
    unit = (0, "h", 0)
    if shade == "hidden unit":
        s2, s3, s4, _ = st.columns([1, 1, 1, 2.5], vertical_alignment="bottom")
        unit = (s2.number_input("Layer", 1, lm.num_layers, key=f"{P}.layer") - 1,
                s3.radio("State", ["h", "c"] if smp.c is not None else ["h"], key=f"{P}.kind", horizontal=True),
                s4.number_input("Unit", 0, lm.hidden_size - 1, key=f"{P}.unit"))
    left, right = st.columns([1.5, 1], gap="large")
    sh = L.shading(shade, lm, smp, i, unit)
    with left:
        markup = figures.text_markup(smp.text, sh.values, sh.lo, sh.hi, sh.signed, sh.titles, None, sh.unread_after, fs)
        textview(markup, f"The text, shaded by {shade}; character {i} outlined. Click a character to inspect it.",
                 f"{P}.text", f"{P}.pos", selected=i)
        st.html(figures.legend_markup(sh.caption, *sh.ends, sh.signed, fs, L.summary(smp)))
    with right:
        st.slider("Position", 1, max(2, len(smp.text) - 1), key=f"{P}.pos", help="Which character to inspect (0: the prime's first).")
        info = L.position(lm, smp, i)
        st.markdown(f"Character **{i}**: {md(repr(L.label(info.char)))}, {L.describe_position(info)}")
        st.html(figures.dist_markup(L.top_rows(info), "model (T = 1)", L.sampled_name(info), fs))
        st.markdown(L.entropy_sentence(info))
        if info.source != "prime":
            if ss.get(f"{P}._force_at") != (i, info.char):  # the box starts on the character that is there
                ss[f"{P}._force_at"], ss[f"{P}.force_char"] = (i, info.char), info.char
            st.selectbox("Force a character here", lm.itos, key=f"{P}.force_char", format_func=L.label,
                         help="Put a different character here and let the model continue from it.")
            if st.button("Branch from here", key=f"{P}.branch", on_click=force_character, width="stretch",
                         args=(f"{P}.forced", f"{P}.force_char", i - smp.generated_from),
                         help="Teacher-force this one character; everything after it is sampled again."):
                st.rerun(scope="app")
        if smp.forced:
            st.caption(f"Forced by hand at position {', '.join(map(str, sorted(smp.forced)))}.")
            if st.button("Clear forced characters", key=f"{P}.unforce", on_click=set_state, args=({f"{P}.forced": {}},)):
                st.rerun(scope="app")
    with st.expander(f"The hidden state after character {i}", key=f"{P}.state_open", on_change="rerun") as box:
        if box.open:
            plot(figures.state_grid(smp.h[i], font_scale=fs), f"{P}.state", alt=f"every layer's hidden state after character {i}")
    publish(url)


@st.fragment
def look_inside(model_id: str, lm: charlm.CharLM, smp: L.Sample, fs: float, url: list[Param]) -> None:
    """Hidden units, gate saturation and the model card: its controls rerun only this."""
    if ss.pop(f"{P}._app", 0):
        st.rerun(scope="app")
    view = st.segmented_control("Look inside", list(VIEWS), format_func=VIEWS.get, key=f"{P}.view") or "units"
    if view == "text":
        st.code(smp.text, language=None, wrap_lines=True)
    elif view == "card":
        st.markdown(" ".join(md(f) for f in L.card_facts(lm.card, lm.vocab_size)))
        st.json({k: v for k, v in lm.card.items() if k not in ("itos", "history")}, expanded=False)
    elif view == "gates" and not L.GATE_NAMES[lm.cell]:
        st.info("A vanilla RNN has no gates to saturate.")
    else:
        over = st.radio("Over", ["excerpt", "sample"], key=f"{P}.passage", horizontal=True, format_func=L.PASSAGES_SHOWN.get)
        a = L.analysis_for(model_id, lm, smp, over, ss, (bar := st.empty()).progress)
        bar.empty()
        if view == "units":
            st.html(figures.units_markup(L.unit_rows(a.hits), fs, L.ranking_caption(a)))
            st.selectbox("Shade the text by one of them", range(len(a.hits)), index=None, key=f"{P}.pick", placeholder="choose a unit",
                         format_func=lambda r: L.unit_rows(a.hits[r:r + 1])[0]["unit"] + f" ({a.hits[r].feature})",
                         on_change=lambda: set_state(L.unit_state(a.hits, [ss[f"{P}.pick"]])))
        else:
            ss[f"{P}.span"] = ss[f"{P}.span"] if ss[f"{P}.span"] in (spans := L.span_choices(a)) else 0
            n = st.select_slider("Over the first", spans, key=f"{P}.span", format_func=lambda v: f"{v or a.chars:,} characters",
                                 help="Where in the text to count: the first characters after the start, or all.") or a.chars
            plot(figures.saturation_figure(a.saturation[n], fs, f"Each unit's gates over the first {n:,} characters"), f"{P}.sat",
                 alt="gate saturation: one dot per unit and gate, at the fraction of steps below 0.1 and above 0.9")
            st.caption(L.saturation_caption(a))
            plot(figures.closed_share_figure(a.closed, font_scale=fs, title="Share of units with the gate closed (< 0.1)"),
                 f"{P}.closed", alt="share of units with a closed gate at each stretch of the text, per layer and gate")
    publish(url)


st.title("Sample a trained model")
model_id, lm = model_upload(P, lambda: shipped_model(str(MODEL)))
restore(P, PARAMS := params(lm))
for key, most in (("top_k", lm.vocab_size), ("layer", lm.num_layers), ("unit", lm.hidden_size - 1),
                  ("n", max(2, L.most_chars(lm, ss[f"{P}.prime"])))):  # an uploaded model may be smaller or costlier
    ss[f"{P}.{key}"] = min(ss[f"{P}.{key}"], most)
intro(md(L.describe(lm.card, lm.vocab_size)) + " writes one character at a time. Each character is shaded by how unlikely "
      "the model found it; click any character to see the distribution it was drawn from, or force a different one.")
fs, (settings, problems) = font_scale(), controls(lm)
if problems:
    error(" ".join(problems))
    st.stop()
bar = st.empty()  # a long sample shows a light progress bar, where a newer click can stop it (no text streamed)
smp = L.sample_for(model_id, lm, settings, ss, L.is_long(lm, settings) and (lambda done: bar.progress(done, text="Sampling…")),
                   ahead=bool(ss.get(f"{P}.again")))  # after one click on Sample again, the next is likely
bar.empty()
inspector(lm, smp, fs, [p for p in PARAMS if p.url in ("pos", "shade", "layer", "kind", "unit")])
look_inside(model_id, lm, smp, fs, [p for p in PARAMS if p.url in ("view", "over", "first")])
publish(PARAMS)
