"""Sample a trained character model: streamed text shaded by probability, each position's distribution,
branching, hidden units over text, the model card, and bring-your-own-model."""
import functools
import hashlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from ui.loaders import force_character, pick_position, shipped_model, unit_ranking
from ui.urlstate import dump_flag, flag, font_scale, integer, number, Param, publish, restore, set_state, text
from ui.widgets import controls_box, error, intro, md, plot
from rnnviz import charlm
from rnnviz.figures import sample as figures
from rnnviz.lessons.sample import char_probs, label, position
from rnnviz.lessons.sample import FEATURES

P = "sample"
MODEL = Path(__file__).resolve().parents[1] / "models" / "shakespeare.safetensors"
EXCERPT = MODEL.parent / "shakespeare_excerpt.txt"
TEMPS = [0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0]
PARAMS = [
    Param(f"{P}.prime", "prime", "ROMEO:", text(500)),
    Param(f"{P}.n", "n", 500, integer(1, 2000)),
    Param(f"{P}.temp", "temp", 0.8, number(0.1, 3.0)),
    Param(f"{P}.top_k", "k", 0, integer(0, 10_000)),
    Param(f"{P}.top_p", "p", 1.0, number(0.05, 1.0, 0.05)),
    Param(f"{P}.greedy", "greedy", False, flag, dump_flag),
    Param(f"{P}.seed", "seed", 1, integer(0, 1_000_000)),
]


def model_source() -> tuple[str, charlm.CharLM | None]:
    """The shipped model, or this session's uploaded one."""
    with st.expander("Bring your own model (this session only)"):
        st.caption("A `.safetensors` file of `rnnviz.model.CharRNN` weights and its JSON card, as written by "
                   "`python -m rnnviz.charlm.train`. Files are checked (names, shapes, vocabulary, size) and never executed.")
        wf = st.file_uploader("Weights (.safetensors)", type=["safetensors"], key=f"{P}.up_w")
        cf = st.file_uploader("Card (.json)", type=["json"], key=f"{P}.up_c")
        if wf is not None and cf is not None:
            data = wf.getvalue()
            key = hashlib.sha256(data + cf.getvalue()).hexdigest()[:16]
            if st.session_state.get(f"{P}.upload_key") != key:
                try:
                    st.session_state[f"{P}.upload"] = charlm.load_bytes(data, cf.getvalue())
                    st.session_state[f"{P}.upload_key"] = key
                except charlm.CheckpointError as e:
                    st.session_state.pop(f"{P}.upload", None)
                    st.session_state.pop(f"{P}.upload_key", None)
                    error(f"That model was refused: {e}.")
            if st.session_state.get(f"{P}.upload_key") == key:
                st.success("Using your model for this session.")
                return f"upload:{key}", st.session_state[f"{P}.upload"]
    try:
        return "shipped", shipped_model(str(MODEL))
    except charlm.CheckpointError as e:
        error(f"The shipped model could not be loaded: {e}")
        return "none", None


st.title("Sample a trained model")
restore(P, PARAMS)
intro("A two-layer LSTM that has read Tiny Shakespeare writes one character at a time. Each character is shaded "
      "by the probability the model gave it; click any character to see the distribution it was drawn from, or "
      "force a different one and watch the text branch.")
fs = font_scale()
model_id, lm = model_source()
if lm is None:
    st.stop()
left, right = st.columns([1, 2.6], gap="large")
with left, controls_box():
    prime = st.text_input("Prime text", key=f"{P}.prime", max_chars=500, help="What the model reads before it writes.")
    n = st.slider("Characters to generate", 1, 2000, key=f"{P}.n", help="How many new characters to sample.")
    temp = st.select_slider("Temperature", TEMPS, key=f"{P}.temp",
                            help="Scores are divided by this before the softmax: below 1 sharper, above 1 flatter.")
    st.caption(f"Temperature {temp:g}: " + ("sharper than the model, safer and more repetitive." if temp < 1 else
                                            "the model's own distribution." if temp == 1 else "flatter: more surprises, more typos."))
    top_k = st.number_input("Top-k (0 = off)", 0, lm.vocab_size, key=f"{P}.top_k",
                            help="Keep only the k most likely characters at each step.")
    top_p = st.slider("Top-p (1 = off)", 0.05, 1.0, step=0.05, key=f"{P}.top_p",
                      help="Keep the smallest set of characters whose probabilities add up to p.")
    greedy = st.toggle("Greedy (always the most likely)", key=f"{P}.greedy", help="Same as top-k = 1.")
    seed = st.number_input("Seed", 0, 1_000_000, key=f"{P}.seed", help="The same seed gives the same text.")
    st.button("Sample again", key=f"{P}.again", on_click=set_state, args=({f"{P}.seed": int(seed) + 1},), type="primary",
              width="stretch", help="A new seed, everything else unchanged.")

