"""Train "hello" yourself: the notes' smallest character language model, trained live in the browser."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import font_scale, integer, number, Param, publish, restore, set_state, text
from ui.widgets import controls_box, error, intro, plot
from rnnviz.figures import hello as figures
from rnnviz.lessons.hello import MAX_TEXT, check_text, read, sample, train
from rnnviz.lessons.presets import SOFTMAX_SCORES
from rnnviz.nn.sampling import softmax
from rnnviz.lessons.scalar import InputError, parse_sequence

P = "hello"
TEMPS = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0]
PARAMS = [
    Param(f"{P}.text", "text", "hello", text(MAX_TEXT)),
    Param(f"{P}.H", "H", 3, integer(1, 32)),
    Param(f"{P}.steps", "steps", 300, integer(0, 1000)),
    Param(f"{P}.seed", "seed", 0, integer(0, 10_000)),
    Param(f"{P}.temp", "temp", 1.0, number(0.1, 5.0)),
    Param(f"{P}.scores", "scores", ", ".join(f"{v:g}" for v in SOFTMAX_SCORES), text(400)),
]

st.title('Train "hello" yourself')
restore(P, PARAMS)
intro("Four letters, one-hot inputs, three hidden units: the smallest language model there is. Press **Train** and "
      "watch the loss fall; then read the table to see how the two l's of hello get different predictions. "
      "Replace hello with your own short text and train again.")
fs = font_scale()
left, right = st.columns([1, 2.3], gap="large")
with left, controls_box():
    raw = st.text_area("Training text", key=f"{P}.text", max_chars=MAX_TEXT, height=90,
                       help="Any short text, up to 2,000 characters. Inputs are its characters; each target is the next one.")
    try:
        txt = check_text(raw)
    except ValueError as e:
        error(f"{e} Using 'hello'.")
        txt = "hello"
    H = st.slider("Hidden size", 1, 32, key=f"{P}.H", help="How many numbers the model may remember.")
    steps = st.slider("Training steps", 0, 1000, step=10, key=f"{P}.steps", help="Adam updates on the whole text.")
    seed = st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="Seeds the initial weights and the sampling.")
    cfg = (txt, H, steps, int(seed))
    trained = st.session_state.get(f"{P}.result")
    st.button("Train", key=f"{P}.train", type="primary", width="stretch", on_click=set_state,
              args=({f"{P}.train_requested": True},),
              help="Backpropagation through time on the text, on this server's CPU, in a second or two.")
    if st.session_state.pop(f"{P}.train_requested", False):
        bar = st.progress(0.0, text="Training…")
        result = train(txt, H, steps, seed=int(seed),
                       callback=lambda k, loss: bar.progress(k / max(steps, 1), text=f"step {k}/{steps}, loss {loss:.3f}"))
        bar.progress(1.0, text=f"Trained {steps} steps in {result.seconds:.1f} s")
        st.session_state[f"{P}.result"] = trained = (cfg, result)
    if trained is None or trained[0] != cfg:
        st.caption("Showing the untrained model (random weights). Press **Train** to fit it to the text.")
        model = train(txt, H, 0, seed=int(seed))
        losses = None
    else:
        model, losses = trained[1], trained[1].losses

w = model.weights
vocab = w.vocab
steps_read = read(txt, w)
with right:
    m1, m2, m3 = st.columns(3)
    m1.metric("Loss", f"{steps_read.loss:.4f}", help="Mean cross-entropy of each next character, in nats.")
    m2.metric("Perplexity = exp(loss)", f"{steps_read.perplexity:.3f}",
              help="As if the model chose uniformly among this many characters; 1 is perfect.")
    m3.metric("Vocabulary", "{" + ", ".join(vocab[:12]) + ("…" if len(vocab) > 12 else "") + "}" if len(vocab) <= 24
              else f"{len(vocab)} characters")
    if losses:
        plot(figures.loss_curve(losses, fs), f"{P}.loss", alt=f"loss fell from {losses[0]:.3f} to {losses[-1]:.3f}")
    if len(steps_read.inputs) <= 24:
        plot(figures.char_steps_figure(steps_read, vocab, fs), f"{P}.steps_fig",
             alt="per step: one-hot input, hidden state, scores, softmax")
    p_tgt = steps_read.probs[np.arange(len(steps_read.targets)), [vocab.index(c) for c in steps_read.targets]]
    best = [vocab[i] for i in steps_read.probs.argmax(axis=1)]
    table = pd.DataFrame({"input": steps_read.inputs, "target": steps_read.targets, "p(target)": p_tgt,
                          "model's best guess": best},
                         index=pd.Index(range(1, len(p_tgt) + 1), name="step"))
    st.dataframe(table.round({"p(target)": 3}), width="stretch", height=min(400, 36 * len(table) + 40))

st.subheader("Sampling, and what temperature does")
s1, s2 = st.columns([1, 2.3], gap="large")
with s1:
    temp = st.select_slider("Temperature", TEMPS, key=f"{P}.temp",
                            help="Scores are divided by the temperature before the softmax: below 1 the distribution "
                                 "sharpens toward the top choice, above 1 it flattens toward uniform.")
    start = st.selectbox("Start from", vocab, key=f"{P}.start", help="The first character fed in.")
    n = st.slider("Characters to sample", 1, 200, 30, key=f"{P}.n")
    st.markdown("**Sample** (each character fed back in as the next input):")
    st.code(start + sample(w, start, n, temp, seed=int(seed)), language=None, wrap_lines=True)
with s2:
    raw_scores = st.text_input("Scores to turn into probabilities", key=f"{P}.scores", max_chars=400,
                               help="The notes' example: scores 1.0, 2.2, −3.0, 4.1 over h, e, l, o.")
    try:
        sc = np.array(parse_sequence(raw_scores, max_len=64, max_abs=1e4))
    except InputError as e:
        error(f"{e} Using the notes' scores.")
        sc = np.array(SOFTMAX_SCORES)
    labels = list("helo") if len(sc) == 4 else [f"#{k + 1}" for k in range(len(sc))]
    p1, pt = softmax(sc), softmax(sc, temp)
    plot(figures.prob_bars(labels, pt, p1 if temp != 1 else None, "temperature 1", f"temperature {temp:g}", fs,
                           title=f"softmax(scores / {temp:g})"), f"{P}.softmax",
         alt="probabilities " + ", ".join(f"{v:.3f}" for v in pt))
    st.markdown(f"At temperature 1: **({', '.join(f'{v:.3f}' for v in p1)})**. At {temp:g}: "
                f"**({', '.join(f'{v:.3f}' for v in pt)})**.")
publish(PARAMS)