bad = sorted({c for c in prime if c not in lm.stoi})
with right:
    if not prime or bad:
        error("The prime text is empty." if not prime else
              "The model has never seen " + ", ".join(repr(c) for c in bad[:10]) + "; remove it from the prime.")
        st.stop()
    forced = st.session_state.get(f"{P}.forced", {})
    run_key = (model_id, prime, n, temp, 1 if greedy else (top_k or None), top_p if top_p < 1 else None, int(seed),
               tuple(sorted(forced.items())))
    cached = st.session_state.get(f"{P}.run")
    if cached is None or cached[0] != run_key:
        box = st.empty()
        trace = lm.generate_trace(prime, n, temp, run_key[4], run_key[5], int(seed), forced=forced,
                                  on_progress=lambda s: box.code(s, language=None, wrap_lines=True))
        box.empty()
        st.session_state[f"{P}.run"] = cached = (run_key, trace)
        st.session_state[f"{P}.pos"] = min(st.session_state.get(f"{P}.pos", len(prime)), len(trace.text) - 1)
    trace = cached[1]
    probs = char_probs(lm, trace)
    shade = st.segmented_control("Shade by", ["probability", "surprisal", "hidden unit"], key=f"{P}.shade",
                                 default="probability", help="What colours each character.") or "probability"
    L, H = lm.num_layers, lm.hidden_size
    if shade == "hidden unit":
        u1, u2, u3 = st.columns(3)
        layer = u1.number_input("Layer", 1, L, key=f"{P}.layer", value=L) - 1
        kind = u2.radio("State", ["h", "c"] if trace.c is not None else ["h"], key=f"{P}.kind", horizontal=True)
        unit = u3.number_input("Unit", 0, H - 1, key=f"{P}.unit", value=0)
        acts = (trace.h if kind == "h" else trace.c)[:, layer, unit]
        lim = max(1e-6, float(np.abs(acts).max()))
        vals, scale, lo, hi, title = acts, figures.DIVERGING, -lim, lim, f"{kind}[{layer + 1}][{unit}]"
        hover = [f"{label(ch)!r}: {v:+.3f}" for ch, v in zip(trace.text, acts)]
    elif shade == "surprisal":
        with np.errstate(divide="ignore"):
            bits = -np.log2(probs)
        vals, scale, lo, hi, title = np.nan_to_num(bits, nan=0.0), figures.SURPRISE_SCALE, 0.0, 8.0, "bits"
        hover = [f"{label(ch)!r}: {b:.2f} bits" for ch, b in zip(trace.text, bits)]
    else:
        vals, scale, lo, hi, title = np.nan_to_num(probs, nan=1.0), figures.PROB_SCALE, 0.0, 1.0, "p"
        hover = [f"{label(ch)!r}: p = {p:.3f}" for ch, p in zip(trace.text, probs)]
    pos = int(st.session_state.get(f"{P}.pos", len(prime)))

    st.plotly_chart(figures.text_grid(trace.text, vals, lo, hi, scale, hover, pos, font_scale=fs, colorbar_title=title),
                    key=f"{P}.grid", on_select=functools.partial(pick_position, f"{P}.grid", f"{P}.pos"), selection_mode="points", config={"displayModeBar": False},
                    width="content",
                    alt="generated text, shaded by " + shade)
    st.caption(f"Prime (read, not sampled): {len(prime)} characters; then {n} sampled. Mean probability of the sampled "
               f"characters {np.nanmean(probs[len(prime):]):.3f}. Click a character, or use the slider below.")
    with st.expander("The generated text as plain text"):
        st.code(trace.text, language=None, wrap_lines=True)

st.subheader("One position up close")
i = st.slider("Position", 1, len(trace.text) - 1, key=f"{P}.pos",
              help="Which character to inspect (0 is the first prime character).") if len(trace.text) > 2 else 1
info = position(lm, trace, i)
c1, c2, c3 = st.columns([1.5, 1.3, 0.8], gap="large")
if info is not None:
    with c1:
        st.markdown(f"Character **{i}**: {md(repr(label(info.char)))}, {'sampled' if info.generated else 'read from the prime'}. "
                    f"The model gave it p = **{info.p_char:.3f}** ({info.surprisal_bits:.2f} bits of surprise).")
        labels = [label(c) for c, _ in info.model_top]
        model_p = np.array([p for _, p in info.model_top])
        if info.sampled_top is not None:
            sp = dict(info.sampled_top)
            samp = np.array([sp.get(c, 0.0) for c, _ in info.model_top])
            plot(figures.prob_bars(labels, samp, model_p, "model (temperature 1)", "sampled from", fs,
                                   title="Top 10: model vs what was sampled from"), f"{P}.dist",
                 alt="top ten next-character probabilities")
            st.markdown(f"Entropy: **{info.model_entropy:.3f}** nats before, **{info.sampled_entropy:.3f}** after.")
        else:
            plot(figures.prob_bars(labels, model_p, None, "", "model", fs, title="Top 10 (teacher forcing)"), f"{P}.dist",
                 alt="top ten next-character probabilities")
            st.markdown(f"Entropy: **{info.model_entropy:.3f}** nats.")
    with c2:
        plot(figures.state_grid(trace.h[i], title=f"Hidden state h after character {i}", font_scale=fs), f"{P}.state",
             alt=f"hidden state at position {i}")
    with c3:
        if info.generated:
            choices = lm.itos
            st.selectbox("Force a different character here", choices, key=f"{P}.force_char", format_func=label,
                         help="Replace the sampled character and let the model continue from it.")
            st.button("Branch from here", key=f"{P}.branch", on_click=force_character, width="stretch",
                      args=(f"{P}.forced", f"{P}.force_char", i - trace.generated_from),
                      help="Teacher-force this one character; everything after it is sampled again.")
        if st.session_state.get(f"{P}.forced"):
            st.info(f"{len(st.session_state[f'{P}.forced'])} forced character(s) in this sample.")
            st.button("Clear forced characters", key=f"{P}.unforce", on_click=set_state, args=({f"{P}.forced": {}},))

st.subheader("Hidden units that track something")
passage_choice = st.radio("Analyse", ["excerpt", "sample"], key=f"{P}.passage", horizontal=True,
                          format_func={"excerpt": "a passage of the play (validation text)", "sample": "this sample"}.get,
                          help="Each unit's activation is correlated with simple features of the text.")
passage = EXCERPT.read_text(encoding="utf-8") if passage_choice == "excerpt" and EXCERPT.exists() else trace.text
passage = "".join(c for c in passage if c in lm.stoi)
hits = unit_ranking(model_id, lm, passage)
rows = [{"feature": h.feature, "what": FEATURES[h.feature], "unit": f"layer {h.layer + 1} {h.kind}[{h.unit}]",
         "r": h.r} for h in hits]
st.dataframe(pd.DataFrame(rows), width="stretch", hide_index=True, height=min(420, 36 * len(rows) + 40),
             column_config={"r": st.column_config.ProgressColumn("correlation r", min_value=-1, max_value=1, format="%+.3f")})
st.caption("Pick one and shade the text by it: choose **Shade by → hidden unit** above, with its layer, state and unit.")

with st.expander("Model card"):
    card = lm.card
    val = card.get("val_loss")
    st.markdown(
        f"**{md(card.get('cell', '?').upper())}**, {card.get('num_layers')} layers of {card.get('hidden_size')} units, "
        f"embeddings of {card.get('embed_size')}, vocabulary of {lm.vocab_size} characters. "
        + (f"Trained on {md(card.get('corpus', '?'))} for {md(card.get('steps', '?'))} steps ({md(card.get('minutes', '?'))} min) "
           f"on **{md(card.get('device', '?'))}** with torch {md(card.get('torch_version', '?'))}. " if "steps" in card else "")
        + (f"Validation loss **{val:.4f}** nats/char ({val / math.log(2):.3f} bits/char), perplexity "
           f"**{math.exp(val):.2f}**, read as one stream from a zero state." if isinstance(val, (int, float)) else ""))
    st.json({k: v for k, v in card.items() if k not in ("itos", "history")}, expanded=False)
publish(PARAMS)
